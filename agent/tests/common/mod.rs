//! A real Control on loopback (in this process, SQLite in a temporary
//! directory) and the Agent binary as a child process, for the Agent's
//! integration tests.
#![allow(dead_code)] // each test file uses its own part

pub mod docker;

use clap::Parser;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

pub const PASSWORD: &str = "correct-horse-battery-staple";
pub const ENROLL: &str = "enroll-token-for-tests-0001";

pub struct Control {
    pub base: String,
    pub admin: reqwest::Client,
    /// Set when the Control runs on PostgreSQL.
    pub database_url: Option<String>,
    _data: tempfile::TempDir,
}

pub async fn start_control() -> Control {
    start_control_on(Db::Sqlite).await
}

/// Which database the test Control keeps its data in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Db {
    Sqlite,
    Postgres,
}

/// A Control on `db`: SQLite in a temporary directory, or a fresh database
/// on the test PostgreSQL (KNOTROUTE_TEST_DATABASE_URL, as scripts/test.sh
/// provides; named so that its clean-up drops it).
pub async fn start_control_on(db: Db) -> Control {
    start_control_wrapped(db, |app| app).await
}

/// A STAND-IN for a Control without live progress: ours, announcing every
/// extension but `progress`, and with `POST /api/v1/agents/jobs/progress`
/// answering a bare 404 as a Control without the extension does. Counts the
/// messages sent there anyway.
pub async fn start_control_without_progress(
) -> (Control, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let refused = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = refused.clone();
    let control = start_control_wrapped(Db::Sqlite, move |app| {
        app.layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let counter = counter.clone();
                async move {
                    use protocol::extensions::{Extension, Extensions, HEADER_EXTENSIONS};
                    let without = Extensions::all()
                        .without(Extensions::NONE.with(Extension::Progress))
                        .header_value();
                    let mut response = if request.uri().path() == protocol::progress::PROGRESS_PATH
                    {
                        counter.fetch_add(1, Ordering::SeqCst);
                        axum::response::IntoResponse::into_response((
                            axum::http::StatusCode::NOT_FOUND,
                            "404 page not found",
                        ))
                    } else {
                        next.run(request).await
                    };
                    response
                        .headers_mut()
                        .insert(HEADER_EXTENSIONS, without.parse().unwrap());
                    response
                }
            },
        ))
    })
    .await;
    (control, refused)
}

async fn start_control_wrapped(db: Db, wrap: impl FnOnce(axum::Router) -> axum::Router) -> Control {
    let data = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let database_url = match db {
        Db::Sqlite => None,
        Db::Postgres => Some(fresh_postgres_database().await),
    };
    let (base, _) = serve_wrapped(data.path(), database_url.as_deref(), listener, wrap).await;
    let admin = server_client(&base);
    let r = admin
        .post(format!("{base}/api/v1/session"))
        .json(&json!({"password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    Control {
        base,
        admin,
        database_url,
        _data: data,
    }
}

async fn fresh_postgres_database() -> String {
    use sea_orm::{ConnectionTrait, Database};
    let admin_url = std::env::var("KNOTROUTE_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let admin = Database::connect(&admin_url)
        .await
        .expect("PostgreSQL for tests (KNOTROUTE_TEST_DATABASE_URL; scripts/test.sh provides one)");
    let run = std::env::var("KNOTROUTE_TEST_RUN")
        .ok()
        .filter(|r| !r.is_empty() && r.len() <= 16 && r.chars().all(|c| c.is_ascii_alphanumeric()))
        .unwrap_or_else(|| "dev".into())
        .to_ascii_lowercase();
    let unique =
        server::domain::access::secrets::token_hash(&server::domain::access::secrets::new_token());
    let name = format!("kr_test_{run}_{}", &unique[..20]);
    admin
        .execute_unprepared(&format!("CREATE DATABASE {name}"))
        .await
        .expect("create test database");
    let mut url = url::Url::parse(&admin_url).expect("test database URL");
    url.set_path(&format!("/{name}"));
    url.to_string()
}

/// Serves a Control on `listener` with its SQLite file in `data`; aborting the
/// returned task stops it (the file stays, as after a restart).
pub async fn serve_control(
    data: &std::path::Path,
    listener: tokio::net::TcpListener,
) -> (String, tokio::task::JoinHandle<()>) {
    serve_control_on(data, None, listener).await
}

/// [`serve_control`] on PostgreSQL when `database_url` is given.
pub async fn serve_control_on(
    data: &std::path::Path,
    database_url: Option<&str>,
    listener: tokio::net::TcpListener,
) -> (String, tokio::task::JoinHandle<()>) {
    serve_wrapped(data, database_url, listener, |app| app).await
}

async fn serve_wrapped(
    data: &std::path::Path,
    database_url: Option<&str>,
    listener: tokio::net::TcpListener,
    wrap: impl FnOnce(axum::Router) -> axum::Router,
) -> (String, tokio::task::JoinHandle<()>) {
    let data = data.display().to_string();
    let mut args = vec![
        "knotroute-control",
        "--admin-password",
        PASSWORD,
        "--enroll-token",
        ENROLL,
        "--data",
        &data,
    ];
    if let Some(url) = database_url {
        args.extend(["--database-url", url]);
    }
    let cli = server::config::Cli::try_parse_from(args).unwrap();
    let config = cli.settings.validate().unwrap();
    let db = server::db::connect(&config.database).await.unwrap();
    server::db::migrate(&db).await.unwrap();
    let state = server::AppState::new(config, db);
    let addr = listener.local_addr().unwrap();
    let app = wrap(server::http::router(state));
    let task = tokio::spawn(async move {
        axum_serve(listener, app).await;
    });
    (format!("http://{addr}"), task)
}

impl Control {
    /// Its data directory (the SQLite database lives there).
    pub fn data_dir(&self) -> &std::path::Path {
        self._data.path()
    }

    /// A second connection to this Control's database, as an operator's
    /// command (`knotroute-control identity rotate`) would open.
    pub async fn database(&self) -> sea_orm::DatabaseConnection {
        let data = self._data.path().display().to_string();
        let mut args = vec!["knotroute-control", "--data", &data];
        if let Some(url) = &self.database_url {
            args.extend(["--database-url", url]);
        }
        let cli = server::config::Cli::try_parse_from(args).unwrap();
        server::db::connect(&cli.settings.database().unwrap())
            .await
            .unwrap()
    }

    /// GET as the signed-in admin, parsed as JSON.
    pub async fn get(&self, path: &str) -> Value {
        self.admin
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// POST JSON as the signed-in admin.
    pub async fn post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.admin
            .post(format!("{}{path}", self.base))
            .json(body)
            .send()
            .await
            .unwrap()
    }
}

async fn axum_serve(listener: tokio::net::TcpListener, app: axum::Router) {
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .await
    .unwrap();
}

pub fn server_client(base: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(reqwest::header::ORIGIN, base.parse().unwrap());
    reqwest::Client::builder()
        .cookie_store(true)
        .default_headers(headers)
        .build()
        .unwrap()
}

pub fn agent(base: &str, data: &std::path::Path, token: Option<&str>) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_knotroute-agent"));
    cmd.env_clear()
        .env("KNOTROUTE_CONTROL_URL", base)
        .env("KNOTROUTE_AGENT_DATA", data)
        .env("KNOTROUTE_AGENT_NAME", "test-agent")
        .env("KNOTROUTE_AGENT_POLL", "1s")
        .env("RUST_LOG", "warn");
    if let Some(token) = token {
        cmd.env("KNOTROUTE_CONTROL_ENROLL_TOKEN", token);
    }
    cmd
}

/// Makes the Agent use tests/standin/docker, a STAND-IN that records command
/// lines in `<dir>/commands.log` (no Docker engine exists on this machine).
pub fn with_docker_standin(cmd: &mut Command, dir: &std::path::Path) {
    let tools = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/standin");
    cmd.env("PATH", format!("{}:/usr/bin:/bin", tools.display()))
        .env("STANDIN_DIR", dir)
        .env("STANDIN_SECRET", ENROLL)
        .env("KNOTROUTE_AGENT_DOCKER", "true");
}

/// The Agent binary with the STAND-IN docker CLI: its data directory, the
/// stand-in's record (`commands.log`) and its ID once Control shows it with
/// Docker available.
pub struct StandinAgent {
    pub id: String,
    pub data: tempfile::TempDir,
    pub standin: tempfile::TempDir,
    _running: Running,
}

impl StandinAgent {
    /// Starts it against `control` with `settings` added to its environment.
    pub async fn start(control: &Control, settings: &[(&str, &str)]) -> Self {
        let (data, standin) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut command = agent(&control.base, data.path(), Some(ENROLL));
        with_docker_standin(&mut command, standin.path());
        command.envs(settings.iter().copied());
        let running = Running(command.stdout(std::process::Stdio::null()).spawn().unwrap());
        let shown = docker_agent(control, Duration::from_secs(20)).await;
        Self {
            id: shown["id"].as_str().unwrap().to_string(),
            data,
            standin,
            _running: running,
        }
    }

    /// The command lines the stand-in docker CLI ran so far.
    pub fn commands(&self) -> String {
        std::fs::read_to_string(self.standin.path().join("commands.log")).unwrap_or_default()
    }
}

pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Last heartbeat time of the only Agent, as Control shows it.
pub async fn last_heartbeat(admin: &reqwest::Client, base: &str) -> Option<String> {
    let agents: Value = admin
        .get(format!("{base}/api/v1/agents"))
        .send()
        .await
        .ok()?
        .json()
        .await
        .ok()?;
    agents[0]["last_heartbeat_at"].as_str().map(str::to_string)
}

/// Queues a job through the admin API; its ID.
pub async fn queue_job(control: &Control, agent_id: &str, kind: &str, payload: Value) -> String {
    let r = control
        .post(
            "/api/v1/jobs",
            &json!({"agent_id": agent_id, "kind": kind, "payload": payload}),
        )
        .await;
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().unwrap().to_string()
}

/// Waits (at most `within`) until the job succeeded or failed, and returns it.
pub async fn finished_job(control: &Control, id: &str, within: Duration) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let job = control.get(&format!("/api/v1/jobs/{id}")).await;
        if job["status"] == "succeeded" || job["status"] == "failed" {
            return job;
        }
        assert!(Instant::now() < deadline, "the job did not finish: {job}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Approves every Agent that waits for approval, as the admin does after
/// comparing fingerprints (enrolled with the shared token, each waits).
pub async fn approve_waiting(control: &Control) {
    let agents = control.get("/api/v1/agents").await;
    for a in agents
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["status"] == "pending")
    {
        let id = a["id"].as_str().unwrap();
        let r = control
            .post(&format!("/api/v1/agents/{id}/approve"), &json!({}))
            .await;
        assert_eq!(r.status(), 200, "approving {id}");
    }
}

/// A network profile named `name`, made through the admin API; its ID.
pub async fn network(control: &Control, name: &str) -> String {
    let r = control
        .post("/api/v1/networks", &json!({"name": name}))
        .await;
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().unwrap().to_string()
}

/// Lists `url` among network `network`'s Beacons, unless it is already: a
/// deploy or probe names only its network's Beacons.
pub async fn list_beacon(control: &Control, network: &str, url: &str) {
    let r = control
        .post(
            "/api/v1/beacons",
            &json!({"network_id": network, "url": url}),
        )
        .await;
    let status = r.status().as_u16();
    let body: Value = r.json().await.unwrap();
    assert!(
        status == 201 || body["code"] == "beacon_duplicate",
        "listing {url}: {status} {body}"
    );
}

/// Waits (at most `within`) until the only Agent reports Docker available,
/// approving it first as the admin does (enrolled with the shared token, it
/// waits for approval); its view.
pub async fn docker_agent(control: &Control, within: Duration) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let agents = control.get("/api/v1/agents").await;
        if let Some(a) = agents.as_array().and_then(|l| l.first()) {
            if a["status"] == "pending" {
                approve_waiting(control).await;
                continue;
            }
            if a["docker_available"] == true {
                return a.clone();
            }
        }
        assert!(Instant::now() < deadline, "Docker never reported: {agents}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Builds, or finds already built for the same binaries, the STAND-IN Beacon
/// and sidecar images `ghcr.io/localzet/knotroute-{beacon,sidecar}:<tag>`
/// (scripts/standin-images.sh; the real images' registry is unreachable).
/// An Agent deploys them with KNOTROUTE_AGENT_IMAGE_TAG=<tag> and
/// KNOTROUTE_AGENT_PULL=missing.
pub fn standin_images(tag: &str) {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/standin-images.sh");
    let out = Command::new(&script).arg(tag).output().unwrap();
    assert!(
        out.status.success(),
        "{} {tag} failed: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}
