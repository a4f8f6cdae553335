//! Our Agent with a first-version Control: the STAND-IN of test-kit
//! (`test_kit::v1_control`), which refuses any field, query parameter or
//! endpoint that is not version 1, and with our own Control on SQLite and
//! PostgreSQL. The same life on each: enrollment, heartbeats, a restart from
//! the stored identity, jobs taken, run and reported. With the test
//! command's Docker engine, the stand-in has the Agent deploy a Beacon and
//! a sidecar from the stand-in images. And an Agent that has seen our
//! Control's extensions does not drop to version 1 when a look-alike
//! answers without them.

mod common;

use common::docker::*;
use common::*;
use serde_json::{json, Value};
use std::process::Stdio;
use std::time::{Duration, Instant};
use test_kit::v1_control::V1Control;

/// The Control an Agent is tested against.
enum Under {
    FirstVersion(V1Control),
    Ours(Control),
}

impl Under {
    fn base(&self) -> &str {
        match self {
            Under::FirstVersion(c) => &c.base,
            Under::Ours(c) => &c.base,
        }
    }

    /// The Agent's ID once Control took `beats` heartbeats from it (at
    /// ours, which shows the time of the last one: that many distinct
    /// times seen from now on), approving it first as an admin does.
    async fn heartbeats_at_least(&self, beats: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut times = std::collections::BTreeSet::new();
        loop {
            let (id, seen) = match self {
                Under::FirstVersion(c) => c
                    .agents()
                    .into_iter()
                    .next()
                    .map(|(id, a)| (id, a.heartbeats))
                    .unwrap_or_default(),
                Under::Ours(c) => {
                    approve_waiting(c).await;
                    let agents = c.get("/api/v1/agents").await;
                    let first = agents.as_array().and_then(|l| l.first()).cloned();
                    let first = first.unwrap_or_default();
                    if let Some(at) = first["last_heartbeat_at"].as_str() {
                        times.insert(at.to_string());
                    }
                    let id = first["id"].as_str().unwrap_or_default().to_string();
                    (id, times.len())
                }
            };
            if seen >= beats {
                return id;
            }
            assert!(
                Instant::now() < deadline,
                "fewer than {beats} heartbeats arrived ({seen})"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Queues a job, as the admin of that Control does, and waits for its
    /// end: (status, result).
    async fn run_job(&self, agent_id: &str, kind: &str, payload: Value) -> (String, String) {
        let deadline = Instant::now() + Duration::from_secs(120);
        match self {
            Under::FirstVersion(c) => {
                let id = c.queue(agent_id, kind, payload);
                loop {
                    let job = c.job(&id).unwrap();
                    if job.status != "pending" && job.status != "running" {
                        return (job.status, job.result);
                    }
                    assert!(Instant::now() < deadline, "the job did not end: {job:?}");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
            Under::Ours(c) => {
                let id = queue_job(c, agent_id, kind, payload).await;
                let job = finished_job(c, &id, Duration::from_secs(120)).await;
                (
                    job["status"].as_str().unwrap().to_string(),
                    job["result"].as_str().unwrap().to_string(),
                )
            }
        }
    }

    /// At the stand-in: nothing it refused, and no extension was used.
    fn saw_only_version_one(&self) {
        if let Under::FirstVersion(c) = self {
            assert_eq!(c.refusals(), Vec::<String>::new());
            for line in c.requests() {
                assert!(!line.contains('?'), "a query parameter: {line}");
                assert!(!line.contains("/progress"), "live progress: {line}");
            }
        }
    }
}

/// Enrollment, heartbeats, a job taken, run and reported, a restart from
/// the stored identity, and a job again. Without Docker each job is refused
/// by the Agent and reported failed with its reason (a first-version
/// Control queues it anyway; ours refuses it at once, so with ours the
/// Agent runs the STAND-IN docker CLI, which records what it is asked).
async fn lives_its_whole_life_with(control: Under, docker: bool) {
    let data = tempfile::tempdir().unwrap();
    let standin = tempfile::tempdir().unwrap();
    let start = |token: Option<&str>| {
        let mut command = agent(control.base(), data.path(), token);
        if docker {
            with_docker_standin(&mut command, standin.path());
        }
        Running(command.stdout(Stdio::null()).spawn().unwrap())
    };
    let check = |(status, result): (String, String), stack: &str| {
        if docker {
            assert_eq!(status, "succeeded", "{result}");
            let ran = std::fs::read_to_string(standin.path().join("commands.log")).unwrap();
            // It looked for the stack's container (none: nothing to take down).
            assert!(ran.contains(&format!("component-id={stack}")), "{ran}");
        } else {
            assert_eq!(status, "failed", "{result}");
            assert!(
                result.contains("Docker jobs are disabled on this Agent"),
                "{result}"
            );
        }
    };
    let first = start(Some(ENROLL));
    let id = control.heartbeats_at_least(2).await;
    let remove = |name: &str| json!({"component_id": format!("sidecar-{name}")});
    check(
        control
            .run_job(&id, "remove_component", remove("one"))
            .await,
        "sidecar-one",
    );
    drop(first);

    // Restarted without the token: the stored identity, no new enrollment.
    let _second = start(None);
    let beats_before = match &control {
        Under::FirstVersion(c) => c.agents()[&id].heartbeats,
        Under::Ours(_) => 0,
    };
    assert_eq!(control.heartbeats_at_least(beats_before + 2).await, id);
    check(
        control
            .run_job(&id, "remove_component", remove("two"))
            .await,
        "sidecar-two",
    );
    if let Under::FirstVersion(c) = &control {
        let agent = &c.agents()[&id];
        assert_eq!(
            agent.enrollments, 1,
            "enrolled once, restarted from its identity"
        );
        let beat = agent.last_heartbeat.as_ref().unwrap();
        assert_eq!(beat["docker_available"], docker, "{beat}");
        assert_eq!(beat["name"], "test-agent", "{beat}");
    }
    control.saw_only_version_one();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_agent_lives_its_whole_life_with_a_first_version_control() {
    lives_its_whole_life_with(Under::FirstVersion(V1Control::start(ENROLL).await), false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_life_with_our_control_on_sqlite() {
    lives_its_whole_life_with(Under::Ours(start_control_on(Db::Sqlite).await), true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_life_with_our_control_on_postgresql() {
    lives_its_whole_life_with(Under::Ours(start_control_on(Db::Postgres).await), true).await;
}

/// With Docker: the stand-in has the Agent deploy a Beacon and a sidecar
/// from the stand-in images (version-1 payloads), each reported succeeded,
/// and the heartbeats that list them pass its strict decoding.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_version_control_deploys_a_sidecar_through_our_agent() {
    if !engine_available_or_skip("a_first_version_control_deploys_a_sidecar_through_our_agent") {
        return;
    }
    let tag = tag();
    standin_images(&tag);
    let suffix = std::process::id();
    let (beacon, sidecar) = (format!("v1edge{suffix}"), format!("v1web{suffix}"));
    let (beacon_id, sidecar_id) = (format!("beacon-{beacon}"), format!("sidecar-{sidecar}"));
    let docker_network = format!("kr-test-v1-{suffix}");
    let _cleanup = Cleanup {
        components: vec![beacon_id.clone(), sidecar_id.clone()],
        network: docker_network.clone(),
    };
    docker(&["network", "create", &docker_network]);
    let control = V1Control::start(ENROLL).await;
    let data = tempfile::tempdir().unwrap();
    let _agent = docker_agent_running(&control.base, data.path(), &tag);
    let under = Under::FirstVersion(control);
    let id = under.heartbeats_at_least(1).await;
    let network = protocol::NetworkId::from_random_bytes([7; 32]).to_string();
    let (status, result) = under
        .run_job(
            &id,
            "deploy_beacon",
            json!({"name": beacon, "network_id": network,
                "beacon_url": "https://beacon.example.net",
                "advertise": format!("127.0.0.1:{}", free_port()), "http_port": free_port()}),
        )
        .await;
    assert_eq!(status, "succeeded", "{result}");
    let beacon_container = format!("kr-{beacon_id}-knotroute-1");
    docker(&["network", "connect", &docker_network, &beacon_container]);
    let (status, result) = under
        .run_job(
            &id,
            "deploy_sidecar",
            json!({"name": sidecar, "network_id": network, "target": "app:8080",
                "docker_network": docker_network,
                "beacons": [format!("http://{beacon_container}:8080")]}),
        )
        .await;
    assert_eq!(status, "succeeded", "{result}");
    assert!(
        result.contains(&format!("sidecar {sidecar} is ready as ")),
        "{result}"
    );

    // Its heartbeats list both, in version-1 shape (the stand-in refuses any other).
    let Under::FirstVersion(control) = &under else {
        unreachable!()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let beat = control.agents()[&id]
            .last_heartbeat
            .clone()
            .unwrap_or_default();
        let listed: Vec<&str> = beat["components"]
            .as_array()
            .map(|l| l.iter().filter_map(|c| c["id"].as_str()).collect())
            .unwrap_or_default();
        if listed.contains(&beacon_id.as_str()) && listed.contains(&sidecar_id.as_str()) {
            assert_eq!(beat["docker_available"], true, "{beat}");
            break;
        }
        assert!(Instant::now() < deadline, "not listed: {beat}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    for component in [&sidecar_id, &beacon_id] {
        let (status, result) = under
            .run_job(&id, "remove_component", json!({"component_id": component}))
            .await;
        assert_eq!(status, "succeeded", "{result}");
    }
    under.saw_only_version_one();
}

/// An Agent enrolled with our Control (it saw the extensions and pinned the
/// key), then pointed at a look-alike that knows its key but answers as a
/// first-version Control: it keeps sending what it sent (the look-alike
/// refuses the nonce), never a version-1 body, says why in its log, and
/// goes on running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_saw_our_extensions_does_not_drop_to_version_one() {
    let ours = start_control().await;
    let data = tempfile::tempdir().unwrap();
    let enrolled = Running(
        agent(&ours.base, data.path(), Some(ENROLL))
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let id = Under::Ours(ours).heartbeats_at_least(1).await;
    drop(enrolled);
    let stored: Value =
        serde_json::from_slice(&std::fs::read(agent::identity::path(data.path())).unwrap())
            .unwrap();
    assert!(stored["control_key"].is_string(), "{stored}");
    assert!(
        stored["control_extensions"]
            .as_str()
            .unwrap()
            .contains("nonce"),
        "{stored}"
    );

    let look_alike = V1Control::start(ENROLL).await;
    let public = agent::identity::load(data.path())
        .unwrap()
        .unwrap()
        .key
        .public_key()
        .to_wire();
    assert_eq!(look_alike.know(&public), id);
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut redirected = agent(&look_alike.base, data.path(), None);
    redirected
        .env("RUST_LOG", "info")
        .stdout(Stdio::from(log.reopen().unwrap()))
        .stderr(Stdio::null());
    let mut running = Running(redirected.spawn().unwrap());
    let deadline = Instant::now() + Duration::from_secs(20);
    while look_alike.refusals().len() < 3 {
        assert!(Instant::now() < deadline, "{:?}", look_alike.requests());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(running.0.try_wait().unwrap().is_none(), "it keeps running");
    drop(running);
    // Each request still carried what it carried with ours (its nonce, its
    // pin), which the look-alike refuses.
    for refusal in look_alike.refusals() {
        assert!(
            refusal.contains(": 400 ") && refusal.contains("unknown field"),
            "{refusal}"
        );
    }
    assert_eq!(
        look_alike.agents()[&id].heartbeats,
        0,
        "no version-1 heartbeat was sent"
    );
    let printed = std::fs::read_to_string(log.path()).unwrap();
    assert!(
        printed.contains("REFUSING to fall back to version 1"),
        "{printed}"
    );
    assert!(printed.contains("pinned Control's key"), "{printed}");
}
