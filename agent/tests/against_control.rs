//! The Agent binary against a real Control on loopback: enrollment refusals
//! explained, heartbeats that make it online, and a job long-polled, refused
//! for the reason it gives, and reported; SIGTERM ends it cleanly.

use clap::Parser;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PASSWORD: &str = "correct-horse-battery-staple";
const ENROLL: &str = "enroll-token-for-tests-0001";

struct Control {
    base: String,
    admin: reqwest::Client,
    _data: tempfile::TempDir,
}

async fn start_control() -> Control {
    let data = tempfile::tempdir().unwrap();
    let cli = server::config::Cli::try_parse_from([
        "knotroute-control",
        "--admin-password",
        PASSWORD,
        "--enroll-token",
        ENROLL,
        "--data",
        &data.path().display().to_string(),
    ])
    .unwrap();
    let config = cli.settings.validate().unwrap();
    let db = server::db::connect(&config.database).await.unwrap();
    server::db::migrate(&db).await.unwrap();
    let state = server::AppState::new(config, db);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = server::http::router(state);
    tokio::spawn(async move {
        axum_serve(listener, app).await;
    });
    let base = format!("http://{addr}");
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
        _data: data,
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

fn server_client(base: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(reqwest::header::ORIGIN, base.parse().unwrap());
    reqwest::Client::builder()
        .cookie_store(true)
        .default_headers(headers)
        .build()
        .unwrap()
}

fn agent(base: &str, data: &std::path::Path, token: Option<&str>) -> Command {
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

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enrollment_problems_are_explained_and_the_agent_exits() {
    let control = start_control().await;
    let data = tempfile::tempdir().unwrap();
    let out = tokio::task::spawn_blocking({
        let (base, path) = (control.base.clone(), data.path().to_path_buf());
        move || agent(&base, &path, None).output().unwrap()
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("KNOTROUTE_CONTROL_ENROLL_TOKEN is not set")
    );

    let out = tokio::task::spawn_blocking({
        let (base, path) = (control.base.clone(), data.path().to_path_buf());
        move || {
            agent(&base, &path, Some("not-the-token-0000"))
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad_token"), "{stderr}");
    assert!(
        !stderr.contains("not-the-token-0000"),
        "the token is never printed"
    );
    assert!(
        !agent::identity::path(data.path()).exists(),
        "no identity is kept for a refused enrollment"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_enrolls_comes_online_and_restarts_from_its_identity() {
    let control = start_control().await;
    let data = tempfile::tempdir().unwrap();
    let mut child = Running(
        agent(&control.base, data.path(), Some(ENROLL))
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );

    // It enrolls, stores its identity, and its heartbeats make it online.
    let deadline = Instant::now() + Duration::from_secs(20);
    let agent_id = loop {
        let agents: Value = control
            .admin
            .get(format!("{}/api/v1/agents", control.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if let Some(a) = agents.as_array().and_then(|l| l.first()) {
            if a["status"] == "online" {
                assert_eq!(a["name"], "test-agent");
                assert_eq!(a["docker_available"], false);
                break a["id"].as_str().unwrap().to_string();
            }
        }
        assert!(
            Instant::now() < deadline,
            "the Agent never came online: {agents}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let stored = agent::identity::load(data.path()).unwrap().unwrap();
    assert_eq!(stored.agent_id.as_str(), agent_id);

    // Control refuses Docker jobs for it, naming the reason the Agent reported.
    let job = json!({"agent_id": agent_id, "kind": "restart_component",
        "payload": {"component_id": "sidecar-web"}});
    let r = control
        .admin
        .post(format!("{}/api/v1/jobs", control.base))
        .json(&job)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 409);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "agent_without_docker");

    // SIGTERM: it stops cleanly, and starts again from its stored identity.
    let pid = child.0.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let status = tokio::task::spawn_blocking(move || {
        let status = child.0.wait().unwrap();
        std::mem::forget(child);
        status
    })
    .await
    .unwrap();
    assert!(status.success(), "exit on SIGTERM: {status:?}");
    let _again = Running(
        agent(&control.base, data.path(), None)
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let agents: Value = control
        .admin
        .get(format!("{}/api/v1/agents", control.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        agents.as_array().unwrap().len(),
        1,
        "no second enrollment: {agents}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queued_job_is_long_polled_and_reported_with_the_reason() {
    let control = start_control().await;
    let data = tempfile::tempdir().unwrap();
    // Enrolled beforehand (as an identity restored from a backup would be), with
    // a job queued before its first heartbeat says it has no Docker.
    let identity = agent::identity::generate();
    let r = reqwest::Client::new()
        .post(format!("{}/api/v1/agents/enroll", control.base))
        .json(
            &json!({"name": "pre", "public_key": identity.key.public_key().to_wire(),
            "token": ENROLL, "tags": []}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    agent::identity::store(data.path(), &identity).unwrap();
    let job = json!({"agent_id": identity.agent_id.to_string(), "kind": "restart_component",
        "payload": {"component_id": "sidecar-web"}});
    let r = control
        .admin
        .post(format!("{}/api/v1/jobs", control.base))
        .json(&job)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let job: Value = r.json().await.unwrap();
    let id = job["id"].as_str().unwrap().to_string();

    // No token needed: the stored identity is used.
    let _running = Running(
        agent(&control.base, data.path(), None)
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let stored: Value = control
            .admin
            .get(format!("{}/api/v1/jobs/{id}", control.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if stored["status"] == "failed" {
            assert!(
                stored["result"]
                    .as_str()
                    .unwrap()
                    .contains("Docker jobs are disabled on this Agent"),
                "{stored}"
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the job was not reported: {stored}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
