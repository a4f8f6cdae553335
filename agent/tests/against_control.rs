//! The Agent binary against a real Control on loopback: enrollment refusals
//! explained, heartbeats that make it online, and a job long-polled, refused
//! for the reason it gives, and reported; SIGTERM ends it cleanly.

mod common;

use common::*;
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
    let health = |data: &std::path::Path| {
        agent(&control.base, data, None)
            .arg("--health-check")
            .output()
            .unwrap()
    };
    let before_start = health(data.path());
    assert!(
        !before_start.status.success(),
        "unhealthy before any heartbeat"
    );
    assert!(String::from_utf8_lossy(&before_start.stderr).contains("no heartbeat"));
    let mut child = Running(
        agent(&control.base, data.path(), Some(ENROLL))
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );

    // It enrolls, stores its identity, waits for approval (enrolled with
    // the shared token), and once approved its heartbeats make it online.
    let deadline = Instant::now() + Duration::from_secs(20);
    let agent_id = loop {
        let agents: Value = control.get("/api/v1/agents").await;
        if let Some(a) = agents.as_array().and_then(|l| l.first()) {
            if a["status"] == "pending" {
                assert!(
                    a["key_fingerprint"]
                        .as_str()
                        .unwrap()
                        .starts_with("SHA256:"),
                    "{a}"
                );
                approve_waiting(&control).await;
                continue;
            }
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
    // The container health check passes once Control accepts heartbeats.
    let healthy = health(data.path());
    assert!(
        healthy.status.success(),
        "{}",
        String::from_utf8_lossy(&healthy.stderr)
    );

    // Control refuses Docker jobs for it, naming the reason the Agent reported.
    let job = json!({"agent_id": agent_id, "kind": "restart_component",
        "payload": {"component_id": "sidecar-web"}});
    let r = control.post("/api/v1/jobs", &job).await;
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
    // With the token still set (as in a compose file), it must not enroll again.
    let before = last_heartbeat(&control.admin, &control.base).await;
    let mut again = Running(
        agent(&control.base, data.path(), Some(ENROLL))
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while last_heartbeat(&control.admin, &control.base).await == before {
        assert!(
            again.0.try_wait().unwrap().is_none(),
            "the restarted Agent exited"
        );
        assert!(
            Instant::now() < deadline,
            "the restarted Agent sent no heartbeat"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let agents: Value = control.get("/api/v1/agents").await;
    assert_eq!(
        agents.as_array().unwrap().len(),
        1,
        "no second enrollment: {agents}"
    );
    assert_eq!(agents[0]["id"], agent_id.as_str());
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
    approve_waiting(&control).await;
    agent::identity::store(data.path(), &identity).unwrap();
    let job = json!({"agent_id": identity.agent_id.to_string(), "kind": "restart_component",
        "payload": {"component_id": "sidecar-web"}});
    let r = control.post("/api/v1/jobs", &job).await;
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
        let stored: Value = control.get(&format!("/api/v1/jobs/{id}")).await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_waits_out_a_control_restart_and_resumes_by_itself() {
    let data = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (base, serving) = serve_control(data.path(), listener).await;
    let admin = server_client(&base);
    let sign_in = |admin: reqwest::Client, base: String| async move {
        let r = admin
            .post(format!("{base}/api/v1/session"))
            .json(&json!({"password": PASSWORD}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    };
    sign_in(admin.clone(), base.clone()).await;
    let agent_data = tempfile::tempdir().unwrap();
    // With Docker enabled (a stand-in docker CLI), to see what it runs meanwhile.
    let standin = tempfile::tempdir().unwrap();
    // One managed container already runs on this host.
    std::fs::create_dir_all(standin.path().join("containers")).unwrap();
    std::fs::write(standin.path().join("containers/sidecar-kept"), "").unwrap();
    let mut command = agent(&base, agent_data.path(), Some(ENROLL));
    with_docker_standin(&mut command, standin.path());
    let mut running = Running(command.stdout(Stdio::null()).spawn().unwrap());
    let deadline = Instant::now() + Duration::from_secs(20);
    while last_heartbeat(&admin, &base).await.is_none() {
        assert!(Instant::now() < deadline, "no first heartbeat");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Control goes away for a few seconds; the Agent keeps running.
    serving.abort();
    let _ = serving.await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert!(
        running.0.try_wait().unwrap().is_none(),
        "the Agent must not exit while Control is away"
    );
    let before = last_heartbeat(&admin, &base).await;
    assert!(before.is_none(), "Control is really down");
    // Its containers are left alone: only read-only Docker commands ran.
    let log = std::fs::read_to_string(standin.path().join("commands.log")).unwrap();
    for line in log.lines() {
        let read_only = ["version", "compose version", "ps ", "inspect ", "logs "]
            .iter()
            .any(|p| line.starts_with(p));
        assert!(
            read_only,
            "the Agent changed containers while Control was away: {line}"
        );
    }
    // Nothing reaches the database meanwhile (no lingering connection serves it).
    let stored = || async {
        let db = server::db::connect(&server::config::DatabaseTarget::Sqlite(
            data.path().join("knotroute-control.sqlite3"),
        ))
        .await
        .unwrap();
        use sea_orm::EntityTrait;
        server::entities::agent::Entity::find()
            .one(&db)
            .await
            .unwrap()
            .and_then(|a| a.last_heartbeat_at)
    };
    let first = stored().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        stored().await,
        first,
        "heartbeats were still accepted while Control was down"
    );

    // Control comes back on the same address with the same database.
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let (_, _serving) = serve_control(data.path(), listener).await;
    sign_in(admin.clone(), base.clone()).await;
    let stopped_at = chrono_now_rfc3339();
    // Control was away long enough for the backoff to grow; allow a full
    // backoff (60 s) plus margin on a slow machine.
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if let Some(seen) = last_heartbeat(&admin, &base).await {
            if seen > stopped_at {
                break;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the Agent did not resume after Control returned"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Now as RFC 3339 UTC seconds, comparable as text with Control's times.
fn chrono_now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
