//! Live job progress from the real Agent binary to a real Control: stages
//! appear while the job runs, a running job stops when the admin cancels it,
//! and against a Control without the extension the Agent works as version 1.
//! Docker is the STAND-IN CLI of tests/standin (it deploys nothing).

mod common;

use common::{
    finished_job, list_beacon, network, queue_job, start_control, start_control_without_progress,
    Control, StandinAgent, ENROLL,
};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn stage_names(job: &Value) -> Vec<(String, String)> {
    job["stages"]
        .as_array()
        .map(|stages| {
            stages
                .iter()
                .map(|s| {
                    (
                        s["name"].as_str().unwrap().to_string(),
                        s["status"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Waits until `check` holds for the job's view; returns that view.
async fn job_until(
    control: &Control,
    id: &str,
    what: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let job = control.get(&format!("/api/v1/jobs/{id}")).await;
        if check(&job) {
            return job;
        }
        assert!(Instant::now() < deadline, "{what}: {job}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Queues sidecar `name` for `app:8080` on `agent`; the job's ID.
async fn deploy_sidecar(control: &Control, agent: &StandinAgent, name: &str) -> String {
    let network = network(control, &format!("Network of {name}")).await;
    list_beacon(control, &network, "https://beacon.example.net").await;
    let payload = json!({"name": name, "network_id": network, "target": "app:8080",
        "docker_network": "apps", "beacons": ["https://beacon.example.net"]});
    queue_job(control, &agent.id, "deploy_sidecar", payload).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stages_show_while_the_job_runs_and_a_cancel_stops_it() {
    let control = start_control().await;
    let agent = StandinAgent::start(
        &control,
        &[
            ("STANDIN_PULL_SECONDS", "30"),
            ("KNOTROUTE_AGENT_SETTLE", "0s"),
        ],
    )
    .await;
    let id = deploy_sidecar(&control, &agent, "slow").await;

    // The pull (30 s here) is under way, and Control already shows it.
    let job = job_until(&control, &id, "the pull never showed", |job| {
        stage_names(job)
            .last()
            .map(|(n, s)| (n.as_str(), s.as_str()))
            == Some(("pull", "running"))
    })
    .await;
    assert_eq!(job["status"], "running");
    assert_eq!(
        stage_names(&job)
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>(),
        vec!["validate", "write compose", "pull"]
    );
    let pull = job["stages"][2]["command"].as_str().unwrap();
    assert!(pull.contains("kr-sidecar-slow pull"), "{pull}");

    // The admin cancels: the pull is stopped, `up` never runs, and the job
    // ends `cancelled` with the stages so far, long before the pull would.
    let asked = Instant::now();
    let r = control
        .post(&format!("/api/v1/jobs/{id}/cancel"), &json!({}))
        .await;
    assert_eq!(r.status(), 200);
    let job = job_until(&control, &id, "the job did not stop", |job| {
        job["status"] != "running"
    })
    .await;
    assert!(
        asked.elapsed() < Duration::from_secs(20),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(job["status"], "cancelled", "{job}");
    assert_eq!(stage_names(&job)[2], ("pull".into(), "cancelled".into()));
    let log = agent.commands();
    assert!(!log.contains("kr-sidecar-slow up"), "{log}");
    // The Compose file was written whole before the pull began.
    let file = agent.data.path().join("stacks/sidecar-slow/compose.yaml");
    let yaml: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    assert!(yaml["services"].is_mapping());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deploy_reports_each_stage_with_its_output() {
    let control = start_control().await;
    let agent = StandinAgent::start(
        &control,
        &[
            ("KNOTROUTE_AGENT_SETTLE", "0s"),
            ("KNOTROUTE_AGENT_HEALTH_TIMEOUT", "1s"),
        ],
    )
    .await;
    // A sidecar that never says it is ready: it fails in `health`, after
    // one line per attempt, and the failed stage is the one that says so.
    let id = deploy_sidecar(&control, &agent, "unready").await;
    let job = finished_job(&control, &id, Duration::from_secs(30)).await;
    assert_eq!(job["status"], "failed", "{job}");
    assert_eq!(
        stage_names(&job),
        [
            "validate",
            "write compose",
            "pull",
            "up",
            "settle",
            "health"
        ]
        .iter()
        .zip([
            "succeeded",
            "succeeded",
            "succeeded",
            "succeeded",
            "succeeded",
            "failed"
        ])
        .map(|(n, s)| (n.to_string(), s.to_string()))
        .collect::<Vec<_>>()
    );
    let page: Value = control.get(&format!("/api/v1/jobs/{id}/log")).await;
    let lines: Vec<(u64, String)> = page["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["stage"].as_u64().unwrap(),
                l["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let of = |stage: u64| -> Vec<&str> {
        lines
            .iter()
            .filter(|(s, _)| *s == stage)
            .map(|(_, t)| t.as_str())
            .collect()
    };
    assert!(
        of(3).iter().any(|l| l.contains("Started")),
        "up printed: {lines:?}"
    );
    assert!(
        of(5).iter().any(|l| l.starts_with("attempt 1:")),
        "{lines:?}"
    );
    // What the container printed is there, with the Agent's secrets masked.
    let all = lines
        .iter()
        .map(|(_, t)| t.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!all.contains(ENROLL), "{all}");
    assert!(all.contains("[redacted]"), "{all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn against_a_control_without_progress_the_agent_works_as_version_1() {
    let (control, refused) = start_control_without_progress().await;
    let agent = StandinAgent::start(
        &control,
        &[
            ("KNOTROUTE_AGENT_SETTLE", "0s"),
            ("KNOTROUTE_AGENT_HEALTH_TIMEOUT", "1s"),
        ],
    )
    .await;
    for name in ["first", "second"] {
        let id = deploy_sidecar(&control, &agent, name).await;
        let job = finished_job(&control, &id, Duration::from_secs(30)).await;
        // Its result reads as version 1's: the commands and what they printed.
        let result = job["result"].as_str().unwrap();
        assert!(
            result.contains(&format!("kr-sidecar-{name} up")),
            "{result}"
        );
        assert!(stage_names(&job).is_empty(), "{job}");
        assert_eq!(job["reports_progress"], false, "never announced: {job}");
    }
    assert_eq!(
        refused.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "no progress to a Control that did not announce it"
    );
}
