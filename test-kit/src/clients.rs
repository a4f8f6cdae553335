//! The clients tests drive Control with: a simulated Agent that speaks the
//! signed protocol of PROTOCOL.md over real HTTP, and the admin's browser-like
//! client. One of each for the server's tests, the browser tests and the
//! examples, so a change to the protocol or the sign-in is made once.

use protocol::extensions::{Extensions, HEADER_EXTENSIONS};
use protocol::signing::{AgentKey, HEADER_AGENT, HEADER_SIGNATURE, HEADER_TIMESTAMP};
use reqwest::header::{HeaderMap, HeaderValue, ORIGIN};
use serde_json::{json, Value};

/// A client as a browser on Control's page is: it keeps cookies, sends
/// Control's Origin (the same-origin check wants it on writes) and follows no
/// redirects, so a test sees them.
pub fn browser_like_client(base: &str) -> reqwest::Client {
    let mut headers = HeaderMap::new();
    headers.insert(
        ORIGIN,
        HeaderValue::from_str(base).expect("a URL is a header value"),
    );
    reqwest::Client::builder()
        .cookie_store(true)
        .default_headers(headers)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

/// A browser-like client signed in as the admin, as a script would be.
pub async fn signed_in_admin(base: &str, password: &str) -> reqwest::Client {
    let admin = AdminClient::new(base, password);
    admin.sign_in().await;
    admin.client
}

/// The admin's session with one Control: its URL and a browser-like client
/// that keeps the session cookie once [`AdminClient::sign_in`] has run.
pub struct AdminClient {
    pub base: String,
    pub client: reqwest::Client,
    password: String,
}

impl AdminClient {
    /// Not signed in yet.
    pub fn new(base: &str, password: &str) -> Self {
        Self {
            base: base.to_string(),
            client: browser_like_client(base),
            password: password.to_string(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Signs in with the admin password and expects it accepted.
    pub async fn sign_in(&self) {
        let r = self
            .client
            .post(self.url("/api/v1/session"))
            .json(&json!({"password": self.password}))
            .send()
            .await
            .expect("sign-in request");
        assert_eq!(r.status(), 200, "sign-in with the right password");
    }

    /// GET with the session's cookies.
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.expect("GET")
    }

    /// POST without a body: an action such as cancel or retry.
    pub async fn post_empty(&self, path: &str) -> reqwest::Response {
        self.client.post(self.url(path)).send().await.expect("POST")
    }

    pub async fn delete(&self, path: &str) -> reqwest::Response {
        self.client
            .delete(self.url(path))
            .send()
            .await
            .expect("DELETE")
    }

    /// A screen's server-rendered HTML, as a browser asking for `language`
    /// (an `Accept-Language` value) receives it.
    pub async fn page_in(&self, path: &str, language: &str) -> String {
        self.client
            .get(self.url(path))
            .header("accept-language", language)
            .send()
            .await
            .expect("GET page")
            .text()
            .await
            .expect("page text")
    }

    /// GET with the session's cookies, parsed as JSON.
    pub async fn get_json<T: serde::de::DeserializeOwned>(&self, path: &str) -> T {
        self.get(path).await.json().await.expect("JSON answer")
    }

    /// POSTs JSON as the signed-in browser does.
    pub async fn post_json(&self, path: &str, body: Value) -> reqwest::Response {
        self.client
            .post(self.url(path))
            .json(&body)
            .send()
            .await
            .expect("POST")
    }
}

/// The owner's signed-in session at the Control at `base`, one per Control
/// for the whole test process (`fresh`: sign in again): the helpers that
/// approve Agents share it, since sign-ins made at the same moment count
/// against the account's budget until they succeed.
async fn owner_session(base: &str, password: &str, fresh: bool) -> std::sync::Arc<AdminClient> {
    use std::collections::HashMap;
    use std::sync::{Arc, OnceLock};
    type Sessions = tokio::sync::Mutex<HashMap<String, Arc<AdminClient>>>;
    static SESSIONS: OnceLock<Sessions> = OnceLock::new();
    let mut sessions = SESSIONS.get_or_init(Default::default).lock().await;
    if let Some(kept) = sessions.get(base).filter(|_| !fresh) {
        return kept.clone();
    }
    let owner = Arc::new(AdminClient::new(base, password));
    owner.sign_in().await;
    sessions.insert(base.to_string(), owner.clone());
    owner
}

/// A POST of `body` to `base` + `path`, signed by `key` as PROTOCOL.md says:
/// over the method, the path without its query, the timestamp (now, or
/// `skew` seconds off) and the exact body bytes. The caller sets Content-Type.
pub fn signed_post(
    client: &reqwest::Client,
    base: &str,
    key: &AgentKey,
    path: &str,
    body: &[u8],
    skew: i64,
) -> reqwest::RequestBuilder {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs() as i64;
    let timestamp = (now + skew).to_string();
    let signed_path = path.split('?').next().unwrap_or(path);
    let signature = key.sign("POST", signed_path, &timestamp, body);
    client
        .post(format!("{base}{path}"))
        // Speaks every extension, as our Agent does.
        .header(HEADER_EXTENSIONS, Extensions::all().header_value())
        .header(HEADER_AGENT, key.public_key().agent_id().to_string())
        .header(HEADER_TIMESTAMP, timestamp)
        .header(HEADER_SIGNATURE, signature)
        .body(body.to_vec())
}

/// The shared enrollment token every Control under test is started with
/// (`KNOTROUTE_CONTROL_ENROLL_TOKEN`).
pub const TEST_ENROLL_TOKEN: &str = "enroll-token-for-tests-0001";

/// A Control under test, as the simulated Agent needs to know it.
pub trait TestControl {
    /// `http://127.0.0.1:<port>`.
    fn base_url(&self) -> &str;
    /// The break-glass owner's password (`KNOTROUTE_CONTROL_ADMIN_PASSWORD`),
    /// with which the helpers approve the Agents they enroll.
    fn admin_password(&self) -> &str;
}

/// An Agent as the protocol sees it: an Ed25519 key, and signed POSTs.
pub struct SimAgent {
    pub key: AgentKey,
    pub client: reqwest::Client,
    pub base: String,
    /// The name it enrolls and reports under.
    name: String,
    /// The owner's password at its Control, with which the helpers that
    /// enroll it with the shared token approve it (such an Agent waits for
    /// an admin's approval); `None` when it was made without its Control.
    owner_password: Option<String>,
}

impl SimAgent {
    /// An Agent of `control`, its key made from `seed` (so tests can have
    /// several, and the same one again after a restart).
    pub fn new(control: &impl TestControl, seed: u8) -> Self {
        Self {
            owner_password: Some(control.admin_password().to_string()),
            ..Self::at(control.base_url(), seed)
        }
    }

    /// The same for the Control (or replica) at `base`.
    pub fn at(base: &str, seed: u8) -> Self {
        Self::with_key(
            base,
            AgentKey::from_seed([seed; 32]),
            reqwest::Client::new(),
        )
    }

    /// An Agent with its own key and HTTP client (load tests share one).
    pub fn with_key(base: &str, key: AgentKey, client: reqwest::Client) -> Self {
        Self {
            key,
            client,
            base: base.to_string(),
            name: "docker-host".to_string(),
            owner_password: None,
        }
    }

    /// Enrolled under `name` with the shared enrollment token, approved by
    /// the owner, and one heartbeat sent saying Docker is available: an
    /// Agent that takes jobs.
    pub async fn enrolled(control: &impl TestControl, seed: u8, name: &str) -> Self {
        let mut agent = Self::new(control, seed);
        agent.name = name.to_string();
        assert_eq!(
            agent.enroll(TEST_ENROLL_TOKEN, name).await.status(),
            201,
            "enroll"
        );
        agent.approve().await;
        agent.report_components(json!([])).await;
        agent
    }

    /// Approves this Agent as the owner does (Infrastructure → Agents →
    /// Approve): enrolled with the shared token, it waits for approval. One
    /// that does not wait (approval turned off, or approved already) is left
    /// as it is.
    pub async fn approve(&self) {
        let password = self
            .owner_password
            .as_deref()
            .expect("an Agent made with SimAgent::new knows its Control's owner password");
        let path = format!("/api/v1/agents/{}/approve", self.id());
        let mut r = owner_session(&self.base, password, false)
            .await
            .post_empty(&path)
            .await;
        if r.status() == reqwest::StatusCode::UNAUTHORIZED {
            // The kept session ended (signed out, or the Control restored).
            r = owner_session(&self.base, password, true)
                .await
                .post_empty(&path)
                .await;
        }
        let status = r.status().as_u16();
        let body = r.text().await.unwrap_or_default();
        assert!(
            status == 200 || (status == 409 && body.contains("agent_not_pending")),
            "approving {}: {status} {body}",
            self.id()
        );
    }

    /// A full heartbeat (Docker available) reporting these components.
    pub async fn report_components(&self, components: Value) {
        self.report(
            json!({"name": self.name, "hostname": self.name, "version": "1.0.0",
            "docker_available": true, "docker_version": "28.2.2/28.2.2", "tags": [],
            "components": components}),
        )
        .await;
    }

    pub fn id(&self) -> String {
        self.key.public_key().agent_id().to_string()
    }

    /// `POST /api/v1/agents/enroll` (unsigned: the token authenticates it).
    pub async fn enroll(&self, token: &str, name: &str) -> reqwest::Response {
        self.client
            .post(format!("{}/api/v1/agents/enroll", self.base))
            .header(HEADER_EXTENSIONS, Extensions::all().header_value())
            .json(
                &json!({"name": name, "public_key": self.key.public_key().to_wire(),
                "token": token, "tags": ["lab"]}),
            )
            .send()
            .await
            .expect("enroll request")
    }

    /// Enrolls with the shared enrollment token, is approved by the owner,
    /// and sends one heartbeat saying Docker is available.
    pub async fn enroll_with_docker(&self) {
        assert_eq!(
            self.enroll(TEST_ENROLL_TOKEN, &self.name).await.status(),
            201
        );
        self.approve().await;
        self.report(json!({"name": self.name, "docker_available": true}))
            .await;
    }

    /// A new Agent (`seed` picks its key) enrolled with Docker available.
    pub async fn with_docker(control: &impl TestControl, seed: u8) -> Self {
        let agent = Self::new(control, seed);
        agent.enroll_with_docker().await;
        agent
    }

    /// A new Agent with Docker on host `name`, reporting these components
    /// in its heartbeat.
    pub async fn on_host(
        control: &impl TestControl,
        seed: u8,
        name: &str,
        components: Value,
    ) -> Self {
        let agent = Self::with_docker(control, seed).await;
        let r = agent
            .post(
                "/api/v1/agents/heartbeat",
                json!({"name": name, "hostname": name, "docker_available": true,
                       "components": components}),
            )
            .await;
        assert_eq!(r.status(), 200, "the heartbeat is taken");
        agent
    }

    /// A request signed now (or `skew` seconds off), with the exact body bytes given.
    pub fn signed(&self, path: &str, body: &[u8], skew: i64) -> reqwest::RequestBuilder {
        self.signed_as(path, body, skew, "application/json")
    }

    /// The same with another Content-Type.
    pub fn signed_as(
        &self,
        path: &str,
        body: &[u8],
        skew: i64,
        content_type: &str,
    ) -> reqwest::RequestBuilder {
        signed_post(&self.client, &self.base, &self.key, path, body, skew)
            .header("content-type", content_type)
    }

    /// A heartbeat with exactly this body (no nonce added: the same body
    /// twice in one second is a replay).
    pub async fn heartbeat(&self, body: Value) -> reqwest::Response {
        let bytes = serde_json::to_vec(&body).expect("JSON");
        self.signed("/api/v1/agents/heartbeat", &bytes, 0)
            .send()
            .await
            .expect("heartbeat request")
    }

    /// A heartbeat with a fresh nonce, expected to be accepted.
    pub async fn report(&self, heartbeat: Value) {
        let r = self.post("/api/v1/agents/heartbeat", heartbeat).await;
        assert_eq!(r.status(), 200, "heartbeat");
    }

    /// A signed request with a fresh nonce in its JSON body.
    pub async fn post(&self, path: &str, body: Value) -> reqwest::Response {
        self.post_at(&self.base, path, body).await
    }

    /// The same, sent to another replica at `base`.
    pub async fn post_at(&self, base: &str, path: &str, mut body: Value) -> reqwest::Response {
        body["nonce"] = json!(data_encoding::HEXLOWER.encode(&rand::random::<[u8; 16]>()));
        let bytes = serde_json::to_vec(&body).expect("JSON");
        signed_post(&self.client, base, &self.key, path, &bytes, 0)
            .header("content-type", "application/json")
            .send()
            .await
            .expect("signed request")
    }

    /// Claims the next job without waiting, if there is one.
    pub async fn claim(&self) -> Option<Value> {
        self.claim_with(json!({})).await
    }

    /// Claims the next job as our Agent does, announcing live progress (a
    /// one-minute lease that progress messages extend).
    pub async fn claim_reporting(&self) -> Option<Value> {
        self.claim_with(json!({"progress": true})).await
    }

    /// `POST /api/v1/agents/jobs/progress` for `job_id`, message `seq`.
    pub async fn progress(&self, job_id: &str, seq: u64, stages: Value) -> reqwest::Response {
        self.post(
            "/api/v1/agents/jobs/progress",
            json!({"job_id": job_id, "seq": seq, "stages": stages}),
        )
        .await
    }

    async fn claim_with(&self, body: Value) -> Option<Value> {
        let r = self.post("/api/v1/agents/jobs/next", body).await;
        match r.status().as_u16() {
            200 => Some(r.json().await.expect("job JSON")),
            204 => None,
            other => panic!(
                "jobs/next answered {other}: {}",
                r.text().await.unwrap_or_default()
            ),
        }
    }

    /// The next job, which a test expects to be waiting.
    pub async fn next_job(&self) -> Value {
        self.claim().await.expect("a job should be waiting")
    }

    /// Reports a job's result and expects it accepted.
    pub async fn finish(&self, job_id: &str, status: &str, result: &str) {
        let r = self
            .post(
                "/api/v1/agents/jobs/result",
                json!({"job_id": job_id, "status": status, "result": result}),
            )
            .await;
        assert_eq!(r.status(), 200, "job result");
    }
}
