//! A captured signed request sent again under another spelling of its
//! headers (padding, spaces, the URL-safe alphabet, leading zeros, letter
//! case) is still the same request: refused. Sent over a raw TCP stream, so
//! no HTTP client tidies the headers first.

mod common;

use serde_json::{json, Value};

/// Sends one HTTP/1.1 request exactly as written; returns status and body.
async fn raw_post(
    c: &common::Control,
    path: &str,
    headers: &[(&str, String)],
    body: &[u8],
) -> (u16, String) {
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n",
        c.addr,
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    let mut request = request.into_bytes();
    request.extend_from_slice(body);
    let answer = common::raw_http(c.addr, &request).await;
    (answer.status, answer.body)
}

/// One captured request: its path, body and the three signature headers.
struct Captured {
    path: &'static str,
    body: Vec<u8>,
    agent: String,
    timestamp: String,
    signature: String,
}

impl Captured {
    /// A request signed by `a`, with a nonce chosen so that its signature
    /// holds a `+` or `/` (then the URL-safe spelling differs from it).
    fn new(a: &common::SimAgent, path: &'static str, body: Value) -> Self {
        let timestamp = chrono::Utc::now().timestamp().to_string();
        for n in 0.. {
            let mut body = body.clone();
            body["nonce"] = json!(format!("capture-{n}"));
            let body = serde_json::to_vec(&body).unwrap();
            let signature = a.key.sign("POST", path, &timestamp, &body);
            if signature.contains(['+', '/']) {
                return Captured {
                    path,
                    body,
                    agent: a.id(),
                    timestamp,
                    signature,
                };
            }
        }
        unreachable!()
    }

    async fn send(&self, c: &common::Control, agent: &str, ts: &str, sig: &str) -> (u16, String) {
        let headers = [
            ("X-Knot-Agent", agent.to_string()),
            ("X-Knot-Timestamp", ts.to_string()),
            ("X-Knot-Signature", sig.to_string()),
        ];
        raw_post(c, self.path, &headers, &self.body).await
    }

    /// Every other spelling of the same three header values.
    fn respellings(&self) -> Vec<(&'static str, String, String, String)> {
        let (a, t, s) = (&self.agent, &self.timestamp, &self.signature);
        let url_safe = s.replace('+', "-").replace('/', "_");
        // The last character carries four spare bits; a lax decoder ignores them.
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let last = alphabet.find(s.chars().last().unwrap()).unwrap();
        let spare_bits = format!(
            "{}{}",
            &s[..s.len() - 1],
            alphabet.as_bytes()[last | 1] as char
        );
        let signatures = [
            ("signature with =", format!("{s}=")),
            ("signature with ==", format!("{s}==")),
            ("signature with a leading space", format!(" {s}")),
            ("signature with a trailing space", format!("{s} ")),
            ("signature with tabs", format!("\t{s}\t")),
            ("signature, URL-safe alphabet", url_safe),
            ("signature with spare bits set", spare_bits),
            ("the request itself", s.clone()),
        ];
        let timestamps = [
            ("timestamp with a leading zero", format!("0{t}")),
            ("timestamp with +", format!("+{t}")),
            ("timestamp with spaces", format!(" {t} ")),
        ];
        let agents = [
            ("Agent ID in upper case", a.to_ascii_uppercase()),
            ("Agent ID with KA_", format!("KA_{}", &a[3..])),
            ("Agent ID with spaces", format!(" {a} ")),
        ];
        let mut all = Vec::new();
        for (what, sig) in signatures {
            all.push((what, a.clone(), t.clone(), sig));
        }
        for (what, ts) in timestamps {
            all.push((what, a.clone(), ts, s.clone()));
        }
        for (what, agent) in agents {
            all.push((what, agent, t.clone(), s.clone()));
        }
        all
    }

    /// Sends every respelling; each must be refused as unauthorised or a replay.
    async fn replays_are_refused(&self, c: &common::Control) {
        for (what, agent, ts, sig) in self.respellings() {
            let (status, body) = self.send(c, &agent, &ts, &sig).await;
            assert_eq!(status, 401, "{what} ({}): {body}", self.path);
            let code = serde_json::from_str::<Value>(&body).unwrap()["code"].clone();
            assert!(
                code == "replayed" || code == "unauthorized",
                "{what}: {body}"
            );
        }
    }
}

on_both_databases!(
    a_seen_request_is_refused_under_every_other_spelling,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let a = common::SimAgent::with_docker(&c, 61).await;

        // The Agent asks for work while there is none; someone captures it.
        let next = Captured::new(&a, "/api/v1/agents/jobs/next", json!({}));
        let (status, body) = next
            .send(&c, &next.agent, &next.timestamp, &next.signature)
            .await;
        assert_eq!(status, 204, "{body}");
        let job = json!({"agent_id": a.id(), "kind": "restart_component",
            "payload": {"component_id": "sidecar-web"}});
        let r = c.post_json("/api/v1/jobs", job).await;
        assert_eq!(r.status(), 201);
        let queued: Value = r.json().await.unwrap();
        // Replaying it in any spelling does not hand the job to the replayer…
        next.replays_are_refused(&c).await;
        // …so the real Agent still gets it.
        let claimed = a.claim().await.expect("the job waits for its Agent");
        assert_eq!(claimed["id"], queued["id"]);

        // Heartbeats take another path on PostgreSQL; the same holds there.
        let beat = Captured::new(
            &a,
            "/api/v1/agents/heartbeat",
            json!({"name": "docker-host", "docker_available": true}),
        );
        let (status, body) = beat
            .send(&c, &beat.agent, &beat.timestamp, &beat.signature)
            .await;
        assert_eq!(status, 200, "{body}");
        beat.replays_are_refused(&c).await;
    }
);
