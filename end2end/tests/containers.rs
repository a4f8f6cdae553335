//! The whole Control → Agent → container loop on a real Docker engine: Control
//! and the Agent run from the images scripts/images.sh built, brought up with
//! the shipped compose files; the Agent has the socket, enrolls with an install
//! token and deploys the stand-in Beacon and sidecar images. Timings this test
//! prints as `[bench]` lines are the ones BENCHMARKS.md quotes.

mod common;

use common::containers::{docker, Db, Loop};
use common::free_port;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// `<56 lowercase base32>.knot`, the sidecar's address shape.
fn is_knot_address(s: &str) -> bool {
    s.strip_suffix(".knot").is_some_and(|a| {
        a.len() == 56
            && a.bytes()
                .all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b))
    })
}

async fn http_status(url: &str) -> Option<u16> {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(3))
        .build()
        .unwrap()
        .get(url)
        .send()
        .await
        .ok()
        .map(|r| r.status().as_u16())
}

fn image_user(image: &str) -> String {
    docker(&["image", "inspect", "--format", "{{.Config.User}}", image])
}

/// What a deployed Beacon and sidecar are, as the loop uses them.
struct Deployed {
    beacon_id: String,
    beacon_url: String,
    sidecar_id: String,
    address: String,
}

/// Deploys a Beacon through the API, adds it to the network profile and
/// checks it from Control; its component ID and URL.
async fn deploy_beacon(lp: &Loop, agent_id: &str) -> (String, String) {
    let (http_port, relay_port) = (free_port(), free_port());
    let beacon_url = format!("http://{}:{http_port}", lp.gateway);
    let name = format!("edge{}", lp.suffix);
    let queued = Instant::now();
    let job = lp
        .run_job(
            agent_id,
            "deploy_beacon",
            json!({"name": name, "network_id": lp.network_id, "beacon_url": beacon_url,
                   "advertise": format!("{}:{relay_port}", lp.gateway), "http_port": http_port}),
        )
        .await;
    assert_eq!(job["status"], "succeeded", "{job}");
    eprintln!(
        "[bench] Beacon: queued to verified healthy in {:?}",
        queued.elapsed()
    );
    assert_eq!(
        http_status(&format!("{beacon_url}/healthz")).await,
        Some(200)
    );

    // A managed Beacon joins its network profile; Control's check of it is ok.
    let profile = lp.get(&format!("/api/v1/networks/{}", lp.network_id)).await;
    assert!(
        profile["beacons"].to_string().contains(&beacon_url),
        "{profile}"
    );
    let (status, check) = lp
        .post(
            "/api/v1/beacons/check",
            json!({"network_id": lp.network_id, "url": beacon_url}),
        )
        .await;
    assert_eq!(status, 200, "{check}");
    assert_eq!(check["ok"], true, "{check}");
    (format!("beacon-{name}"), beacon_url)
}

/// A container on the user-defined test network for a sidecar to publish;
/// its `host:port`.
fn start_target(lp: &Loop) -> String {
    let target = format!("app-{}", lp.suffix);
    docker(&[
        "run",
        "-d",
        "--name",
        &target,
        "--network",
        &lp.network,
        "--label",
        &format!("io.knotroute.test={}", lp.suffix),
        "-e",
        &format!("KNOTROUTE_NETWORK_ID={}", lp.network_id),
        &format!(
            "{}:{}",
            protocol::jobs::BEACON_IMAGE,
            common::containers::STANDIN_TAG
        ),
    ]);
    format!("{target}:8080")
}

/// Deploys a Beacon and publishes a sidecar for a target container; checks
/// Control sees both working. Prints the deploy-to-healthy timings.
async fn deploy_both(lp: &Loop, agent_id: &str) -> Deployed {
    let (beacon_id, beacon_url) = deploy_beacon(lp, agent_id).await;
    let target = start_target(lp);
    let service = format!("web{}", lp.suffix);
    let queued = Instant::now();
    let job = lp
        .run_job(
            agent_id,
            "deploy_sidecar",
            json!({"name": service, "network_id": lp.network_id,
                   "target": target, "docker_network": lp.network,
                   "beacons": [beacon_url]}),
        )
        .await;
    assert_eq!(job["status"], "succeeded", "{job}");
    eprintln!("[bench] sidecar: queued to ready in {:?}", queued.elapsed());
    let sidecar_id = format!("sidecar-{service}");
    let shown = lp
        .wait_component(
            agent_id,
            &sidecar_id,
            Duration::from_secs(30),
            "a .knot address",
            |c| is_knot_address(c["service"].as_str().unwrap_or("")),
        )
        .await;
    Deployed {
        beacon_id,
        beacon_url,
        sidecar_id,
        address: shown["service"].as_str().unwrap().to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_and_agent_containers_deploy_and_keep_a_beacon_and_a_sidecar_running() {
    let Some(mut lp) = Loop::start(Db::Sqlite).await else {
        return;
    };
    // Unprivileged, and Control has no Docker socket.
    for image in ["knotroute-control:local", "knotroute-agent:local"] {
        assert_eq!(image_user(image), "knotroute", "{image}");
    }
    let control = lp.control.container("control");
    assert_eq!(docker(&["exec", &control, "id", "-u"]), "10001");
    let mounts = docker(&["inspect", "--format", "{{json .Mounts}}", &control]);
    assert!(!mounts.contains("docker.sock"), "{mounts}");
    assert_eq!(lp.control.health("control"), "healthy");

    let agent_id = lp.start_agent().await;
    assert_eq!(lp.agent().health("knotroute-agent"), "healthy");
    let d = deploy_both(&lp, &agent_id).await;

    // Restart both; the sidecar's identity survives, and Control knows it.
    for id in [&d.beacon_id, &d.sidecar_id] {
        let job = lp
            .run_job(&agent_id, "restart_component", json!({"component_id": id}))
            .await;
        assert_eq!(job["status"], "succeeded", "{job}");
    }
    let checklist = lp
        .get(&format!("/api/v1/networks/{}/setup", lp.network_id))
        .await;
    let kept = checklist["bootstrap"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["criterion"] == "identity_survives_restart")
        .unwrap();
    assert_eq!(kept["knowledge"], "proven", "{kept}");
    assert!(
        kept["detail"].as_str().unwrap().contains(&d.address),
        "{kept}"
    );

    // A killed Beacon is redeployed by reconciliation (handbook, Features: once the last
    // deployment settled, 60 s, plus a heartbeat and the deploy itself).
    let killed = Instant::now();
    docker(&["kill", &lp.deployed(&d.beacon_id)]);
    let deadline = killed + Duration::from_secs(150);
    loop {
        if !lp.deployed(&d.beacon_id).is_empty()
            && http_status(&format!("{}/healthz", d.beacon_url)).await == Some(200)
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the killed Beacon was not redeployed"
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    eprintln!(
        "[bench] killed Beacon serving again after {:?}",
        killed.elapsed()
    );

    // A removed sidecar comes back with the same address (its /data volume is kept).
    let removed = Instant::now();
    docker(&["rm", "-f", &lp.deployed(&d.sidecar_id)]);
    let deadline = removed + Duration::from_secs(150);
    loop {
        let container = lp.deployed(&d.sidecar_id);
        if !container.is_empty() {
            let logs = docker(&["logs", &container]);
            if logs.contains(" ready as ") {
                assert!(logs.contains(&d.address), "a new address: {logs}");
                break;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the removed sidecar did not come back"
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    eprintln!(
        "[bench] removed sidecar ready again after {:?}",
        removed.elapsed()
    );
    lp.wait_component(
        &agent_id,
        &d.sidecar_id,
        Duration::from_secs(30),
        "the same address",
        |c| c["service"] == d.address.as_str() && c["status"] == "running",
    )
    .await;

    // Control stopped: the data plane keeps serving.
    let before_stop = lp.get(&format!("/api/v1/agents/{agent_id}")).await;
    lp.control.run(&["stop", "-t", "5"]);
    for _ in 0..3 {
        assert_eq!(
            http_status(&format!("{}/healthz", d.beacon_url)).await,
            Some(200)
        );
        let running = docker(&[
            "inspect",
            "--format",
            "{{.State.Running}}",
            &lp.deployed(&d.sidecar_id),
        ]);
        assert_eq!(running, "true");
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    let restarted = Instant::now();
    lp.control.run(&["start"]);
    lp.wait_ready(Duration::from_secs(60)).await;
    eprintln!(
        "[bench] Control ready again after {:?}",
        restarted.elapsed()
    );
    // Reconnected: a heartbeat newer than any from before the stop.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let agent = lp.get(&format!("/api/v1/agents/{agent_id}")).await;
        if agent["last_heartbeat_at"] != before_stop["last_heartbeat_at"] {
            assert_eq!(agent["status"], "online", "{agent}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the Agent did not reconnect: {agent}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    eprintln!(
        "[bench] Control started again: first heartbeat after {:?} (poll 2 s)",
        restarted.elapsed()
    );

    // The Agent recreated on the same /data keeps its identity.
    lp.agent().run(&[
        "up",
        "-d",
        "--no-build",
        "--force-recreate",
        "--wait",
        "--wait-timeout",
        "120",
    ]);
    let agents = lp.get("/api/v1/agents").await;
    assert_eq!(agents.as_array().unwrap().len(), 1, "{agents}");
    assert_eq!(
        lp.online_agent(Duration::from_secs(60)).await["id"],
        agent_id.as_str()
    );

    // Disabled, then revoked, while its containers run: nothing stops.
    for action in ["disable", "revoke"] {
        let (status, body) = lp
            .post(&format!("/api/v1/agents/{agent_id}/{action}"), json!({}))
            .await;
        assert_eq!(status, 200, "{action}: {body}");
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert_eq!(
            http_status(&format!("{}/healthz", d.beacon_url)).await,
            Some(200)
        );
        assert!(
            !lp.deployed(&d.sidecar_id).is_empty(),
            "sidecar stopped on {action}"
        );
    }

    // A new volume is a new identity: it must enroll again (the used token
    // opens nothing; a new one does), and then tidies up what the old one left.
    let old_agent = lp.agent.take().unwrap();
    drop(old_agent); // down -v: the identity is gone with the volume
    let new_id = lp.start_agent().await;
    assert_ne!(new_id, agent_id);
    for id in [&d.sidecar_id, &d.beacon_id] {
        lp.wait_component(&new_id, id, Duration::from_secs(30), "a leftover", |_| true)
            .await;
        let job = lp
            .run_job(&new_id, "remove_component", json!({"component_id": id}))
            .await;
        assert_eq!(job["status"], "succeeded", "{job}");
        assert!(lp.deployed(id).is_empty(), "{id} still runs");
    }
    let _: Value = lp.get("/api/v1/audit").await;
}

/// The end-to-end probe with the real Agent: it starts the (stand-in) node
/// container in its own network and opens the sidecar's address through
/// the node's HTTP proxy, across the stand-in Beacon's relay to the target
/// container. A one-host network, so the checklist warns that the probe
/// runs on the service's host. With the Beacon frozen, the probe stops at
/// the overlay.
async fn probe_through_a_node(lp: &Loop, agent_id: &str, d: &Deployed) {
    let service = d.sidecar_id.trim_start_matches("sidecar-").to_string();
    let path = format!("/api/v1/networks/{}/probe", lp.network_id);
    let probe = || async {
        let (status, saved) = lp
            .put(&path, json!({"service": service, "agent_id": agent_id}))
            .await;
        assert_eq!(status, 200, "{saved}");
        let jobs = lp.get("/api/v1/jobs?kind=probe_service").await;
        let list = jobs["items"]
            .as_array()
            .or(jobs.as_array())
            .cloned()
            .unwrap_or_default();
        let job_id = list[0]["id"]
            .as_str()
            .expect("the probe is queued at once")
            .to_string();
        lp.finished_job(&job_id, Duration::from_secs(180)).await
    };
    let started = Instant::now();
    let job = probe().await;
    assert_eq!(job["status"], "succeeded", "{job}");
    eprintln!(
        "[bench] first probe (node start included) in {:?}",
        started.elapsed()
    );
    assert!(
        job["result"]
            .as_str()
            .unwrap()
            .contains(&format!("http://{}/", d.address)),
        "{job}"
    );
    let view = lp.get(&path).await;
    assert_eq!(view["runs"][0]["ok"], true, "{view}");
    let checklist = lp
        .get(&format!("/api/v1/networks/{}/setup", lp.network_id))
        .await;
    let monitoring = checklist["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == "monitoring")
        .unwrap();
    assert_eq!(monitoring["state"], "done", "{monitoring}");
    assert!(
        monitoring["warning"]
            .as_str()
            .unwrap_or("")
            .contains("own host"),
        "{monitoring}"
    );
    let http = checklist["bootstrap"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["criterion"] == "http_over_overlay")
        .unwrap();
    assert_eq!(http["knowledge"], "proven", "{http}");

    // The Beacon frozen (paused, which reconciliation leaves alone): the
    // node finds no relay, so the probe stops at the overlay.
    let beacon = lp.deployed(&d.beacon_id);
    docker(&["pause", &beacon]);
    let job = probe().await;
    docker(&["unpause", &beacon]);
    assert_eq!(job["status"], "failed", "{job}");
    let view = lp.get(&path).await;
    assert_eq!(
        (
            view["runs"][0]["ok"].as_bool(),
            view["runs"][0]["stage"].as_str()
        ),
        (Some(false), Some("overlay")),
        "{view}"
    );
    docker(&[
        "compose",
        "-p",
        &format!("kr-probe-{service}"),
        "down",
        "-v",
        "-t",
        "2",
    ]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_on_postgresql_from_its_image_deploys_through_an_agent_container() {
    let Some(mut lp) = Loop::start(Db::Postgres).await else {
        return;
    };
    assert_eq!(lp.control.health("control"), "healthy");
    assert_eq!(lp.control.health("postgres"), "healthy");
    let agent_id = lp.start_agent().await;
    let d = deploy_both(&lp, &agent_id).await;
    probe_through_a_node(&lp, &agent_id, &d).await;
    // Control restarted on the same database: everything is still there.
    lp.control.run(&["restart", "-t", "5", "control"]);
    lp.wait_ready(Duration::from_secs(60)).await;
    let back = lp.online_agent(Duration::from_secs(90)).await;
    assert_eq!(back["id"], agent_id.as_str());
    let shown = lp.component(&agent_id, &d.sidecar_id).await.unwrap();
    assert_eq!(shown["service"], d.address.as_str());
    for id in [&d.sidecar_id, &d.beacon_id] {
        let job = lp
            .run_job(&agent_id, "remove_component", json!({"component_id": id}))
            .await;
        assert_eq!(job["status"], "succeeded", "{job}");
    }
}

/// The same loop in Chromium: the admin publishes a service through the form
/// for the real Agent container, sees its `.knot` address, and removes it.
/// Chromium aborts requests when it sees the machine's network change, which
/// Docker causes whenever a container's interface comes or goes; the
/// browser helpers then reload the page once (common::Browsing::reload).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_publishes_a_service_that_a_real_agent_deploys_and_sees_its_address() {
    use playwright_rs::expect;
    let Some(mut lp) = Loop::start(Db::Sqlite).await else {
        return;
    };
    let agent_id = lp.start_agent().await;
    let (beacon_id, beacon_url) = deploy_beacon(&lp, &agent_id).await;
    let target = start_target(&lp);
    let service = format!("shop{}", lp.suffix);

    let b = common::open_browser("containers", 1280, 900, "en-US").await;
    let page = &b.page;
    b.sign_in(&lp.base).await;
    b.goto(&format!("{}/services", lp.base)).await;
    b.open_form("#open-publish", "#service-agent").await;
    b.select("#service-agent", agent_id.as_str()).await;
    b.select("#service-network", lp.network_id.as_str()).await;
    expect(page.locator("#service-beacons"))
        .with_timeout(Duration::from_secs(10))
        .to_contain_text(beacon_url.as_str())
        .await
        .unwrap();
    b.fill("#service-name", &service).await;
    b.fill("#service-target", &target).await;
    b.fill("#service-docker-network", &lp.network).await;
    // The Beacon holds still for a while (paused, which reconciliation
    // leaves alone): the sidecar finds no introduction point, so its health
    // stage is still waiting when the page looks.
    let beacon_container = format!("kr-{beacon_id}-knotroute-1");
    docker(&["pause", &beacon_container]);
    page.locator("#publish-submit").click(None).await.unwrap();
    b.wait_visible("#service-queued").await;

    // The deploy's page shows each stage while the job runs: the page keeps
    // a list of the stages on screen at moments its status was not final.
    let jobs = lp.get("/api/v1/jobs?kind=deploy_sidecar").await;
    let job_id = jobs[0]["id"].as_str().unwrap().to_string();
    b.goto(&format!("{}/jobs/{job_id}", lp.base)).await;
    b.hydrated().await;
    b.page
        .evaluate_expression(
            "window.stagesSeenLive = new Set(); setInterval(() => {
               const status = document.querySelector('#job-status')?.textContent ?? '';
               if (['queued', 'running'].includes(status.trim()))
                 document.querySelectorAll('#job-log .stage').forEach(s => stagesSeenLive.add(s.dataset.stage));
             }, 50);",
        )
        .await
        .unwrap();
    expect(page.locator("[data-stage='health'][data-status='running'] .stage-output"))
        .with_timeout(Duration::from_secs(60))
        .to_contain_text("has not said it is ready yet")
        .await
        .unwrap();
    b.screenshot("1-deploy-live").await;
    docker(&["unpause", &beacon_container]);
    let finished = lp.finished_job(&job_id, Duration::from_secs(120)).await;
    assert_eq!(finished["status"], "succeeded", "{finished}");
    b.expect_text("#job-status", "succeeded").await;
    let seen: Vec<String> = serde_json::from_str(
        &b.page
            .evaluate_value("JSON.stringify([...window.stagesSeenLive])")
            .await
            .unwrap(),
    )
    .unwrap();
    for stage in ["pull", "up", "settle", "health"] {
        assert!(
            seen.iter().any(|s| s == stage),
            "the {stage} stage was not on the page while the job ran; seen: {seen:?}"
        );
    }
    let stages = lp.get(&format!("/api/v1/jobs/{job_id}")).await["stages"].clone();
    let names: Vec<&str> = stages
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "validate",
            "write compose",
            "pull",
            "up",
            "settle",
            "health"
        ]
    );
    // The images are local stand-ins (no registry here), so with
    // KNOTROUTE_AGENT_PULL=missing the pull stage says it pulled nothing.
    b.page
        .locator("[data-stage='pull'] summary")
        .click(None)
        .await
        .unwrap();
    b.expect_text(
        "[data-stage='pull'] .stage-output",
        "on this host already, not pulled",
    )
    .await;
    // A finished stage is folded; opening it shows what it printed.
    b.page
        .locator("[data-stage='up'] summary")
        .click(None)
        .await
        .unwrap();
    b.expect_text("[data-stage='up'] .stage-output", "Started")
        .await;

    // The real sidecar announces its address; the screen shows it.
    let sidecar_id = format!("sidecar-{service}");
    let shown = lp
        .wait_component(
            &agent_id,
            &sidecar_id,
            Duration::from_secs(120),
            "a .knot address",
            |c| is_knot_address(c["service"].as_str().unwrap_or("")),
        )
        .await;
    let address = shown["service"].as_str().unwrap();
    b.goto(&format!("{}/services", lp.base)).await;
    let row = format!(".service-row[data-service='{service}']");
    expect(page.locator(format!("{row} .knot-address")))
        .with_timeout(Duration::from_secs(10))
        .to_have_text(address)
        .await
        .unwrap();
    b.screenshot("2-published-for-real").await;

    // Removing asks first, under the list; then the Agent takes the
    // container down. (Live updates may redraw the row under the first
    // click: then click again.)
    let mut asked = false;
    for _ in 0..3 {
        page.locator(format!("{row} .remove-service"))
            .click(None)
            .await
            .unwrap();
        let shown = page
            .locator("#service-question-explain")
            .wait_for(
                playwright_rs::WaitForOptions::builder()
                    .state(playwright_rs::WaitForState::Visible)
                    .timeout(5_000.0)
                    .build(),
            )
            .await;
        if shown.is_ok() {
            asked = true;
            break;
        }
    }
    if !asked {
        b.screenshot("3-no-confirmation").await;
        panic!("Remove did not ask for a confirmation");
    }
    page.locator("#confirm-remove-service")
        .click(None)
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while !lp.deployed(&sidecar_id).is_empty() {
        assert!(Instant::now() < deadline, "the sidecar was not removed");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    b.close().await;
    lp.agent.take();
}

/// A run killed before its cleanup leaves containers the next run's Agent
/// would report; only those named after a test process that is gone are swept.
#[test]
fn only_what_a_dead_test_run_left_is_swept() {
    use common::leftovers::{is_leftover_project, left_by_dead_run, suffix_pid};
    assert_eq!(suffix_pid("kr-sidecar-shop23741s"), Some(23741));
    assert_eq!(suffix_pid("krc6039p"), Some(6039));
    assert_eq!(suffix_pid("kr-beacon-edge812"), Some(812));
    assert_eq!(suffix_pid("kr-sidecar-web"), None);
    assert_eq!(suffix_pid(""), None);
    let running = std::process::id();
    assert!(!left_by_dead_run(&format!("krc{running}s")));
    assert!(!is_leftover_project(
        &format!("kra{running}p"),
        "knotroute-agent:local"
    ));
    // An operator's own deployment (not on the stand-in images) is never swept.
    assert!(!is_leftover_project(
        "kr-sidecar-web2",
        "ghcr.io/localzet/knotroute-sidecar:latest"
    ));
    assert!(!is_leftover_project("krcache", "redis:7"));
    // No process has a pid past pid_max (at most 2^22).
    assert!(is_leftover_project(
        "kr-sidecar-shop4000000000s",
        "ghcr.io/localzet/knotroute-sidecar:standin"
    ));
    assert!(is_leftover_project(
        "krc4000000000p",
        "knotroute-control:local"
    ));
    assert!(
        !is_leftover_project("krc4000000000p", "postgres:17"),
        "a project is swept for its Control container, not for any image"
    );
}
