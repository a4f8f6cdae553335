//! Two Control processes on one PostgreSQL, many Agents long-polling both:
//! every job is delivered exactly once and none is lost, and a job queued on
//! one wakes a long-poll on the other at once. Each replica is the real
//! binary in its own OS process; they share nothing but the database.

mod common;

use futures_util::future::join_all;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

const AGENTS: usize = 200;
const JOBS_PER_AGENT: usize = 10;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_replicas_deliver_every_job_exactly_once() {
    let database = common::fresh_postgres_database().await;
    // Started together: the migration lock makes them take turns.
    let (one, two) = tokio::join!(
        common::spawn_control(&database),
        common::spawn_control(&database)
    );
    one.sign_in().await;
    two.sign_in().await;
    let replicas = [&one, &two];

    let agents: Vec<common::SimAgent> = (0..AGENTS)
        .map(|i| common::SimAgent::new(replicas[i % 2], (i + 30) as u8))
        .collect();
    // Seeds wrap at 256; keep every key distinct.
    assert_eq!(
        agents.iter().map(|a| a.id()).collect::<HashSet<_>>().len(),
        AGENTS
    );
    join_all(agents.iter().map(|a| a.enroll_with_docker())).await;

    // Agents long-poll alternately on both replicas while jobs are being queued through both.
    let deadline = Instant::now() + Duration::from_secs(120);
    let workers = agents.iter().enumerate().map(|(i, a)| async move {
        let mut received = Vec::new();
        let mut turn = i;
        while received.len() < JOBS_PER_AGENT && Instant::now() < deadline {
            let base = &replicas[turn % 2].base;
            turn += 1;
            let r = a
                .post_at(base, "/api/v1/agents/jobs/next?wait=2", json!({}))
                .await;
            if r.status() == 204 {
                continue;
            }
            assert_eq!(r.status(), 200);
            let job: Value = r.json().await.unwrap();
            let id = job["id"].as_str().unwrap().to_string();
            let done = a
                .post_at(
                    base,
                    "/api/v1/agents/jobs/result",
                    json!({"job_id": id, "status": "succeeded", "result": "ok"}),
                )
                .await;
            assert_eq!(done.status(), 200);
            received.push(id);
        }
        (a.id(), received)
    });
    let creators = async {
        let mut created: HashMap<String, Vec<String>> = HashMap::new();
        for round in 0..JOBS_PER_AGENT {
            let batch = agents.iter().enumerate().map(|(i, a)| {
                let via = replicas[(i + round) % 2];
                let body = json!({"agent_id": a.id(), "kind": "restart_component", "payload": {"component_id": format!("sidecar-s{round}")}});
                async move {
                    let r = via.post_json("/api/v1/jobs", body).await;
                    assert_eq!(r.status(), 201);
                    let job: Value = r.json().await.unwrap();
                    (a.id(), job["id"].as_str().unwrap().to_string())
                }
            });
            for (agent, job) in join_all(batch).await {
                created.entry(agent).or_default().push(job);
            }
        }
        created
    };
    let (delivered, created) = tokio::join!(join_all(workers), creators);

    let mut all_delivered = HashSet::new();
    for (agent, received) in &delivered {
        let mut got = received.clone();
        got.sort();
        let mut want = created[agent].clone();
        want.sort();
        assert_eq!(
            got, want,
            "agent {agent} received exactly its own jobs, each once"
        );
        for id in received {
            assert!(all_delivered.insert(id.clone()), "job {id} delivered twice");
        }
    }
    assert_eq!(all_delivered.len(), AGENTS * JOBS_PER_AGENT);
    let succeeded: Vec<Value> = one
        .get_json("/api/v1/jobs?status=succeeded&limit=500")
        .await;
    assert_eq!(
        succeeded.len(),
        500,
        "the list caps a page at 500; there are more"
    );
    let pending: Vec<Value> = two.get_json("/api/v1/jobs?status=pending").await;
    assert!(pending.is_empty(), "no job left behind: {pending:?}");
}

/// A job queued through one replica wakes an Agent long-polling the other at
/// once (LISTEN/NOTIFY), not at the next safety poll five seconds later.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_queued_on_one_replica_wakes_a_long_poll_on_the_other() {
    let database = common::fresh_postgres_database().await;
    let one = common::spawn_control(&database).await;
    let two = common::spawn_control(&database).await;
    one.sign_in().await;
    let agent = common::SimAgent::new(&two, 7);
    agent.enroll_with_docker().await;
    for round in 0..3 {
        let poll = agent.post_at(&two.base, "/api/v1/agents/jobs/next?wait=10", json!({}));
        let queue = async {
            // Let the long-poll start waiting first.
            tokio::time::sleep(Duration::from_millis(300)).await;
            let started = Instant::now();
            let job = json!({"agent_id": agent.id(), "kind": "restart_component",
                "payload": {"component_id": format!("sidecar-w{round}")}});
            assert_eq!(one.post_json("/api/v1/jobs", job).await.status(), 201);
            started
        };
        let (response, started) = tokio::join!(poll, queue);
        let waited = started.elapsed();
        assert_eq!(response.status(), 200);
        assert!(
            // Under the 5 s safety poll with a wide margin for a busy CI machine:
            // only NOTIFY can deliver it this fast (the in-process wake is pinned
            // under 1 s in jobs.rs).
            waited < Duration::from_secs(3),
            "round {round}: the other replica's Agent got the job after {waited:?}"
        );
    }
}
