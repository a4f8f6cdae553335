//! The exact Docker command lines the Agent runs for each job, against a real
//! Control. `docker` here is a STAND-IN script (tests/standin/docker) that
//! records command lines and answers like Docker would, so this runs on any
//! machine. What it proves: the commands, the stack files, the verification
//! of a Beacon's /healthz against a real HTTP server and of a sidecar's
//! `ready` line, the reasons given when a sidecar is not ready, the redaction
//! of output, and the components reported to Control. What it does not
//! prove: that Docker runs these stacks (see tests/docker_engine.rs).

mod common;

use common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// What tests/standin/docker has every sidecar announce.
const ADDRESS: &str = "qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot";

async fn finished(control: &Control, id: &str) -> Value {
    finished_job(control, id, Duration::from_secs(30)).await
}

async fn queue(control: &Control, agent_id: &str, kind: &str, payload: Value) -> String {
    queue_job(control, agent_id, kind, payload).await
}

/// Queues a sidecar `name` for `app:8080` on the Docker network `apps`,
/// announced to `beacon`; the job's ID.
async fn deploy_sidecar(
    control: &Control,
    agent_id: &str,
    name: &str,
    network: &str,
    beacon: &str,
) -> String {
    list_beacon(control, network, beacon).await;
    let payload = json!({"name": name, "network_id": network, "target": "app:8080",
        "docker_network": "apps", "beacons": [beacon]});
    queue(control, agent_id, "deploy_sidecar", payload).await
}

/// A port nothing listens on.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn compose_lines(log: &str) -> Vec<String> {
    log.lines()
        .filter(|l| l.starts_with("compose -f") || l.starts_with("restart "))
        .map(str::to_string)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jobs_run_the_documented_docker_commands_and_are_verified() {
    let control = start_control().await;
    // A real HTTP server plays the deployed Beacon's API on its host port.
    let health = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let healthy_port = health.local_addr().unwrap().port();
    tokio::spawn(async move {
        let app = axum::Router::new().route("/healthz", axum::routing::get(|| async { "ok" }));
        axum::serve(health, app).await.unwrap();
    });

    let settings = [
        ("KNOTROUTE_AGENT_SETTLE", "1s"),
        ("KNOTROUTE_AGENT_HEALTH_TIMEOUT", "2s"),
    ];
    let agent = StandinAgent::start(&control, &settings).await;
    let agent_id = agent.id.clone();
    let stacks = agent.data.path().join("stacks");
    let shown = docker_agent(&control, Duration::from_secs(1)).await;
    assert_eq!(shown["docker_version"], "28.2.2/28.2.2");
    let network = network(&control, "Commands").await;

    // A Beacon whose /healthz answers: deployed and verified.
    let id = queue(
        &control,
        &agent_id,
        "deploy_beacon",
        json!({"name": "edge",
        "network_id": network, "beacon_url": "https://beacon.example.net",
        "advertise": "beacon.example.net:7447", "http_port": healthy_port}),
    )
    .await;
    let job = finished(&control, &id).await;
    assert_eq!(job["status"], "succeeded", "{job}");
    let result = job["result"].as_str().unwrap();
    assert!(result.contains("answers /healthz"), "{result}");
    let file = stacks.join("beacon-edge/compose.yaml");
    let yaml = std::fs::read_to_string(&file).unwrap();
    assert!(yaml.contains(&format!("{healthy_port}:8080")), "{yaml}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // A Beacon whose /healthz never answers: failed, with the log tail, secrets masked.
    let id = queue(
        &control,
        &agent_id,
        "deploy_beacon",
        json!({"name": "dead",
        "network_id": network, "beacon_url": "https://dead.example.net",
        "advertise": "dead.example.net:7447", "http_port": closed_port()}),
    )
    .await;
    let job = finished(&control, &id).await;
    assert_eq!(job["status"], "failed", "{job}");
    let result = job["result"].as_str().unwrap();
    assert!(result.contains("/healthz"), "{result}");
    assert!(result.contains("does not answer"), "{result}");
    assert!(
        result.contains("log lines of kr-beacon-dead-knotroute-1"),
        "{result}"
    );
    assert!(!result.contains(ENROLL), "the token leaked: {result}");
    assert!(result.contains("[redacted]"), "{result}");

    // A sidecar that never says it is ready: failed after the health
    // timeout, naming the Beacon this host cannot reach and the target no
    // container on its network answers to.
    let beacon = format!("http://127.0.0.1:{}", closed_port());
    let id = deploy_sidecar(&control, &agent_id, "unready", &network, &beacon).await;
    let job = finished(&control, &id).await;
    assert_eq!(job["status"], "failed", "{job}");
    let result = job["result"].as_str().unwrap();
    for says in [
        "sidecar unready is not ready after 2s: ".to_string(),
        format!("Beacon {beacon} unreachable from this host (Connection refused"),
        "target app:8080 does not resolve on Docker network apps".into(),
        "it last said: \"knotroute-sidecar: Beacon unreachable".into(),
        "log lines of kr-sidecar-unready-knotroute-1".into(),
    ] {
        assert!(result.contains(&says), "{says} not in: {result}");
    }

    // A sidecar: deployed once ready, then reported with the .knot address read from its logs.
    let id = deploy_sidecar(
        &control,
        &agent_id,
        "web",
        &network,
        "https://beacon.example.net",
    )
    .await;
    let job = finished(&control, &id).await;
    assert_eq!(job["status"], "succeeded", "{job}");
    assert!(
        job["result"]
            .as_str()
            .unwrap()
            .contains(&format!("sidecar web is ready as {ADDRESS}")),
        "{job}"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let shown = control.get(&format!("/api/v1/agents/{agent_id}")).await;
        let sidecar = shown["components"]
            .as_array()
            .and_then(|l| l.iter().find(|c| c["id"] == "sidecar-web"))
            .cloned();
        if sidecar.as_ref().is_some_and(|c| c["service"] == ADDRESS) {
            assert_eq!(sidecar.unwrap()["status"], "running");
            break;
        }
        assert!(Instant::now() < deadline, "no .knot address shown: {shown}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Restart, then removal (the stack directory goes, volumes stay).
    let id = queue(
        &control,
        &agent_id,
        "restart_component",
        json!({"component_id": "sidecar-web"}),
    )
    .await;
    assert_eq!(finished(&control, &id).await["status"], "succeeded");
    let id = queue(
        &control,
        &agent_id,
        "remove_component",
        json!({"component_id": "sidecar-web"}),
    )
    .await;
    let job = finished(&control, &id).await;
    assert_eq!(job["status"], "succeeded", "{job}");
    assert!(job["result"].as_str().unwrap().contains("volume is kept"));
    assert!(!stacks.join("sidecar-web").exists());
    let id = queue(
        &control,
        &agent_id,
        "restart_component",
        json!({"component_id": "sidecar-web"}),
    )
    .await;
    let job = finished(&control, &id).await;
    assert_eq!(job["status"], "failed");
    assert!(
        job["result"].as_str().unwrap().contains("deploy it first"),
        "{job}"
    );

    let log = agent.commands();
    assert!(log.contains("compose version --short\n"), "{log}");
    assert!(log.contains("version --format {{.Client.Version}}/{{.Server.Version}}\n"));
    assert!(log.contains("ps -a -q --no-trunc --filter label=io.knotroute.managed=true\n"));
    let stack = |id: &str| stacks.join(id).join("compose.yaml").display().to_string();
    let expected = [
        format!(
            "compose -f {} -p kr-beacon-edge pull knotroute",
            stack("beacon-edge")
        ),
        format!(
            "compose -f {} -p kr-beacon-edge up -d --remove-orphans --pull missing",
            stack("beacon-edge")
        ),
        format!(
            "compose -f {} -p kr-beacon-dead pull knotroute",
            stack("beacon-dead")
        ),
        format!(
            "compose -f {} -p kr-beacon-dead up -d --remove-orphans --pull missing",
            stack("beacon-dead")
        ),
        format!(
            "compose -f {} -p kr-sidecar-unready pull knotroute",
            stack("sidecar-unready")
        ),
        format!(
            "compose -f {} -p kr-sidecar-unready up -d --remove-orphans --pull missing",
            stack("sidecar-unready")
        ),
        format!(
            "compose -f {} -p kr-sidecar-web pull knotroute",
            stack("sidecar-web")
        ),
        format!(
            "compose -f {} -p kr-sidecar-web up -d --remove-orphans --pull missing",
            stack("sidecar-web")
        ),
        "restart c-sidecar-web".to_string(),
        format!("compose -f {} -p kr-sidecar-web down", stack("sidecar-web")),
    ];
    assert_eq!(compose_lines(&log), expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_go_on_while_a_slow_pull_runs() {
    let control = start_control().await;
    let agent = StandinAgent::start(
        &control,
        &[
            ("STANDIN_PULL_SECONDS", "6"),
            ("KNOTROUTE_AGENT_SETTLE", "0s"),
        ],
    )
    .await;
    let agent_id = agent.id.clone();
    let network = network(&control, "Slow pull").await;
    let id = deploy_sidecar(
        &control,
        &agent_id,
        "slow",
        &network,
        "https://beacon.example.net",
    )
    .await;
    // Wait until the pull is under way, then watch heartbeats arrive during it.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !agent.commands().contains("kr-sidecar-slow pull") {
        assert!(Instant::now() < deadline, "the pull never started");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let during_pull = last_heartbeat(&control.admin, &control.base).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let job = control.get(&format!("/api/v1/jobs/{id}")).await;
    assert_eq!(job["status"], "running", "the pull should still run: {job}");
    assert_ne!(
        last_heartbeat(&control.admin, &control.base).await,
        during_pull,
        "no heartbeat while the job ran"
    );
    assert_eq!(finished(&control, &id).await["status"], "succeeded");
}

/// KNOTROUTE_AGENT_PULL=missing: an image on the host already is not pulled,
/// and the pull stage says so; one the host lacks is pulled before `up`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_pull_missing_only_an_image_the_host_lacks_is_pulled() {
    let control = start_control().await;
    let agent = StandinAgent::start(
        &control,
        &[
            ("KNOTROUTE_AGENT_PULL", "missing"),
            ("KNOTROUTE_AGENT_IMAGE_TAG", "1.0.0"),
            ("KNOTROUTE_AGENT_SETTLE", "0s"),
        ],
    )
    .await;
    let present = "ghcr.io/localzet/knotroute-sidecar:1.0.0";
    std::fs::write(agent.standin.path().join("images"), format!("{present}\n")).unwrap();
    let network = network(&control, "Pull missing").await;
    let beacon = "https://beacon.example.net";

    let id = deploy_sidecar(&control, &agent.id, "here", &network, beacon).await;
    let job = finished(&control, &id).await;
    assert_eq!(job["status"], "succeeded", "{job}");
    let pull = &job["stages"][2];
    assert_eq!(pull["name"], "pull", "{job}");
    assert!(!agent.commands().contains("kr-sidecar-here pull"));
    let log = control.get(&format!("/api/v1/jobs/{id}/log")).await;
    assert!(
        log.to_string()
            .contains(&format!("{present}: on this host already, not pulled")),
        "{log}"
    );

    // Another version, not on the host: pulled.
    let payload = json!({"name": "there", "network_id": network, "target": "app:8080",
        "docker_network": "apps", "beacons": [beacon],
        "image": "ghcr.io/localzet/knotroute-sidecar:1.2.3"});
    let id = queue(&control, &agent.id, "deploy_sidecar", payload).await;
    assert_eq!(finished(&control, &id).await["status"], "succeeded");
    let commands = agent.commands();
    assert!(
        commands
            .contains("image inspect --format {{.Id}} ghcr.io/localzet/knotroute-sidecar:1.2.3"),
        "{commands}"
    );
    let pulled = commands
        .find("kr-sidecar-there pull")
        .expect("the missing image was pulled");
    let up = commands.find("kr-sidecar-there up").unwrap();
    assert!(pulled < up, "{commands}");
    // The live log has each layer's end and the image's summary, not the
    // steps in between (the stand-in prints Compose v2's lines).
    let log = control
        .get(&format!("/api/v1/jobs/{id}/log"))
        .await
        .to_string();
    assert!(
        log.contains("knotroute-sidecar:1.2.3: pulled, 2 layers: 1 downloaded (2.5 MB), 1 already on this host"),
        "{log}"
    );
    assert!(log.contains("5f4e3d2c1b0a Pull complete"), "{log}");
    assert!(!log.contains("Pulling fs layer"), "{log}");
    assert!(!log.contains("Downloading"), "{log}");
}
