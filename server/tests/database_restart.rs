//! A PostgreSQL restart under load: while the database is away, requests are
//! answered 503 with Retry-After (never 500) or simply wait for it, /readyz
//! says not ready, no job is lost, and everything succeeds again within 5 s.
//! The database is a private server of this test (common/private_postgres.rs):
//! the shared one on 5432 is never restarted.

mod common;

use common::private_postgres::PrivatePostgres;
use common::{Backend, Control, Options, SimAgent};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One answer: what was asked, when (seconds since the start), and how it went.
#[derive(Debug, Clone)]
struct Answer {
    what: &'static str,
    at: f64,
    status: u16,
    retry_after: bool,
}

#[derive(Clone)]
struct Log {
    start: Instant,
    answers: Arc<Mutex<Vec<Answer>>>,
}

impl Log {
    fn now(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    fn record(&self, what: &'static str, at: f64, r: &reqwest::Response) {
        self.answers.lock().unwrap().push(Answer {
            what,
            at,
            status: r.status().as_u16(),
            retry_after: r.headers().contains_key("retry-after"),
        });
    }
}

fn sidecar_job(agent_id: &str, n: usize) -> Value {
    json!({"agent_id": agent_id, "kind": "deploy_sidecar", "payload": {
        "name": format!("web{n}"), "network_id": common::lab_network_id(),
        "target": "app:8080", "docker_network": "apps", "beacons": ["https://beacon.example.net"]}})
}

/// Claims one job and reports it done, retrying the report until Control takes it.
async fn work_once(agent: &SimAgent, log: &Log) -> bool {
    let at = log.now();
    let r = agent.post("/api/v1/agents/jobs/next", json!({})).await;
    log.record("jobs/next", at, &r);
    if r.status() != 200 {
        return false;
    }
    let job: Value = r.json().await.unwrap();
    loop {
        let at = log.now();
        let body = json!({"job_id": job["id"], "status": "succeeded", "result": "ok"});
        let r = agent.post("/api/v1/agents/jobs/result", body).await;
        log.record("jobs/result", at, &r);
        if r.status() == 200 {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_restart_answers_503_not_500_and_recovers_within_5_s() {
    let pg = Arc::new(PrivatePostgres::start());
    let c: Arc<Control> = Arc::new(
        common::start_with(
            Backend::Postgres,
            Options {
                database_url: Some(pg.url()),
                ..Default::default()
            },
        )
        .await,
    );
    c.sign_in().await;
    common::lab_network(&c).await;
    let agents: Vec<Arc<SimAgent>> = (0..4)
        .map(|n| Arc::new(SimAgent::new(&*c, 200 + n)))
        .collect();
    for a in &agents {
        a.enroll_with_docker().await;
    }
    let log = Log {
        start: Instant::now(),
        answers: Arc::default(),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let burst = Arc::new(AtomicBool::new(false));
    let created = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut tasks = Vec::new();

    // Heartbeats: steady, and a tight burst around the restart.
    for a in &agents {
        let (a, log, stop, burst) = (a.clone(), log.clone(), stop.clone(), burst.clone());
        tasks.push(tokio::spawn(async move {
            let mut sent_in_burst = 0;
            while !stop.load(Ordering::Relaxed) {
                let at = log.now();
                let body = json!({"name": "docker-host", "docker_available": true});
                let r = a.post("/api/v1/agents/heartbeat", body).await;
                log.record("heartbeat", at, &r);
                if burst.load(Ordering::Relaxed) && sent_in_burst < 300 {
                    sent_in_burst += 1;
                } else {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }));
    }
    // The admin reads lists and queues jobs.
    {
        let (c, log, stop, created) = (c.clone(), log.clone(), stop.clone(), created.clone());
        let agent_id = agents[0].id();
        tasks.push(tokio::spawn(async move {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                // The JSON API, a page, and a server function of the UI.
                for path in ["/api/v1/networks", "/api/v1/agents", "/infrastructure"] {
                    let at = log.now();
                    let r = c.get(path).await;
                    log.record("admin read", at, &r);
                }
                let at = log.now();
                let ui = c.client.post(c.url("/ui/overview")).form(&[("", "")]);
                let r = ui.send().await.unwrap();
                log.record("admin read", at, &r);
                n += 1;
                let at = log.now();
                let r = c.post_json("/api/v1/jobs", sidecar_job(&agent_id, n)).await;
                log.record("admin queue", at, &r);
                if r.status() == 201 {
                    let job: Value = r.json().await.unwrap();
                    created
                        .lock()
                        .unwrap()
                        .push(job["id"].as_str().unwrap().to_string());
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }));
    }
    // The Agent works through the queue.
    {
        let (worker, log, stop) = (agents[0].clone(), log.clone(), stop.clone());
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                work_once(&worker, &log).await;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }));
    }
    // A load balancer's probe.
    {
        let (c, log, stop) = (c.clone(), log.clone(), stop.clone());
        tasks.push(tokio::spawn(async move {
            let probe = reqwest::Client::new();
            while !stop.load(Ordering::Relaxed) {
                let at = log.now();
                let r = probe.get(c.url("/readyz")).send().await.unwrap();
                log.record("readyz", at, &r);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }));
    }

    tokio::time::sleep(Duration::from_millis(1500)).await;
    burst.store(true, Ordering::Relaxed);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let down = log.now();
    let db = pg.clone();
    tokio::task::spawn_blocking(move || db.stop_server())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let db = pg.clone();
    tokio::task::spawn_blocking(move || db.start_server())
        .await
        .unwrap();
    let up = log.now();
    tokio::time::sleep(Duration::from_secs(1)).await;
    burst.store(false, Ordering::Relaxed);
    tokio::time::sleep(Duration::from_secs(6)).await;
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        t.await.unwrap();
    }

    let answers = log.answers.lock().unwrap().clone();
    let unexpected: Vec<&Answer> = answers
        .iter()
        .filter(|a| ![200, 201, 204, 503].contains(&a.status))
        .collect();
    assert!(
        unexpected.is_empty(),
        "no 500 (nor anything else): {unexpected:?}"
    );
    let unavailable: Vec<&Answer> = answers.iter().filter(|a| a.status == 503).collect();
    assert!(
        unavailable.iter().all(|a| a.retry_after),
        "every 503 says when to retry: {unavailable:?}"
    );
    assert!(
        answers
            .iter()
            .any(|a| a.what == "readyz" && a.status == 503 && a.at > down && a.at < up),
        "/readyz said not ready while the database was stopped"
    );
    let late: Vec<&Answer> = answers.iter().filter(|a| a.at > up + 5.0).collect();
    for what in [
        "heartbeat",
        "admin read",
        "admin queue",
        "jobs/next",
        "readyz",
    ] {
        assert!(
            late.iter().any(|a| a.what == what),
            "{what} was asked after the restart"
        );
    }
    let failing: Vec<&&Answer> = late.iter().filter(|a| a.status == 503).collect();
    assert!(
        failing.is_empty(),
        "5 s after the restart all succeeds: {failing:?}"
    );
    let total = answers.len();
    eprintln!(
        "{total} requests, {} answered 503, database down from {down:.1} s to {up:.1} s",
        unavailable.len()
    );

    // No job the API confirmed is lost: the Agent finishes them all.
    while work_once(&agents[0], &log).await {}
    let created = created.lock().unwrap().clone();
    assert!(created.len() > 20, "jobs were queued: {}", created.len());
    for id in created {
        let job: Value = c.get_json(&format!("/api/v1/jobs/{id}")).await;
        assert_eq!(job["status"], "succeeded", "{job}");
    }
}
