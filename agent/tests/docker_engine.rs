//! Real Docker: where this machine has a Docker engine, the Agent deploys a
//! Beacon and a sidecar from the STAND-IN images (scripts/standin-images.sh;
//! no registry is reachable, so the pull policy is `missing`), each deploy
//! succeeding only once it works: the Beacon answers /healthz on its host
//! port, the sidecar says it is ready after reaching that Beacon. Control
//! shows the sidecar's 56-character `.knot` address, which survives the
//! container's removal because its identity is in the kept volume; a sidecar
//! whose Beacon is unreachable fails, and its job says which Beacon. Where no
//! engine answers, the test says so and skips (never under CI=true).

mod common;

use common::docker::*;
use common::*;
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beacons_and_sidecars_run_in_real_docker() {
    if !engine_available_or_skip("beacons_and_sidecars_run_in_real_docker") {
        return;
    }
    let tag = tag();
    standin_images(&tag);
    let suffix = std::process::id();
    let beacon = format!("edge{suffix}");
    let sidecar = format!("web{suffix}");
    let unready = format!("lost{suffix}");
    let (beacon_id, sidecar_id, unready_id) = (
        format!("beacon-{beacon}"),
        format!("sidecar-{sidecar}"),
        format!("sidecar-{unready}"),
    );
    let docker_network = format!("kr-test-apps-{suffix}");
    // Dropped after the Agent (declared before it).
    let _cleanup = Cleanup {
        components: vec![beacon_id.clone(), sidecar_id.clone(), unready_id.clone()],
        network: docker_network.clone(),
    };
    docker(&["network", "create", &docker_network]);
    let control = start_control().await;
    let (_agent, agent_id) = start_docker_agent(&control, &tag).await;
    let network = network(&control, "Engine").await;

    // The Beacon: done once /healthz answers on its host port.
    let http_port = free_port();
    let advertise = format!("127.0.0.1:{}", free_port());
    let result = run_job(
        &control,
        &agent_id,
        "deploy_beacon",
        json!({"name": beacon,
        "network_id": network, "beacon_url": "https://beacon.example.net",
        "advertise": advertise, "http_port": http_port}),
    )
    .await;
    assert!(result.contains("answers /healthz"), "{result}");
    let health: Value = reqwest::get(format!("http://127.0.0.1:{http_port}/healthz"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["standin"], true, "{health}");
    assert_eq!(health["relay_advertise"], advertise.as_str(), "{health}");
    let shown = component(&control, &agent_id, &beacon_id).await.unwrap();
    assert_eq!(shown["status"], "running", "{shown}");

    // The sidecar reaches the Beacon by its container name, as an admin
    // would put both on one Docker network (containers cannot reach the
    // host's loopback).
    let beacon_container = format!("kr-{beacon_id}-knotroute-1");
    docker(&["network", "connect", &docker_network, &beacon_container]);
    list_beacon(
        &control,
        &network,
        &format!("http://{beacon_container}:8080"),
    )
    .await;
    let deploy_sidecar = json!({"name": sidecar,
        "network_id": network, "target": "app:8080", "docker_network": docker_network,
        "beacons": [format!("http://{beacon_container}:8080")]});
    let result = run_job(
        &control,
        &agent_id,
        "deploy_sidecar",
        deploy_sidecar.clone(),
    )
    .await;
    assert!(
        result.contains(&format!("sidecar {sidecar} is ready as ")),
        "{result}"
    );
    let address = shown_address(&control, &agent_id, &sidecar_id).await;
    assert!(is_knot_address(&address), "{address}");
    assert!(result.contains(&address), "{result}");

    // Its container gone, the redeployed sidecar keeps the address: the identity is in the volume.
    docker(&["rm", "-f", &format!("kr-{sidecar_id}-knotroute-1")]);
    let result = run_job(&control, &agent_id, "deploy_sidecar", deploy_sidecar).await;
    assert!(
        result.contains(&format!("is ready as {address}")),
        "{result}"
    );
    assert_eq!(
        shown_address(&control, &agent_id, &sidecar_id).await,
        address
    );
    // A restart counts only the ready line of the new start.
    let result = run_job(
        &control,
        &agent_id,
        "restart_component",
        json!({"component_id": sidecar_id}),
    )
    .await;
    assert!(
        result.contains(&format!("is ready as {address}")),
        "{result}"
    );
    // Read from each start's own lines, the address is the same before and after.
    assert!(
        result.contains(&format!(
            "the identity survived the restart: {address} before and after"
        )),
        "{result}"
    );

    // A sidecar whose Beacon nothing answers: failed after the health timeout, naming it.
    let lost = format!("http://127.0.0.1:{}", free_port());
    list_beacon(&control, &network, &lost).await;
    let id = queue_job(
        &control,
        &agent_id,
        "deploy_sidecar",
        json!({"name": unready,
        "network_id": network, "target": "app:8080", "docker_network": docker_network,
        "beacons": [lost]}),
    )
    .await;
    let job = finished_job(&control, &id, Duration::from_secs(120)).await;
    assert_eq!(job["status"], "failed", "{job}");
    let error = job["result"].as_str().unwrap();
    let reason = error.lines().last().unwrap();
    eprintln!("a sidecar without its Beacon fails with: {reason}");
    assert!(
        reason.starts_with(&format!("sidecar {unready} is not ready after 5s: ")),
        "{error}"
    );
    assert!(
        reason.contains(&format!("Beacon {lost} unreachable from this host")),
        "{error}"
    );
    assert!(
        reason.contains(&format!(
            "target app:8080 does not resolve on Docker network {docker_network}"
        )),
        "{error}"
    );

    for id in [&unready_id, &sidecar_id, &beacon_id] {
        run_job(
            &control,
            &agent_id,
            "remove_component",
            json!({"component_id": id}),
        )
        .await;
    }
    let left = docker(&[
        "ps",
        "-a",
        "-q",
        "--filter",
        &format!("label=io.knotroute.component-id={beacon_id}"),
    ]);
    assert!(left.trim().is_empty(), "containers left: {left}");
    // Volumes survive removal (a sidecar's identity lives there); Cleanup removes them.
    let volumes = docker(&[
        "volume",
        "ls",
        "-q",
        "--filter",
        &format!("label=com.docker.compose.project=kr-{sidecar_id}"),
    ]);
    assert!(
        !volumes.trim().is_empty(),
        "the sidecar's volume was removed"
    );
}

/// A registry on loopback: Debian's `docker-registry` (the Distribution
/// registry), storing in a temporary folder; stopped when dropped.
struct Registry {
    address: String,
    _process: Running,
    _storage: tempfile::TempDir,
}

impl Registry {
    /// None where the program is missing (scripts/docker-engine.sh installs it).
    fn start() -> Option<Self> {
        let storage = tempfile::tempdir().unwrap();
        let address = format!("127.0.0.1:{}", free_port());
        let config = storage.path().join("config.yml");
        std::fs::write(
            &config,
            format!(
                "version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: {address}\n",
                storage.path().join("data").display()
            ),
        )
        .unwrap();
        let process = Command::new("docker-registry")
            .arg("serve")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let registry = Self {
            address,
            _process: Running(process),
            _storage: storage,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(&registry.address).is_err() {
            assert!(Instant::now() < deadline, "the registry never listened");
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(registry)
    }
}

/// A real pull: the image is in a registry (on loopback; the engine trusts
/// one there without TLS) and not on the host. It is the stand-in Beacon
/// plus one layer of its own, so the pull downloads that layer and finds
/// the others on the host, and the pull stage's live lines sum it up per
/// layer, from what Compose printed. Control accepts only the official
/// repository in a job, so this drives the Agent's deploy directly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_the_host_lacks_is_pulled_and_its_layers_summed_up() {
    use agent::workload::Workloads;
    use agent::{config::Settings, progress::Journal, redact::Secrets};
    use clap::Parser;
    use protocol::jobs::{DeployBeacon, JobPayload};

    if !engine_available_or_skip("an_image_the_host_lacks_is_pulled_and_its_layers_summed_up") {
        return;
    }
    let Some(registry) = Registry::start() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "docker-registry is missing (scripts/docker-engine.sh installs it)"
        );
        eprintln!(
            "SKIPPED: docker-registry is not installed (scripts/docker-engine.sh installs it)"
        );
        return;
    };
    let tag = tag();
    standin_images(&tag);
    let suffix = std::process::id();
    let image = format!("{}/knotroute-beacon:pulled-{suffix}", registry.address);
    let context = tempfile::tempdir().unwrap();
    std::fs::write(
        context.path().join("Dockerfile"),
        format!("FROM ghcr.io/localzet/knotroute-beacon:{tag}\nCOPY marker /marker\n"),
    )
    .unwrap();
    // A layer nothing else on the host has (100 kB that do not compress),
    // gone from the host once pushed.
    let marker: Vec<u8> = (0..100_000).map(|_| rand::random::<u8>()).collect();
    std::fs::write(context.path().join("marker"), marker).unwrap();
    docker(&[
        "build",
        "-q",
        "-t",
        &image,
        &context.path().display().to_string(),
    ]);
    docker(&["push", &image]);
    docker(&["rmi", &image]);

    let name = format!("pulled{suffix}");
    let _cleanup = Cleanup {
        components: vec![format!("beacon-{name}")],
        network: format!("kr-test-none-{suffix}"),
    };
    let data = tempfile::tempdir().unwrap();
    let settings = Settings::try_parse_from([
        "knotroute-agent",
        "--control-url=http://127.0.0.1:9",
        &format!("--data={}", data.path().display()),
        "--docker=true",
        "--pull=missing",
        "--settle=1s",
        "--health-timeout=10s",
        "--publish-address=127.0.0.1",
    ])
    .unwrap();
    let workloads = Workloads::new(&settings.validate().unwrap(), Secrets::new([]));
    let journal = Journal::new(Secrets::new([]));
    let deploy = JobPayload::DeployBeacon(DeployBeacon {
        name: name.clone(),
        network_id: protocol::NetworkId::from_random_bytes([9; 32]),
        beacon_url: "https://beacon.example.net".into(),
        advertise: format!("127.0.0.1:{}", free_port()),
        http_port: free_port(),
        image: Some(image.clone()),
    });
    let result = workloads.run(&deploy, &journal).await;
    let pull: Vec<String> = journal
        .take()
        .into_iter()
        .filter(|stage| stage.name == "pull")
        .flat_map(|stage| stage.lines)
        .collect();
    eprintln!("the pull stage's live lines: {pull:#?}");
    assert!(result.is_ok(), "{result:?}");
    let summary = pull
        .iter()
        .find(|line| line.starts_with(&format!("{image}: pulled, ")))
        .unwrap_or_else(|| panic!("no summary of the pull: {pull:#?}"));
    // Its own layer downloaded; the stand-in's layers found on the host.
    assert!(summary.contains(" layers: 1 downloaded (100."), "{summary}");
    assert!(summary.contains(" kB), "), "{summary}");
    assert!(summary.ends_with(" already on this host"), "{summary}");
    assert!(
        pull.iter().any(|l| l.trim().ends_with("Pull complete")),
        "{pull:#?}"
    );
    assert!(
        pull.iter().any(|l| l.trim().ends_with("Already exists")),
        "{pull:#?}"
    );
    assert!(!pull.iter().any(|l| l.contains("Downloading")), "{pull:#?}");
    assert!(
        !pull.iter().any(|l| l.contains("Pulling fs layer")),
        "{pull:#?}"
    );

    let remove = JobPayload::RemoveComponent {
        component_id: format!("beacon-{name}"),
    };
    assert!(workloads.run(&remove, &journal).await.is_ok());
    let _ = Command::new("docker").args(["rmi", &image]).output();
}
