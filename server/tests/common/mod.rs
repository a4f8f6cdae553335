//! Test harness: a real Control on a loopback port, against a real SQLite file
//! or a fresh PostgreSQL database, driven over HTTP with reqwest.

#![allow(dead_code)]

mod raw_http;
// Each test binary compiles this module anew and names only what it uses.
#[allow(unused_imports)]
pub use raw_http::{alert_line, get_page, offers_form, post_form, raw_http, RawAnswer};

pub mod people;
pub mod private_postgres;
pub mod qr;
pub mod route_rules;
pub mod two_networks;

// Each test binary compiles this module anew and names only what it uses.
#[allow(unused_imports)]
pub use test_kit::{browser_like_client, AdminClient, SimAgent};

use clap::Parser;
use server::config::Cli;
use server::AppState;
use std::net::SocketAddr;

pub const PASSWORD: &str = "correct-horse-battery-staple";
pub const ENROLL: &str = test_kit::TEST_ENROLL_TOKEN;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A Control in this test process. It derefs to the admin's session with it
/// ([`AdminClient`]: `base`, `client`, `url`, `get_json`, `post_json`), as
/// [`ControlProcess`] does, so tests drive either the same way.
pub struct Control {
    admin: AdminClient,
    pub addr: SocketAddr,
    pub state: AppState,
    /// The PostgreSQL database this Control uses, when on PostgreSQL.
    pub database_url: Option<String>,
    _data: tempfile::TempDir,
}

/// The PostgreSQL server tests create their databases on. scripts/test.sh sets
/// KNOTROUTE_TEST_DATABASE_URL (its own private instance when none runs here).
fn postgres_admin_url() -> String {
    std::env::var("KNOTROUTE_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// Creates an empty database for one test and returns its URL.
pub async fn fresh_postgres_database() -> String {
    use sea_orm::{ConnectionTrait, Database};
    let admin_url = postgres_admin_url();
    let admin = Database::connect(&admin_url)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL for tests is not reachable at KNOTROUTE_TEST_DATABASE_URL ({e}); run scripts/test.sh, which provides one"));
    // Hex of a random token: a valid unquoted identifier, unique per test.
    let secrets =
        server::domain::access::secrets::token_hash(&server::domain::access::secrets::new_token());
    // scripts/test.sh names its run so it can drop exactly its own databases afterwards.
    let run = std::env::var("KNOTROUTE_TEST_RUN")
        .ok()
        .filter(|r| !r.is_empty() && r.len() <= 16 && r.chars().all(|c| c.is_ascii_alphanumeric()))
        .unwrap_or_else(|| "dev".into())
        .to_ascii_lowercase();
    let name = format!("kr_test_{run}_{}", &secrets[..20]);
    admin
        .execute_unprepared(&format!("CREATE DATABASE {name}"))
        .await
        .expect("create test database");
    let mut url = url::Url::parse(&admin_url).expect("test database URL");
    url.set_path(&format!("/{name}"));
    url.to_string()
}

#[derive(Default)]
pub struct Options {
    pub trust_proxy: bool,
    /// KNOTROUTE_CONTROL_TRUSTED_PROXIES (with `trust_proxy`).
    pub trusted_proxies: Option<String>,
    pub public_url: Option<String>,
    /// Share this PostgreSQL database (a second replica) instead of a fresh one.
    pub database_url: Option<String>,
    /// Turns GET /metrics on with this bearer token.
    pub metrics_token: Option<String>,
    /// KNOTROUTE_CONTROL_ALERT_WEBHOOK.
    pub alert_webhook: Option<String>,
    /// KNOTROUTE_CONTROL_ALLOW_PRIVATE_BEACONS=false.
    pub refuse_private_beacons: bool,
    /// KNOTROUTE_CONTROL_MACHINE_RATE_LIMIT; off unless a test sets it, since
    /// tests send many Agent requests from one loopback address.
    pub machine_rate_limit: Option<u32>,
    /// KNOTROUTE_CONTROL_SITE_ROOT: where the compiled front end is served from.
    pub site_root: Option<std::path::PathBuf>,
    /// Serve on this listener (bound ahead, so that its address can be in
    /// the settings, e.g. the public URL an OpenID provider returns to).
    pub listener: Option<std::net::TcpListener>,
    /// More command-line settings (`--oidc-issuer`, …).
    pub extra_args: Vec<String>,
}

pub async fn start(backend: Backend) -> Control {
    start_with(backend, Options::default()).await
}

/// A Control with the admin already signed in: where most tests begin.
/// Signs in with a client that keeps no cookies and returns the session
/// cookie (`name=value`), for requests sent raw.
pub async fn session_cookie(c: &Control) -> String {
    let r = reqwest::Client::new()
        .post(c.url("/api/v1/session"))
        .header("origin", &c.base)
        .json(&serde_json::json!({"password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let cookie = r.headers()["set-cookie"].to_str().unwrap();
    cookie.split(';').next().unwrap().to_string()
}

pub async fn signed_in(backend: Backend) -> Control {
    let c = start(backend).await;
    c.sign_in().await;
    c
}

/// A signed-in Control that posts alerts to a local webhook receiver (and
/// so keeps them); what the receiver got.
pub async fn signed_in_with_webhook(backend: Backend) -> (Control, test_kit::Received) {
    let (hook, received) = test_kit::webhook_receiver().await;
    let c = start_with(
        backend,
        Options {
            alert_webhook: Some(hook),
            ..Default::default()
        },
    )
    .await;
    c.sign_in().await;
    (c, received)
}

/// A Control that trusts the `X-Forwarded-For` of loopback proxies.
pub async fn behind_proxy(backend: Backend) -> Control {
    start_with(
        backend,
        Options {
            trust_proxy: true,
            ..Default::default()
        },
    )
    .await
}

/// A Control that trusts `X-Forwarded-For` only from proxies in `cidr`.
pub async fn behind_proxy_in(backend: Backend, cidr: &str) -> Control {
    start_with(
        backend,
        Options {
            trust_proxy: true,
            trusted_proxies: Some(cidr.into()),
            ..Default::default()
        },
    )
    .await
}

/// The `.knot` address the sidecar of [`published_web`] announces.
pub const WEB_ADDRESS: &str = "umuxz2vrqhhpnmzqk5ycspnwjcgwjjljnngqghfxbar6lw5ar626lwyb.knot";

/// A network "Home" with a Beacon, and an Agent with Docker (`seed`) whose
/// sidecar `web`, deployed by Control for it, runs with its address
/// ([`WEB_ADDRESS`]) announced: the network's ID and the Agent.
pub async fn published_web(c: &Control, seed: u8) -> (String, SimAgent) {
    let network = c
        .created_network(serde_json::json!({"name": "Home", "beacons": ["https://b.example"]}))
        .await;
    let agent = SimAgent::with_docker(c, seed).await;
    deployed(
        c,
        &agent,
        serde_json::json!({"agent_id": agent.id(), "kind": "deploy_sidecar", "payload": {
            "name": "web", "network_id": network, "target": "app:8080",
            "docker_network": "apps", "beacons": ["https://b.example"]}}),
    )
    .await;
    let r = agent
        .post(
            "/api/v1/agents/heartbeat",
            serde_json::json!({"name": "shop-host", "docker_available": true,
                "components": [{"id": "sidecar-web", "kind": "sidecar", "name": "web",
                "status": "running", "service": WEB_ADDRESS,
                "labels": {"io.knotroute.managed": "true", "io.knotroute.network-id": network}}]}),
        )
        .await;
    assert_eq!(r.status(), 200);
    (network, agent)
}

/// A new Agent with Docker on host `name` whose heartbeat reports
/// `components`. Each one labelled with a network (`io.knotroute.network-id`)
/// is first deployed there by Control for that network (a Beacon at
/// `https://<name>.example.net`, a sidecar through the profile's Beacons):
/// what an Agent reports never puts a component in a network by itself.
pub async fn on_host_deployed(
    c: &Control,
    seed: u8,
    name: &str,
    components: serde_json::Value,
) -> SimAgent {
    let agent = SimAgent::with_docker(c, seed).await;
    for component in components.as_array().expect("a list of components") {
        let Some(network) = component["labels"]["io.knotroute.network-id"].as_str() else {
            continue;
        };
        let id = component["id"].as_str().expect("a component ID");
        let (kind, payload) = match id.strip_prefix("beacon-") {
            Some(beacon) => (
                "deploy_beacon",
                serde_json::json!({"name": beacon, "network_id": network,
                    "beacon_url": format!("https://{beacon}.example.net"),
                    "advertise": "203.0.113.7:7000"}),
            ),
            None => {
                let profile: serde_json::Value =
                    c.get_json(&format!("/api/v1/networks/{network}")).await;
                (
                    "deploy_sidecar",
                    serde_json::json!({"name": id.strip_prefix("sidecar-").expect("a sidecar"),
                        "network_id": network, "target": "app:8080", "docker_network": "apps",
                        "beacons": profile["beacons"]}),
                )
            }
        };
        deployed(
            c,
            &agent,
            serde_json::json!({"agent_id": agent.id(), "kind": kind, "payload": payload}),
        )
        .await;
    }
    let r = agent
        .post(
            "/api/v1/agents/heartbeat",
            serde_json::json!({"name": name, "hostname": name, "docker_available": true,
                   "components": components}),
        )
        .await;
    assert_eq!(r.status(), 200, "the heartbeat is taken");
    agent
}

/// The Network ID the deploy jobs of many tests name.
pub fn lab_network_id() -> String {
    protocol::NetworkId::from_random_bytes([4; 32]).to_string()
}

/// The network profile "Lab" under [`lab_network_id`], listing
/// `https://beacon.example.net`, made through the admin API: a deploy names
/// an existing network and its Beacons. Its ID.
pub async fn lab_network(c: &Control) -> String {
    let id = lab_network_id();
    c.created_network(serde_json::json!({"id": id, "name": "Lab",
        "beacons": ["https://beacon.example.net"]}))
        .await
}

/// Queues the deployment `job` (the body of `POST /api/v1/jobs`) as the
/// admin, and `agent` takes it and reports it succeeded: what Control
/// deployed, as a component of the job's network.
pub async fn deployed(c: &Control, agent: &SimAgent, job: serde_json::Value) {
    let queued = c.queued_job(job).await;
    let taken = agent.next_job().await;
    assert_eq!(taken["id"], queued["id"], "the deployment is the next job");
    agent
        .finish(queued["id"].as_str().unwrap(), "succeeded", "deployed")
        .await;
}

/// Signed in, with private and loopback addresses refused as Beacons and
/// webhook targets (`KNOTROUTE_CONTROL_REFUSE_PRIVATE_BEACONS`).
pub async fn signed_in_refusing_private_addresses(backend: Backend) -> Control {
    let c = start_with(
        backend,
        Options {
            refuse_private_beacons: true,
            ..Default::default()
        },
    )
    .await;
    c.sign_in().await;
    c
}

pub async fn start_with(backend: Backend, options: Options) -> Control {
    let data = tempfile::tempdir().expect("temp dir");
    let mut args = vec![
        "knotroute-control".to_string(),
        "--admin-password".into(),
        PASSWORD.into(),
        "--enroll-token".into(),
        ENROLL.into(),
        "--data".into(),
        data.path().display().to_string(),
        "--listen".into(),
        "127.0.0.1:0".into(),
    ];
    let database_url = match (backend, options.database_url) {
        (Backend::Postgres, Some(shared)) => Some(shared),
        (Backend::Postgres, None) => Some(fresh_postgres_database().await),
        (Backend::Sqlite, _) => None,
    };
    if let Some(url) = &database_url {
        args.push("--database-url".into());
        args.push(url.clone());
    }
    if options.trust_proxy {
        args.push("--trust-proxy".into());
    }
    if let Some(list) = options.trusted_proxies {
        args.push("--trusted-proxies".into());
        args.push(list);
    }
    if let Some(url) = options.public_url {
        args.push("--public-url".into());
        args.push(url);
    }
    if let Some(token) = options.metrics_token {
        args.push("--metrics-token".into());
        args.push(token);
    }
    if options.refuse_private_beacons {
        args.push("--allow-private-beacons".into());
        args.push("false".into());
    }
    args.push("--machine-rate-limit".into());
    args.push(options.machine_rate_limit.unwrap_or(0).to_string());
    if let Some(root) = options.site_root {
        args.push("--site-root".into());
        args.push(root.display().to_string());
    }
    if let Some(url) = options.alert_webhook {
        args.push("--alert-webhook".into());
        args.push(url);
    }
    args.extend(options.extra_args);
    // Parse from explicit arguments only, so the developer's environment cannot leak in.
    let cli = Cli::try_parse_from(args).expect("test arguments parse");
    let config = cli.settings.validate().expect("test config is valid");
    let db = server::db::connect(&config.database)
        .await
        .expect("connect");
    server::db::migrate(&db).await.expect("migrate");
    let state = AppState::new(config, db);
    let listener = match options.listener {
        Some(bound) => {
            bound.set_nonblocking(true).expect("non-blocking listener");
            tokio::net::TcpListener::from_std(bound).expect("listener")
        }
        None => tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind"),
    };
    let addr = listener.local_addr().expect("addr");
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let app = server::http::router(state.clone());
    tokio::spawn(async move {
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
        .expect("serve");
    });
    Control {
        admin: AdminClient::new(&format!("http://{addr}"), PASSWORD),
        addr,
        state,
        _data: data,
        database_url,
    }
}

impl std::ops::Deref for Control {
    type Target = AdminClient;
    fn deref(&self) -> &AdminClient {
        &self.admin
    }
}

/// A test may swap the client, e.g. for one sending another Origin.
impl std::ops::DerefMut for Control {
    fn deref_mut(&mut self) -> &mut AdminClient {
        &mut self.admin
    }
}

impl test_kit::TestControl for Control {
    fn base_url(&self) -> &str {
        &self.base
    }

    fn admin_password(&self) -> &str {
        PASSWORD
    }
}

impl Control {
    /// The data directory (the SQLite file lives here when on SQLite).
    pub fn data_dir(&self) -> &std::path::Path {
        self._data.path()
    }

    /// A network profile created from `body`, expected to succeed; its ID.
    pub async fn created_network(&self, body: serde_json::Value) -> String {
        let r = self.create_network(body).await;
        assert_eq!(r.status(), 201, "the network profile is created");
        let created: serde_json::Value = r.json().await.unwrap();
        created["id"].as_str().unwrap().to_string()
    }

    /// A job queued through the admin API, expected to be accepted; its view.
    pub async fn queued_job(&self, body: serde_json::Value) -> serde_json::Value {
        let r = self.post_json("/api/v1/jobs", body).await;
        let status = r.status();
        let job: serde_json::Value = r.json().await.unwrap();
        assert_eq!(status, 201, "the job is queued: {job}");
        job
    }

    pub async fn create_network(&self, body: serde_json::Value) -> reqwest::Response {
        self.client
            .post(self.url("/api/v1/networks"))
            .json(&body)
            .send()
            .await
            .unwrap()
    }
}

/// A Control running as its own OS process (the binary cargo built for these
/// tests), for replica tests: nothing is shared with another replica but the
/// database.
pub struct ControlProcess {
    admin: AdminClient,
    child: std::process::Child,
    _data: tempfile::TempDir,
}

impl Drop for ControlProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `knotroute-control` on a free loopback port against `database_url`
/// and waits until it answers /readyz (it migrates first, under the lock).
pub async fn spawn_control(database_url: &str) -> ControlProcess {
    spawn_control_with(database_url, &[]).await
}

/// As [`spawn_control`], with extra settings (`KNOTROUTE_CONTROL_…` variables).
pub async fn spawn_control_with(database_url: &str, settings: &[(&str, &str)]) -> ControlProcess {
    let data = tempfile::tempdir().expect("temp dir");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_knotroute-control"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("KNOTROUTE_CONTROL_ADMIN_PASSWORD", PASSWORD)
        .env("KNOTROUTE_CONTROL_ENROLL_TOKEN", ENROLL)
        .env("KNOTROUTE_CONTROL_DATA", data.path())
        .env("KNOTROUTE_CONTROL_LISTEN", format!("127.0.0.1:{port}"))
        .env("KNOTROUTE_CONTROL_DATABASE_URL", database_url)
        .env("RUST_LOG", "warn")
        // Tests send many Agent requests from one loopback address.
        .env("KNOTROUTE_CONTROL_MACHINE_RATE_LIMIT", "0")
        .envs(settings.iter().copied())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("start knotroute-control");
    let base = format!("http://127.0.0.1:{port}");
    // Killed on drop from here on, even if waiting for it fails.
    let mut process = ControlProcess {
        admin: AdminClient::new(&base, PASSWORD),
        child,
        _data: data,
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        if let Some(status) = process.child.try_wait().expect("child status") {
            panic!("knotroute-control exited during start-up: {status}");
        }
        if let Ok(r) = reqwest::get(format!("{base}/readyz")).await {
            if r.status().is_success() {
                break;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "knotroute-control did not become ready"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    process
}

impl std::ops::Deref for ControlProcess {
    type Target = AdminClient;
    fn deref(&self) -> &AdminClient {
        &self.admin
    }
}

impl test_kit::TestControl for ControlProcess {
    fn base_url(&self) -> &str {
        &self.base
    }

    fn admin_password(&self) -> &str {
        PASSWORD
    }
}

/// Runs one async test body against SQLite and against PostgreSQL.
#[macro_export]
macro_rules! on_both_databases {
    ($name:ident, $body:expr) => {
        mod $name {
            use super::*;
            #[tokio::test]
            async fn sqlite() {
                ($body)(common::Backend::Sqlite).await
            }
            #[tokio::test]
            async fn postgres() {
                ($body)(common::Backend::Postgres).await
            }
        }
    };
}

/// The `knotroute-control` binary, without any KNOTROUTE_CONTROL_ setting of
/// the developer's environment.
pub fn control_command() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_knotroute-control"));
    for (key, _) in std::env::vars() {
        if key.starts_with("KNOTROUTE_CONTROL_") {
            cmd.env_remove(key);
        }
    }
    cmd
}

/// Where an operator command finds its database: a data directory holding
/// the SQLite file, or a PostgreSQL URL.
#[derive(Clone, Debug)]
pub enum Store {
    Sqlite(std::path::PathBuf),
    Postgres(String),
}

impl Store {
    /// An empty store on `backend` (the directory lives as long as `keep`).
    pub async fn empty(backend: Backend, keep: &tempfile::TempDir, name: &str) -> Store {
        match backend {
            Backend::Sqlite => Store::Sqlite(keep.path().join(name)),
            Backend::Postgres => Store::Postgres(fresh_postgres_database().await),
        }
    }

    /// Where the running test Control `c` keeps its data.
    pub fn of(c: &Control) -> Store {
        match &c.database_url {
            Some(url) => Store::Postgres(url.clone()),
            None => Store::Sqlite(c.data_dir().to_path_buf()),
        }
    }

    /// Runs `knotroute-control <args>` against this store.
    pub fn run(&self, args: &[&str]) -> std::process::Output {
        let mut cmd = control_command();
        match self {
            Store::Sqlite(dir) => cmd.env("KNOTROUTE_CONTROL_DATA", dir),
            Store::Postgres(url) => cmd
                .env("KNOTROUTE_CONTROL_DATA", std::env::temp_dir())
                .env("KNOTROUTE_CONTROL_DATABASE_URL", url),
        };
        cmd.env("RUST_LOG", "error")
            .args(args)
            .output()
            .expect("run knotroute-control")
    }

    /// Settings for [`spawn_control_with`]: a Control serving this store.
    pub fn serve_settings(&self) -> (String, Vec<(&'static str, String)>) {
        match self {
            Store::Sqlite(dir) => (
                String::new(),
                vec![("KNOTROUTE_CONTROL_DATA", dir.display().to_string())],
            ),
            Store::Postgres(url) => (url.clone(), Vec::new()),
        }
    }
}

/// The stdout of a command that must succeed (its output shown if not).
pub fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "command failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The stderr of a command that must fail.
pub fn refused(out: &std::process::Output) -> String {
    assert!(
        !out.status.success(),
        "must be refused: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// (state, detail) of the step `slug` in a setup checklist (`GET
/// /api/v1/networks/{id}/setup`).
pub fn setup_step(checklist: &serde_json::Value, slug: &str) -> (String, String) {
    let s = checklist["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == slug)
        .unwrap_or_else(|| panic!("no step {slug}: {checklist}"));
    (
        s["state"].as_str().unwrap().to_string(),
        s["detail"].as_str().unwrap().to_string(),
    )
}

/// Posts `body` to `action` as a form sent from `referer`, which the server
/// refuses: the answer leads back there with the refusal in the address,
/// and the page says it on its alert line `alert`, whose text this is.
pub async fn refusal_said(
    c: &Control,
    cookie: &str,
    (action, referer): (&str, &str),
    body: &str,
    alert: &str,
) -> String {
    let r = post_form(c.addr, &c.base, cookie, action, referer, body).await;
    assert_eq!(r.status, 302, "{body:.60}: {}", r.head);
    let location = r.header("location")[0].clone();
    assert!(location.contains("__err="), "{body:.60}: {location}");
    let page = get_page(c.addr, cookie, location.strip_prefix(&c.base).unwrap()).await;
    assert_eq!(page.status, 200, "{body:.60}");
    alert_line(&page.body, alert)
}

/// Posts `body` to `action` as the form on the page at `referer` sends it.
pub async fn post_from_page(
    c: &Control,
    cookie: &str,
    action: &str,
    referer: &str,
    body: &str,
) -> RawAnswer {
    post_form(c.addr, &c.base, cookie, action, referer, body).await
}

/// The page at `location` (from the site's root), which must be found.
pub async fn page_body(c: &Control, cookie: &str, location: &str) -> String {
    let page = get_page(c.addr, cookie, location).await;
    assert_eq!(page.status, 200, "{location}");
    page.body
}

/// Posts each of `bodies` as [`refusal_said`] does, and checks that the page
/// says why in a sentence of Control's own, never raw text from the post.
pub async fn each_refused<B: AsRef<str>>(
    c: &Control,
    cookie: &str,
    (action, referer): (&str, &str),
    bodies: &[B],
    alert: &str,
) {
    for body in bodies {
        let body = body.as_ref();
        let said = refusal_said(c, cookie, (action, referer), body, alert).await;
        assert!(
            !said.is_empty() && !said.contains('<'),
            "{body:.40}: {said}"
        );
    }
}

/// Asks the page at `page` each of `queries` (made up, hostile, or not
/// fitting), and checks that it answers, draws none of the confirmations
/// `questions` (their element IDs), and echoes no markup.
pub async fn asks_nothing<Q: AsRef<str>>(
    c: &Control,
    cookie: &str,
    page: &str,
    queries: &[Q],
    questions: &[&str],
) {
    for query in queries {
        let query = query.as_ref();
        let asked = get_page(c.addr, cookie, &format!("{page}?{query}")).await;
        assert_eq!(asked.status, 200, "{query:.40}");
        for question in questions {
            assert!(
                !asked.body.contains(&format!("id=\"{question}\"")),
                "{query:.40}: {question}"
            );
        }
        assert!(!asked.body.contains("<script>alert"), "{query:.40}");
    }
}

/// Hostile values of a form's `id` field, as bodies to post raw: none,
/// empty, malformed, markup, a path, and 5,000 characters.
pub fn hostile_ids() -> Vec<String> {
    [
        "",
        "id=",
        "id=not-an-id",
        "id=%3Cscript%3Ealert(1)%3C%2Fscript%3E",
        "id=..%2F..%2Fetc%2Fpasswd",
    ]
    .iter()
    .map(|body| body.to_string())
    .chain([format!("id={}", "a".repeat(5000))])
    .collect()
}

/// The status of `body` posted to `action` by a page of another site.
pub async fn from_another_site(c: &Control, cookie: &str, action: &str, body: &str) -> u16 {
    let evil = "https://evil.example";
    post_form(c.addr, evil, cookie, action, evil, body)
        .await
        .status
}
