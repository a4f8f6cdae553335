//! Talking to Control: enrollment, and signed requests carrying a fresh nonce
//! (for a Control that announced `nonce`). Every request announces what this
//! Agent speaks, and every answer's announcement is taken in
//! (crate::control_speaks) before the answer is used.

use crate::config::Config;
use crate::control_pin::AnswerHeaders;
use crate::control_speaks::{ControlSpeaks, Downgrade};
use crate::identity::Identity;
use protocol::agent::{EnrollRequest, EnrollResponse};
use protocol::control_identity::{verify_answer, AnswerScope, ControlPublicKey};
use protocol::extensions::{Extension, Extensions, HEADER_EXTENSIONS};
use protocol::signing::{HEADER_AGENT, HEADER_SIGNATURE, HEADER_TIMESTAMP};
use protocol::AgentId;
use rand::RngCore;
use std::time::Duration;

/// Why a call to Control did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// Network failure or a 5xx: try again later, with backoff.
    #[error("Control is unreachable or failing: {0}")]
    Unavailable(String),
    /// 503 or 429 with `Retry-After`: Control is up but cannot serve now (its
    /// database is away, or this address is over its limit). Like
    /// `Unavailable`, but not before the time it asked for.
    #[error("Control cannot serve now ({why}); it asks to come back in {} s", retry_after.as_secs())]
    Busy { why: String, retry_after: Duration },
    /// Control answered and refused (4xx); `code` is its machine slug.
    #[error("Control refused the request ({status}, {code}): {message}")]
    Refused {
        status: u16,
        code: String,
        message: String,
    },
    /// The answer is not signed by the Control key it must be signed by.
    #[error("the answer does not come from the pinned Control: {0}")]
    NotFromControl(protocol::control_identity::AnswerRefusal),
    /// The answer takes back an extension this Agent holds Control to; like
    /// `Unavailable`, the Agent waits and tries again, as it was.
    #[error("{0}")]
    Downgraded(Downgrade),
}

/// A successful answer to a signed request, with the nonce the request
/// carried (Control's signature on the answer covers it).
pub struct SignedAnswer {
    pub response: reqwest::Response,
    pub nonce: String,
    /// The request's path without query.
    pub path: String,
}

/// An accepted enrollment: the Agent ID, and the Control key to pin (none
/// from a Control that signs nothing).
pub struct Enrolled {
    pub agent_id: AgentId,
    pub control_key: Option<ControlPublicKey>,
}

#[derive(Clone)]
pub struct ControlClient {
    http: reqwest::Client,
    config: Config,
    speaks: ControlSpeaks,
}

fn nonce() -> String {
    let mut bytes = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl CallError {
    /// How long Control asked the Agent to stay away, if it did.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            CallError::Busy { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }
}

/// `Retry-After` in seconds (the HTTP-date form is not used by Control),
/// at most a minute so a wrong value cannot park the Agent.
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let secs: u64 = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_secs(secs.clamp(1, 60)))
}

async fn refusal(response: reqwest::Response) -> CallError {
    let status = response.status().as_u16();
    let asked = retry_after(&response).filter(|_| status == 503 || status == 429);
    let body: serde_json::Value = response.json().await.unwrap_or_default();
    let text = |k: &str| body[k].as_str().unwrap_or("").to_string();
    // Throttling, proxy timeouts and a Control whose database is away
    // (503 `database_unavailable`) pass: back off and try again.
    if let Some(retry_after) = asked {
        return CallError::Busy {
            why: format!("{status} {}", text("error")),
            retry_after,
        };
    }
    if status >= 500 || status == 408 || status == 429 {
        return CallError::Unavailable(format!("{status} {}", text("error")));
    }
    CallError::Refused {
        status,
        code: text("code"),
        message: text("error"),
    }
}

impl ControlClient {
    /// A client over rustls with the bundled web roots, plus the PEM roots in
    /// KNOTROUTE_AGENT_CA_FILE when set.
    pub fn new(config: &Config) -> Result<Self, String> {
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("knotroute-agent/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            // A redirect would re-send signed bodies (and the enrollment token) elsewhere.
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(60));
        if let Some(path) = &config.ca_file {
            let pem = std::fs::read(path)
                .map_err(|e| format!("KNOTROUTE_AGENT_CA_FILE {}: {e}", path.display()))?;
            let roots = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
                format!(
                    "KNOTROUTE_AGENT_CA_FILE {} holds no PEM certificate: {e}",
                    path.display()
                )
            })?;
            for root in roots {
                builder = builder.add_root_certificate(root);
            }
        }
        let http = builder.build().map_err(|e| e.to_string())?;
        // A malformed identity file is reported by `enrollment::identity`.
        let stored = crate::identity::load(&config.data).ok().flatten();
        let speaks = ControlSpeaks::new(
            config.data.clone(),
            stored.as_ref(),
            config.control_key.is_some(),
        );
        Ok(Self {
            http,
            config: config.clone(),
            speaks,
        })
    }

    /// What Control announced it speaks.
    pub fn speaks(&self) -> &ControlSpeaks {
        &self.speaks
    }

    /// Whether Control announced `extension`.
    pub fn control_has(&self, extension: Extension) -> bool {
        self.speaks.has(extension)
    }

    /// Takes in the announcement of an answer. A failing answer without
    /// one (a proxy's 502 while Control is away) tells nothing.
    fn heed(&self, response: &reqwest::Response) -> Result<(), CallError> {
        let announced = crate::control_speaks::announcement(response.headers());
        let status = response.status();
        let failing = status.is_server_error()
            || status == reqwest::StatusCode::REQUEST_TIMEOUT
            || status == reqwest::StatusCode::TOO_MANY_REQUESTS;
        if announced.is_none() && failing {
            return Ok(());
        }
        self.speaks
            .observe(announced)
            .map_err(CallError::Downgraded)
    }

    /// Asks Control what it speaks (`GET /healthz`, unauthenticated), as
    /// the Agent does before its first enrollment: the enroll body and the
    /// pinning of Control's key depend on it.
    pub async fn discover(&self) -> Result<Extensions, CallError> {
        let response = self
            .http
            .get(self.config.endpoint("/healthz"))
            .header(HEADER_EXTENSIONS, Extensions::all().header_value())
            .send()
            .await
            .map_err(|e| CallError::Unavailable(e.to_string()))?;
        self.heed(&response)?;
        if response.status().is_server_error() {
            return Err(refusal(response).await);
        }
        Ok(self.speaks.announced())
    }

    /// Enrolls `identity`'s key; Control must answer with the ID the key
    /// derives. With `preset` (KNOTROUTE_AGENT_CONTROL_KEY) the answer must be
    /// signed by that key; otherwise by the key it names, which is then pinned.
    pub async fn enroll(
        &self,
        identity: &Identity,
        token: &str,
        preset: Option<&ControlPublicKey>,
    ) -> Result<Enrolled, CallError> {
        let nonce = if self.speaks.has(Extension::Nonce) {
            nonce()
        } else {
            String::new()
        };
        let request = EnrollRequest {
            name: self.config.name.clone(),
            public_key: identity.key.public_key().to_wire(),
            token: token.to_string(),
            tags: self.config.tags.clone(),
            nonce: Some(nonce.clone()).filter(|n| !n.is_empty()),
        };
        let response = self
            .http
            .post(self.config.endpoint("/api/v1/agents/enroll"))
            .header(HEADER_EXTENSIONS, Extensions::all().header_value())
            .json(&request)
            .send()
            .await
            .map_err(|e| CallError::Unavailable(e.to_string()))?;
        self.heed(&response)?;
        if !response.status().is_success() {
            return Err(refusal(response).await);
        }
        let headers = response.headers().clone();
        let body = response
            .bytes()
            .await
            .map_err(|e| CallError::Unavailable(format!("unreadable answer: {e}")))?;
        let answer: EnrollResponse = serde_json::from_slice(&body)
            .map_err(|e| CallError::Unavailable(format!("unreadable answer: {e}")))?;
        let named = answer
            .control_key
            .as_deref()
            .map(ControlPublicKey::parse)
            .transpose()
            .map_err(|_| {
                CallError::Unavailable("the answer names a malformed Control key".into())
            })?;
        let Some(key) = preset.cloned().or(named) else {
            return Ok(Enrolled {
                agent_id: answer.agent_id,
                control_key: None,
            });
        };
        let signed = AnswerHeaders::of(&headers);
        let scope = AnswerScope {
            path: "/api/v1/agents/enroll",
            agent_id: answer.agent_id.as_str(),
            nonce: &nonce,
        };
        let now = crate::control_pin::now();
        verify_answer(&key, signed.signature, signed.timestamp, now, &scope, &body)
            .map_err(CallError::NotFromControl)?;
        Ok(Enrolled {
            agent_id: answer.agent_id,
            control_key: Some(key),
        })
    }

    /// POSTs `body` (with a fresh `nonce` for a Control that announced
    /// `nonce`) signed with the Agent's key. The signature covers the path
    /// without the query, as PROTOCOL.md says.
    pub async fn signed(
        &self,
        identity: &Identity,
        path_and_query: &str,
        mut body: serde_json::Value,
    ) -> Result<SignedAnswer, CallError> {
        let nonce = if self.speaks.has(Extension::Nonce) {
            let nonce = nonce();
            body["nonce"] = serde_json::Value::String(nonce.clone());
            nonce
        } else {
            String::new()
        };
        let bytes = serde_json::to_vec(&body).expect("JSON serialises");
        let (path, query) = path_and_query
            .split_once('?')
            .map_or((path_and_query, None), |(p, q)| (p, Some(q)));
        let mut url = self.config.endpoint(path);
        url.set_query(query);
        let timestamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
            .to_string();
        let signature = identity.key.sign("POST", url.path(), &timestamp, &bytes);
        let path = url.path().to_string();
        let response = self
            .http
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(HEADER_EXTENSIONS, Extensions::all().header_value())
            .header(HEADER_AGENT, identity.agent_id.as_str())
            .header(HEADER_TIMESTAMP, timestamp)
            .header(HEADER_SIGNATURE, signature)
            .body(bytes)
            .send()
            .await
            .map_err(|e| CallError::Unavailable(e.to_string()))?;
        self.heed(&response)?;
        if response.status().is_success() {
            Ok(SignedAnswer {
                path,
                response,
                nonce,
            })
        } else {
            Err(refusal(response).await)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, retry_after: Option<&str>, body: &str) -> reqwest::Response {
        let mut builder = axum::http::Response::builder().status(status);
        if let Some(v) = retry_after {
            builder = builder.header("retry-after", v);
        }
        reqwest::Response::from(builder.body(body.to_string()).unwrap())
    }

    #[tokio::test]
    async fn a_503_from_a_control_without_its_database_is_a_wait_not_a_refusal() {
        let body = r#"{"error":"Control cannot reach its database right now.","code":"database_unavailable"}"#;
        let e = refusal(answer(503, Some("2"), body)).await;
        assert_eq!(e.retry_after(), Some(Duration::from_secs(2)), "{e}");
        assert!(e.to_string().contains("database"), "{e}");
        let e = refusal(answer(429, Some("30"), "{}")).await;
        assert_eq!(e.retry_after(), Some(Duration::from_secs(30)));
        // Without Retry-After (a proxy's 502/503), or with a useless one: plain backoff.
        for (status, header) in [
            (503, None),
            (502, None),
            (503, Some("soon")),
            (500, Some("5")),
        ] {
            let e = refusal(answer(status, header, "")).await;
            assert!(matches!(e, CallError::Unavailable(_)), "{status}: {e}");
        }
        // A huge value cannot park the Agent for long.
        let e = refusal(answer(503, Some("86400"), "")).await;
        assert_eq!(e.retry_after(), Some(Duration::from_secs(60)));
        let e = refusal(answer(401, Some("2"), r#"{"code":"unauthorized"}"#)).await;
        assert!(matches!(e, CallError::Refused { status: 401, .. }), "{e}");
    }
}
