//! A STAND-IN for the first KnotRoute Control (a version-1 Control), for the
//! Agent's tests: the endpoints of `shared/PROTOCOL.md` and nothing else,
//! written from that text and not from our Control's code.
//!
//! It is as strict as a version-1 Control may be: every body is decoded as
//! Go's `DisallowUnknownFields` does, so one unknown field (top level or in
//! a heartbeat component) is a 400 naming it (`json: unknown field
//! "nonce"`), and so is an unknown query parameter. It announces no
//! extensions, signs no answers, accepts a replay inside the 180 s window
//! (as version 1 does), and leases a job for ten minutes.

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use ed25519_dalek::{Signature, VerifyingKey};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Version 1's job lease.
pub const LEASE_SECS: i64 = 600;
/// Version 1's clock window for signed requests.
pub const WINDOW_SECS: i64 = 180;
const BODY_MAX: usize = 1024 * 1024;

const ENROLL_FIELDS: &[&str] = &["name", "public_key", "token", "tags"];
const HEARTBEAT_FIELDS: &[&str] = &[
    "name",
    "hostname",
    "version",
    "docker_available",
    "docker_version",
    "tags",
    "components",
];
const COMPONENT_FIELDS: &[&str] = &[
    "id",
    "kind",
    "name",
    "container",
    "image",
    "status",
    "version",
    "address",
    "service",
    "target",
    "labels",
];
const RESULT_FIELDS: &[&str] = &["job_id", "status", "result"];

/// A job as this stand-in keeps it.
#[derive(Clone, Debug)]
pub struct V1Job {
    pub id: String,
    pub agent_id: String,
    pub kind: String,
    pub payload: Value,
    /// `pending`, `running`, `succeeded`, `failed` or `expired`.
    pub status: String,
    pub result: String,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub lease_until: Option<i64>,
}

/// An enrolled Agent, with what it last reported.
#[derive(Clone, Debug, Default)]
pub struct V1Agent {
    pub public_key: String,
    pub name: String,
    pub tags: Vec<String>,
    pub enrollments: usize,
    pub heartbeats: usize,
    pub last_heartbeat: Option<Value>,
}

#[derive(Default)]
struct Store {
    token: String,
    agents: BTreeMap<String, V1Agent>,
    jobs: Vec<V1Job>,
    /// Every 4xx answer, as `METHOD path: status body`.
    refusals: Vec<String>,
    /// Every request, as `METHOD path?query`.
    requests: Vec<String>,
}

/// The stand-in, serving on a loopback port until dropped.
pub struct V1Control {
    pub base: String,
    store: Arc<Mutex<Store>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for V1Control {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Shared = Arc<Mutex<Store>>;

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

fn rfc3339(unix: i64) -> String {
    chrono::DateTime::from_timestamp(unix, 0)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

fn base32(bytes: &[u8]) -> String {
    data_encoding::BASE32_NOPAD
        .encode(bytes)
        .to_ascii_lowercase()
}

/// `ka_` + base32 of the first 20 bytes of SHA-256("knotroute/agent/v1|" ‖ key).
pub fn agent_id_of(public_key: &[u8; 32]) -> String {
    let digest = Sha256::new()
        .chain_update(b"knotroute/agent/v1|")
        .chain_update(public_key)
        .finalize();
    format!("ka_{}", base32(&digest[..20]))
}

fn decode_base64(text: &str) -> Option<Vec<u8>> {
    data_encoding::BASE64_NOPAD.decode(text.as_bytes()).ok()
}

/// An error answer as version 1 gives it: `{"error": text}`.
struct Refused(StatusCode, String);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        (self.0, Json(json!({"error": self.1}))).into_response()
    }
}

fn error(status: StatusCode, text: impl Into<String>) -> Refused {
    Refused(status, text.into())
}

type Answer = Result<Response, Refused>;

/// Decodes `body` as a JSON object with only `allowed` fields, the way Go's
/// `DisallowUnknownFields` does: the first unknown field is named.
fn strict_object(body: &[u8], allowed: &[&str]) -> Result<Map<String, Value>, Refused> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| error(StatusCode::BAD_REQUEST, format!("json: {e}")))?;
    let Value::Object(fields) = value else {
        return Err(error(
            StatusCode::BAD_REQUEST,
            "json: cannot unmarshal into an object",
        ));
    };
    known_fields(&fields, allowed)?;
    Ok(fields)
}

fn known_fields(fields: &Map<String, Value>, allowed: &[&str]) -> Result<(), Refused> {
    match fields.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(unknown) => Err(error(
            StatusCode::BAD_REQUEST,
            format!("json: unknown field \"{unknown}\""),
        )),
        None => Ok(()),
    }
}

fn text<'a>(fields: &'a Map<String, Value>, name: &str) -> Result<&'a str, Refused> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(""),
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(error(
            StatusCode::BAD_REQUEST,
            format!("json: cannot unmarshal into field {name} of type string"),
        )),
    }
}

/// No query parameter is part of version 1.
fn no_query(query: &Option<String>) -> Result<(), Refused> {
    match query.as_deref().filter(|q| !q.is_empty()) {
        Some(q) => {
            let name = q.split(['=', '&']).next().unwrap_or(q);
            Err(error(
                StatusCode::BAD_REQUEST,
                format!("unknown query parameter \"{name}\""),
            ))
        }
        None => Ok(()),
    }
}

impl V1Control {
    /// Starts it on a free loopback port, accepting `enroll_token`.
    pub async fn start(enroll_token: &str) -> Self {
        let store: Shared = Arc::new(Mutex::new(Store {
            token: enroll_token.to_string(),
            ..Store::default()
        }));
        let app = Router::new()
            .route("/healthz", get(healthz))
            .route("/api/v1/agents/enroll", post(enroll))
            .route("/api/v1/agents/heartbeat", post(heartbeat))
            .route("/api/v1/agents/jobs/next", post(next_job))
            .route("/api/v1/agents/jobs/result", post(job_result))
            .fallback(|| async { (StatusCode::NOT_FOUND, "404 page not found\n").into_response() })
            .layer(axum::middleware::from_fn_with_state(store.clone(), record))
            .layer(axum::extract::DefaultBodyLimit::max(BODY_MAX))
            .with_state(store.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let base = format!("http://{}", listener.local_addr().expect("bound"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { base, store, task }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store.lock().expect("not poisoned")
    }

    /// Queues a job for `agent_id`, as an admin of the first Control does; its ID.
    pub fn queue(&self, agent_id: &str, kind: &str, payload: Value) -> String {
        let id = format!("job_{}", base32(&rand::random::<[u8; 16]>()));
        self.lock().jobs.push(V1Job {
            id: id.clone(),
            agent_id: agent_id.to_string(),
            kind: kind.to_string(),
            payload,
            status: "pending".into(),
            result: String::new(),
            created_at: now(),
            started_at: None,
            lease_until: None,
        });
        id
    }

    /// Knows `public_key` (base64) as an enrolled Agent, as a Control that
    /// enrolled it before would; its Agent ID.
    pub fn know(&self, public_key: &str) -> String {
        let raw: [u8; 32] = decode_base64(public_key)
            .and_then(|b| b.try_into().ok())
            .expect("a 32-byte key in base64");
        let agent_id = agent_id_of(&raw);
        self.lock().agents.insert(
            agent_id.clone(),
            V1Agent {
                public_key: public_key.to_string(),
                enrollments: 1,
                ..V1Agent::default()
            },
        );
        agent_id
    }

    pub fn job(&self, id: &str) -> Option<V1Job> {
        self.lock().jobs.iter().find(|j| j.id == id).cloned()
    }

    pub fn agents(&self) -> BTreeMap<String, V1Agent> {
        self.lock().agents.clone()
    }

    /// Every 4xx it answered, as `METHOD path: status body`.
    pub fn refusals(&self) -> Vec<String> {
        self.lock().refusals.clone()
    }

    /// Every request it saw, as `METHOD path?query`.
    pub fn requests(&self) -> Vec<String> {
        self.lock().requests.clone()
    }
}

/// Keeps the request line and every refusal, for the tests to read.
async fn record(
    State(store): State<Shared>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let line = format!(
        "{} {}",
        request.method(),
        request.uri().path_and_query().map_or("", |p| p.as_str())
    );
    let response = next.run(request).await;
    let status = response.status();
    if !status.is_client_error() {
        store.lock().expect("not poisoned").requests.push(line);
        return response;
    }
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, BODY_MAX)
        .await
        .unwrap_or_default();
    {
        let mut store = store.lock().expect("not poisoned");
        store.refusals.push(format!(
            "{line}: {} {}",
            status.as_u16(),
            String::from_utf8_lossy(&bytes)
        ));
        store.requests.push(line);
    }
    Response::from_parts(parts, axum::body::Body::from(bytes))
}

async fn healthz() -> Json<Value> {
    Json(json!({"ok": true, "version": "1.0.0"}))
}

async fn enroll(State(store): State<Shared>, RawQuery(query): RawQuery, body: Bytes) -> Answer {
    no_query(&query)?;
    let fields = strict_object(&body, ENROLL_FIELDS)?;
    let (name, key, token) = (
        text(&fields, "name")?.to_string(),
        text(&fields, "public_key")?.to_string(),
        text(&fields, "token")?.to_string(),
    );
    let tags: Vec<String> = match fields.get("tags") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|_| {
            error(
                StatusCode::BAD_REQUEST,
                "json: cannot unmarshal into field tags of type []string",
            )
        })?,
    };
    let mut store = store.lock().expect("not poisoned");
    if token.is_empty() || token != store.token {
        return Err(error(StatusCode::UNAUTHORIZED, "invalid enrollment token"));
    }
    let raw = decode_base64(&key)
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .filter(|raw| VerifyingKey::from_bytes(raw).is_ok())
        .ok_or_else(|| error(StatusCode::BAD_REQUEST, "invalid public_key"))?;
    let agent_id = agent_id_of(&raw);
    let agent = store.agents.entry(agent_id.clone()).or_default();
    agent.public_key = key;
    agent.name = name;
    agent.tags = tags;
    agent.enrollments += 1;
    Ok((StatusCode::CREATED, Json(json!({"agent_id": agent_id}))).into_response())
}

/// Checks the signature headers of a request to `path` against the pinned
/// key; the Agent ID. Replays inside the window pass, as in version 1.
fn authenticate(
    store: &Store,
    headers: &HeaderMap,
    path: &str,
    body: &[u8],
) -> Result<String, Refused> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    };
    let unauthorized = |why: &str| error(StatusCode::UNAUTHORIZED, why);
    let agent_id = header("X-Knot-Agent");
    let timestamp = header("X-Knot-Timestamp");
    let Some(agent) = store.agents.get(agent_id) else {
        return Err(unauthorized("unknown agent"));
    };
    let Ok(ts) = timestamp.parse::<i64>() else {
        return Err(unauthorized("bad timestamp"));
    };
    if (ts - now()).abs() > WINDOW_SECS {
        return Err(unauthorized("timestamp outside the window"));
    }
    let message = format!(
        "knotroute/ops-request/v1\nPOST\n{path}\n{timestamp}\n{}",
        data_encoding::HEXLOWER.encode(&Sha256::digest(body))
    );
    let key = decode_base64(&agent.public_key)
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .and_then(|b| VerifyingKey::from_bytes(&b).ok());
    let signature = decode_base64(header("X-Knot-Signature"))
        .and_then(|b| <[u8; 64]>::try_from(b).ok())
        .map(|b| Signature::from_bytes(&b));
    match (key, signature) {
        (Some(key), Some(signature))
            if key.verify_strict(message.as_bytes(), &signature).is_ok() =>
        {
            Ok(agent_id.to_string())
        }
        _ => Err(unauthorized("bad signature")),
    }
}

/// What every signed version-1 request goes through, in its order: the
/// signature, no query parameter, then the body with only `allowed` fields.
/// The Agent ID and the body's fields.
fn signed_request(
    store: &Store,
    headers: &HeaderMap,
    path: &str,
    query: &Option<String>,
    body: &[u8],
    allowed: &[&str],
) -> Result<(String, Map<String, Value>), Refused> {
    let agent_id = authenticate(store, headers, path, body)?;
    no_query(query)?;
    Ok((agent_id, strict_object(body, allowed)?))
}

async fn heartbeat(
    State(store): State<Shared>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Answer {
    let mut store = store.lock().expect("not poisoned");
    let (agent_id, fields) = signed_request(
        &store,
        &headers,
        "/api/v1/agents/heartbeat",
        &query,
        &body,
        HEARTBEAT_FIELDS,
    )?;
    if let Some(components) = fields.get("components").and_then(Value::as_array) {
        for component in components {
            let c = component.as_object().ok_or_else(|| {
                error(
                    StatusCode::BAD_REQUEST,
                    "json: a component is not an object",
                )
            })?;
            known_fields(c, COMPONENT_FIELDS)?;
        }
    }
    let agent = store.agents.get_mut(&agent_id).expect("authenticated");
    agent.heartbeats += 1;
    agent.last_heartbeat = Some(Value::Object(fields));
    Ok(Json(json!({"ok": true})).into_response())
}

async fn next_job(
    State(store): State<Shared>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Answer {
    let mut store = store.lock().expect("not poisoned");
    let (agent_id, _) = signed_request(
        &store,
        &headers,
        "/api/v1/agents/jobs/next",
        &query,
        &body,
        &[],
    )?;
    let now = now();
    for job in store.jobs.iter_mut() {
        if job.status == "running" && job.lease_until.is_some_and(|until| until <= now) {
            job.status = "expired".into();
        }
    }
    let Some(job) = store
        .jobs
        .iter_mut()
        .find(|j| j.agent_id == agent_id && j.status == "pending")
    else {
        return Ok(StatusCode::NO_CONTENT.into_response());
    };
    job.status = "running".into();
    job.started_at = Some(now);
    job.lease_until = Some(now + LEASE_SECS);
    Ok(Json(json!({
        "id": job.id, "agent_id": job.agent_id, "kind": job.kind, "payload": job.payload,
        "status": "running", "created_at": rfc3339(job.created_at), "started_at": rfc3339(now),
    }))
    .into_response())
}

async fn job_result(
    State(store): State<Shared>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Answer {
    let mut store = store.lock().expect("not poisoned");
    let (agent_id, fields) = signed_request(
        &store,
        &headers,
        "/api/v1/agents/jobs/result",
        &query,
        &body,
        RESULT_FIELDS,
    )?;
    let job_id = text(&fields, "job_id")?;
    let status = text(&fields, "status")?;
    let result = text(&fields, "result")?;
    if status != "succeeded" && status != "failed" {
        return Err(error(
            StatusCode::BAD_REQUEST,
            format!("invalid status \"{status}\""),
        ));
    }
    let job = store
        .jobs
        .iter_mut()
        .find(|j| j.id == job_id && j.agent_id == agent_id)
        .ok_or_else(|| error(StatusCode::NOT_FOUND, "job not found"))?;
    if job.status == "running" {
        job.status = status.to_string();
        job.result = result.to_string();
    }
    Ok(Json(json!({"ok": true})).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signer, SigningKey};

    struct Agent {
        key: SigningKey,
        id: String,
        http: reqwest::Client,
    }

    impl Agent {
        fn new(seed: u8) -> Self {
            let key = SigningKey::from_bytes(&[seed; 32]);
            let id = agent_id_of(key.verifying_key().as_bytes());
            Self {
                key,
                id,
                http: reqwest::Client::new(),
            }
        }

        fn enroll_body(&self, token: &str) -> Value {
            json!({"name": "host", "tags": ["lab"], "token": token,
                "public_key": data_encoding::BASE64_NOPAD.encode(self.key.verifying_key().as_bytes())})
        }

        async fn post(&self, control: &V1Control, path: &str, body: &Value) -> (u16, String) {
            let bytes = serde_json::to_vec(body).unwrap();
            let ts = now().to_string();
            let message = format!(
                "knotroute/ops-request/v1\nPOST\n{}\n{ts}\n{}",
                path.split('?').next().unwrap(),
                data_encoding::HEXLOWER.encode(&Sha256::digest(&bytes))
            );
            let signature =
                data_encoding::BASE64_NOPAD.encode(&self.key.sign(message.as_bytes()).to_bytes());
            let r = self
                .http
                .post(format!("{}{path}", control.base))
                .header("content-type", "application/json")
                .header("X-Knot-Agent", &self.id)
                .header("X-Knot-Timestamp", ts)
                .header("X-Knot-Signature", signature)
                .body(bytes)
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        }
    }

    async fn enrolled(control: &V1Control, seed: u8) -> Agent {
        let agent = Agent::new(seed);
        let r = agent
            .http
            .post(format!("{}/api/v1/agents/enroll", control.base))
            .json(&agent.enroll_body("t0ken"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        let answer: Value = r.json().await.unwrap();
        assert_eq!(answer, json!({"agent_id": agent.id}));
        agent
    }

    #[tokio::test]
    async fn one_unknown_field_anywhere_is_a_400_that_names_it() {
        let control = V1Control::start("t0ken").await;
        let agent = Agent::new(1);
        // Enrollment, as the first Control answers our Agent's nonce.
        let mut body = agent.enroll_body("t0ken");
        body["nonce"] = json!("00");
        let r = agent
            .http
            .post(format!("{}/api/v1/agents/enroll", control.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
        let answer: Value = r.json().await.unwrap();
        assert_eq!(answer, json!({"error": "json: unknown field \"nonce\""}));
        assert!(control.agents().is_empty(), "nothing enrolled");

        let agent = enrolled(&control, 2).await;
        let heartbeat = json!({"name": "host", "hostname": "h", "version": "1", "docker_available": false,
            "docker_version": "", "tags": [], "components": [{"id": "sidecar-web", "kind": "sidecar",
            "name": "web", "container": "c", "image": "i", "status": "running", "version": "1",
            "address": "", "service": "", "target": "app:80", "labels": {}}]});
        let mut cases = Vec::new();
        for (field, value) in [
            ("nonce", json!("00")),
            ("control_key", json!("k")),
            ("refused_answers", json!([])),
        ] {
            let mut body = heartbeat.clone();
            body[field] = value;
            cases.push(("/api/v1/agents/heartbeat", body, field));
        }
        let mut with_health = heartbeat.clone();
        with_health["components"][0]["restart_count"] = json!(0);
        cases.push(("/api/v1/agents/heartbeat", with_health, "restart_count"));
        cases.push((
            "/api/v1/agents/jobs/next",
            json!({"progress": true}),
            "progress",
        ));
        cases.push(("/api/v1/agents/jobs/next", json!({"nonce": "00"}), "nonce"));
        let id = control.queue(
            &agent.id,
            "restart_component",
            json!({"component_id": "sidecar-web"}),
        );
        for field in ["nonce", "backup", "probe", "restart"] {
            let mut body = json!({"job_id": id, "status": "succeeded", "result": ""});
            body[field] = json!({});
            cases.push(("/api/v1/agents/jobs/result", body, field));
        }
        for (path, body, field) in cases {
            let (status, text) = agent.post(&control, path, &body).await;
            assert_eq!(status, 400, "{path} with {field}: {text}");
            let answer: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                answer["error"],
                format!("json: unknown field \"{field}\""),
                "{path}"
            );
        }
        // The long-poll parameter is not version 1 either.
        let (status, text) = agent
            .post(&control, "/api/v1/agents/jobs/next?wait=5", &json!({}))
            .await;
        assert_eq!(status, 400, "{text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["error"], "unknown query parameter \"wait\"");
        // The same bodies without the extra field pass.
        assert_eq!(
            agent
                .post(&control, "/api/v1/agents/heartbeat", &heartbeat)
                .await
                .0,
            200
        );
        assert_eq!(
            control.job(&id).unwrap().status,
            "pending",
            "no refused request took it"
        );
    }

    #[tokio::test]
    async fn version_one_jobs_leases_and_replays() {
        let control = V1Control::start("t0ken").await;
        let agent = enrolled(&control, 3).await;
        // The same key enrolls again into the same Agent.
        enrolled(&control, 3).await;
        assert_eq!(control.agents()[&agent.id].enrollments, 2);
        let other = enrolled(&control, 4).await;
        assert_eq!(
            agent
                .post(&control, "/api/v1/agents/jobs/next", &json!({}))
                .await
                .0,
            204
        );
        let id = control.queue(
            &agent.id,
            "restart_component",
            json!({"component_id": "sidecar-web"}),
        );
        let (status, text) = agent
            .post(&control, "/api/v1/agents/jobs/next", &json!({}))
            .await;
        assert_eq!(status, 200, "{text}");
        let job: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(job["id"], id.as_str());
        assert_eq!(job["status"], "running");
        let taken = control.job(&id).unwrap();
        assert_eq!(
            taken.lease_until.unwrap() - taken.started_at.unwrap(),
            LEASE_SECS
        );
        // Another Agent's result for it is a 404.
        let result = json!({"job_id": id, "status": "succeeded", "result": "done"});
        assert_eq!(
            other
                .post(&control, "/api/v1/agents/jobs/result", &result)
                .await
                .0,
            404
        );
        assert_eq!(
            agent
                .post(&control, "/api/v1/agents/jobs/result", &result)
                .await
                .0,
            200
        );
        assert_eq!(control.job(&id).unwrap().status, "succeeded");
        // `cancelled` is not a version-1 status.
        let bad = json!({"job_id": id, "status": "cancelled", "result": ""});
        assert_eq!(
            agent
                .post(&control, "/api/v1/agents/jobs/result", &bad)
                .await
                .0,
            400
        );
        // An identical signed request inside the window is accepted again.
        let beat = json!({"name": "host"});
        assert_eq!(
            agent
                .post(&control, "/api/v1/agents/heartbeat", &beat)
                .await
                .0,
            200
        );
        assert_eq!(
            agent
                .post(&control, "/api/v1/agents/heartbeat", &beat)
                .await
                .0,
            200
        );
        // It announces nothing.
        let r = reqwest::get(format!("{}/healthz", control.base))
            .await
            .unwrap();
        assert!(r.headers().get("x-knot-extensions").is_none());
        assert!(
            control.refusals().iter().all(|r| !r.contains("heartbeat")),
            "{:?}",
            control.refusals()
        );
    }
}
