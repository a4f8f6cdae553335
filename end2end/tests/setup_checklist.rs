//! The setup checklist in a real browser, on a desktop in English and on a
//! phone in Russian: a fresh network with an Agent, a published service
//! whose identity backup its Agent verified, and an opened invite shows
//! those steps green; the admin follows the checklist's link to the
//! operations policy, writes it from the template, comes back to find that
//! step green, skips the monitoring step by choice and takes it back, then
//! chooses the end-to-end probe on the same page, which the Agent answers:
//! the monitoring step turns green (with the one-host warning) and the run
//! shows in the probe's history; stopping the probe asks first; the Jobs
//! screen lists the probe's run only once asked to; the Overview summarises
//! the checklist.

mod common;

use serde_json::json;

const ADDRESS: &str = "umuxz2vrqhhpnmzqk5ycspnwjcgwjjljnngqghfxbar6lw5ar626lwyb.knot";

async fn expect_state(b: &common::Browsing, step: &str, state: &str) {
    b.wait_visible(&format!("#step-{step}[data-state=\"{state}\"]"))
        .await;
}

async fn setup_checklist(width: u32, height: u32, name: &str) {
    let (locale, words) = if width < 600 {
        (
            "ru-RU",
            [
                "Список настройки",
                "Готово",
                "Сохранено",
                "Пропущен по выбору",
            ],
        )
    } else {
        (
            "en-US",
            ["Setup checklist", "Done", "Saved", "Skipped by choice"],
        )
    };
    let [title, done, saved, skipped] = words;
    let control = common::start_control().await;
    let base = control.base.clone();
    let network = common::create_network(&base, "Home", &["https://beacon.example.net"]).await;
    // An Agent with Docker running a sidecar of this network.
    let agent = common::SimAgent::with_docker(&control, 43).await;
    let api = common::admin_client(&base).await;
    let r = api
        .post_json(
            "/api/v1/jobs",
            json!({"agent_id": agent.id(), "kind": "deploy_sidecar", "payload": {
                "name": "web", "network_id": network, "target": "app:8080",
                "docker_network": "apps", "beacons": ["https://beacon.example.net"]}}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let r = agent
        .post(
            "/api/v1/agents/heartbeat",
            json!({"name": "edge-1", "docker_available": true, "components": [
                {"id": "sidecar-web", "kind": "sidecar", "name": "web", "status": "running",
                 "service": ADDRESS, "labels": {"io.knotroute.managed": "true",
                 "io.knotroute.network-id": network}}]}),
        )
        .await;
    assert_eq!(r.status(), 200);
    // The Agent deploys it, backs its identity up and proves the backup.
    let deploy = agent.claim().await.expect("the deploy job is handed out");
    agent
        .finish(deploy["id"].as_str().unwrap(), "succeeded", "deployed")
        .await;
    let archive = json!({"component_id": "sidecar-web", "archive": "20261204T120000Z.tar",
        "directory": "/var/lib/knotroute-agent/backups/sidecar-web", "size_bytes": 10240,
        "sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "taken_at": "2026-12-04T12:00:00Z", "address": ADDRESS, "kept": 1,
        "kept_archives": ["20261204T120000Z.tar"]});
    for (kind, payload, verified) in [
        (
            "backup_volume",
            json!({"component_id": "sidecar-web", "keep": 7}),
            false,
        ),
        (
            "verify_backup",
            json!({"component_id": "sidecar-web"}),
            true,
        ),
    ] {
        let r = api
            .post_json(
                "/api/v1/jobs",
                json!({"agent_id": agent.id(), "kind": kind, "payload": payload}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let job = agent.claim().await.expect("the backup job is handed out");
        let mut report = archive.clone();
        report["verified"] = json!(verified);
        let r = agent
            .post(
                "/api/v1/agents/jobs/result",
                json!({"job_id": job["id"], "status": "succeeded", "result": kind,
                       "backup": report}),
            )
            .await;
        assert_eq!(r.status(), 200);
    }
    // An invite a phone opened.
    let r = api
        .post_json("/api/v1/invites", json!({"network_id": network}))
        .await;
    let invite: serde_json::Value = r.json().await.unwrap();
    let url = invite["url"].as_str().unwrap();
    let r = reqwest::Client::new()
        .get(format!("{base}{}", &url[url.find("/join/").unwrap()..]))
        .header("user-agent", "Mozilla/5.0 (Linux; Android 14) Mobile")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);

    let b = common::open_browser(name, width, height, locale).await;
    b.sign_in(&base).await;
    b.goto(&format!("{base}/networks/{network}")).await;
    b.page
        .locator("#setup-checklist")
        .click(None)
        .await
        .unwrap();
    b.expect_text("h1", title).await;
    expect_state(&b, "network_id", "done").await;
    expect_state(&b, "agents", "done").await;
    expect_state(&b, "onboarding", "done").await;
    expect_state(&b, "first_service", "done").await;
    expect_state(&b, "policy", "not_yet").await;
    expect_state(&b, "monitoring", "not_yet").await;
    b.expect_text("#step-agents", done).await;
    b.expect_text("#step-agents", "edge-1").await;
    b.wait_visible("#bootstrap li[data-knowledge]:last-child")
        .await;
    b.screenshot("1-checklist").await;

    // The policy step's link leads to the policy; written from the template.
    b.page
        .locator("#step-policy .step-actions a")
        .click(None)
        .await
        .unwrap();
    b.page
        .wait_for_url(&format!("{base}/policy"), None)
        .await
        .unwrap();
    b.wait_visible("#policy-form").await;
    // A press before hydration is made once the page has hydrated; the
    // template's text is read right after this one.
    b.hydrated().await;
    b.page
        .locator("#policy-template")
        .click(None)
        .await
        .unwrap();
    let relays = b
        .page
        .evaluate_value("document.querySelector('#policy-relays').value")
        .await
        .unwrap();
    assert!(
        relays.contains("7447"),
        "the template is filled in: {relays}"
    );
    b.page.locator("#policy-save").click(None).await.unwrap();
    b.expect_text("#policy-saved", saved).await;
    b.expect_text("#policy-changed", "break-glass").await;
    b.screenshot("2-policy").await;

    // Back on the checklist: the policy is done; monitoring skipped by choice.
    b.goto(&format!("{base}/networks/{network}/setup")).await;
    expect_state(&b, "policy", "done").await;
    b.page
        .locator("#skip-monitoring")
        .click(None)
        .await
        .unwrap();
    expect_state(&b, "monitoring", "skipped").await;
    b.expect_text("#step-monitoring", skipped).await;
    b.screenshot("3-skipped").await;
    b.page
        .locator("#skip-monitoring")
        .click(None)
        .await
        .unwrap();
    expect_state(&b, "monitoring", "not_yet").await;

    // The end-to-end probe, chosen below the checklist; the Agent answers it.
    b.page
        .locator("#step-monitoring .step-actions a")
        .click(None)
        .await
        .unwrap();
    b.wait_visible("#probe-form").await;
    b.fill("#probe-every", "0").await;
    b.page.locator("#probe-save").click(None).await.unwrap();
    b.wait_visible("#probe-every_minutes-error").await;
    b.fill("#probe-every", "5").await;
    b.page.locator("#probe-save").click(None).await.unwrap();
    b.wait_visible("#probe-saved").await;
    let probe = agent.claim().await.expect("the probe is queued at once");
    assert_eq!(probe["kind"], "probe_service", "{probe}");
    assert_eq!(probe["payload"]["address"], ADDRESS);
    let r = agent
        .post(
            "/api/v1/agents/jobs/result",
            json!({"job_id": probe["id"], "status": "succeeded",
                   "result": format!("http://{ADDRESS}/ (web): HTTP 200 in 48 ms"),
                   "probe": {"address": ADDRESS, "ok": true, "latency_ms": 48, "status": 200}}),
        )
        .await;
    assert_eq!(r.status(), 200);
    expect_state(&b, "monitoring", "done").await;
    b.expect_text("#step-monitoring", "48").await;
    b.wait_visible("#step-monitoring .alert").await;
    b.wait_visible("#probe-history li[data-probe=\"ok\"]").await;
    b.screenshot("4-probe").await;
    // Stopping it asks first; the history stays.
    b.page.locator("#probe-remove").click(None).await.unwrap();
    b.page
        .locator("#confirm-probe-remove")
        .click(None)
        .await
        .unwrap();
    b.wait_visible("#probe-form:not(:has(#probe-remove))").await;
    b.wait_visible("#probe-history li[data-probe=\"ok\"]").await;

    // The Jobs screen leaves the probe's runs out until asked for them.
    let run = format!(".job-row[data-job='{}']", probe["id"].as_str().unwrap());
    b.goto(&format!("{base}/jobs")).await;
    b.wait_visible("#jobs-table").await;
    assert_eq!(
        b.page.locator(&run).count().await.unwrap(),
        0,
        "a probe run is listed before it was asked for"
    );
    b.hydrated().await;
    b.page.locator("#filter-probes").check(None).await.unwrap();
    b.page
        .locator("#job-filters button[type=submit]")
        .click(None)
        .await
        .unwrap();
    b.wait_visible(&run).await;

    // The Overview summarises it and links to it.
    b.goto(&format!("{base}/")).await;
    b.wait_visible(&format!(
        "#setup-summaries a[href=\"/networks/{network}/setup\"]"
    ))
    .await;
    b.screenshot("5-overview").await;
    b.close().await;
}

on_desktop_and_phone!(setup_checklist, "setup-checklist");
