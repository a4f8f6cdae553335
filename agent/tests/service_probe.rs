//! Real Docker: the end-to-end probe of an Agent running on the host. The
//! Agent brings up the (stand-in) KnotRoute node with Compose, finds the
//! port Docker published its HTTP proxy on (the host's 127.0.0.1 only), and
//! opens the address through it. Here no Beacon answers, so the node's
//! proxy says it cannot reach the address: the probe stops at the overlay,
//! and Control keeps that run. The node is the Agent's tool, not a
//! component: heartbeats do not report it, and `remove_component` takes it
//! away like one, also when the Agent lost its stack file. A whole pass,
//! through a Beacon's relay to a sidecar's target, is
//! end2end/tests/containers.rs (an Agent in a container). Where no engine answers, the test skips (never under CI).

mod common;

use common::docker::*;
use common::*;
use serde_json::{json, Value};
use std::time::Duration;

const ADDRESS: &str = "umuxz2vrqhhpnmzqk5ycspnwjcgwjjljnngqghfxbar6lw5ar626lwyb.knot";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_probe_starts_a_node_on_the_host_loopback_and_says_where_it_stopped() {
    if !engine_available_or_skip("service probe") {
        return;
    }
    let tag = tag();
    standin_images(&tag);
    let suffix = std::process::id();
    let service = format!("probed{suffix}");
    let _cleanup = Cleanup {
        components: vec![format!("probe-{service}")],
        network: format!("kr-test-apps-{suffix}q"),
    };
    let control = start_control().await;
    let created = control
        .post(
            "/api/v1/networks",
            &json!({"name": "Probed", "beacons": ["https://beacon.example.net"]}),
        )
        .await;
    assert_eq!(created.status(), 201);
    let network = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let ((_agent, data), agent_id) = start_docker_agent(&control, &tag).await;

    // A Beacon URL nothing listens on: the node runs, the overlay does not.
    let nobody = format!("http://127.0.0.1:{}", free_port());
    list_beacon(&control, &network, &nobody).await;
    let probe = json!({"network_id": network, "service": service, "address": ADDRESS,
                       "beacons": [nobody]});
    let id = queue_job(&control, &agent_id, "probe_service", probe.clone()).await;
    let job = finished_job(&control, &id, Duration::from_secs(180)).await;
    assert_eq!(job["status"], "failed", "{job}");
    let result = job["result"].as_str().unwrap();
    assert!(result.contains(&format!("http://{ADDRESS}/")), "{result}");
    assert!(
        result.contains("HTTP 502"),
        "the node's proxy answered: {result}"
    );
    assert!(result.contains("the probe stopped at: overlay"), "{result}");

    // The proxy is published on the host's loopback only.
    let project = format!("label=com.docker.compose.project=kr-probe-{service}");
    let node = docker(&["ps", "-q", "--filter", &project]);
    let node = node.trim();
    assert!(
        !node.is_empty(),
        "the node keeps running for the next probe"
    );
    let published = docker(&["port", node, "8118/tcp"]);
    assert!(
        published
            .lines()
            .all(|l| l.trim().starts_with("127.0.0.1:")),
        "{published}"
    );
    let image = docker(&["inspect", "--format", "{{.Config.Image}}", node]);
    assert_eq!(image.trim(), format!("ghcr.io/localzet/knotroute:{tag}"));

    // Control kept the run; the node is not one of the Agent's components.
    let view: Value = control
        .get(&format!("/api/v1/networks/{network}/probe"))
        .await;
    let run = &view["runs"][0];
    assert_eq!(
        (run["ok"].as_bool(), run["stage"].as_str()),
        (Some(false), Some("overlay")),
        "{view}"
    );
    let agent = control.get(&format!("/api/v1/agents/{agent_id}")).await;
    let components = agent["components"].as_array().cloned().unwrap_or_default();
    assert!(
        components
            .iter()
            .all(|c| !c["id"].as_str().unwrap_or("").contains("probe")),
        "{agent}"
    );

    // Once no probe wants it, Control has the Agent remove the node with
    // the job that removes any component (server/tests/service_probes.rs
    // shows when it is queued): the container goes.
    let id = queue_job(
        &control,
        &agent_id,
        "remove_component",
        json!({"component_id": format!("probe-{service}")}),
    )
    .await;
    let job = finished_job(&control, &id, Duration::from_secs(120)).await;
    assert_eq!(job["status"], "succeeded", "{job}");
    assert!(
        docker(&["ps", "-aq", "--filter", &project])
            .trim()
            .is_empty(),
        "the node is removed"
    );
    let stack = data.path().join("stacks").join(format!("probe-{service}"));
    assert!(!stack.exists(), "its stack directory goes with it");
    assert!(
        !docker(&["volume", "ls", "-q", "--filter", &project])
            .trim()
            .is_empty(),
        "its identity volume is kept"
    );

    // An Agent that lost the node's stack file (a new data directory)
    // still finds the node by its Compose project and removes it.
    let id = queue_job(&control, &agent_id, "probe_service", probe).await;
    finished_job(&control, &id, Duration::from_secs(180)).await;
    assert!(!docker(&["ps", "-q", "--filter", &project])
        .trim()
        .is_empty());
    std::fs::remove_dir_all(&stack).unwrap();
    let id = queue_job(
        &control,
        &agent_id,
        "remove_component",
        json!({"component_id": format!("probe-{service}")}),
    )
    .await;
    let job = finished_job(&control, &id, Duration::from_secs(120)).await;
    assert_eq!(job["status"], "succeeded", "{job}");
    assert!(
        job["result"]
            .as_str()
            .unwrap()
            .contains(&format!("removed probe-{service}")),
        "{job}"
    );
    assert!(
        docker(&["ps", "-aq", "--filter", &project])
            .trim()
            .is_empty(),
        "the node is removed without its stack file"
    );
}
