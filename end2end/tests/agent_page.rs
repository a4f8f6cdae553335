//! An Agent's life in a real browser, with a simulated Agent on the real agent
//! API: the "Deploy new Beacon" wizard refuses bad input at its field, then
//! queues a job the Agent completes, and the job page shows it succeed with
//! its output without a reload; a failed job shows on the Agent's page with
//! its failure; Disable asks first and the Agent shows as disabled; the
//! Overview then lists it as needing attention, and the failed job. Desktop
//! and phone (390×844) sizes.

mod common;

use playwright_rs::expect;
use serde_json::json;
use std::time::Duration;

async fn deploy_beacon_then_fail_a_job_then_disable(width: u32, height: u32, name: &str) {
    let control = common::start_control().await;
    let network = common::create_network(&control.base, "Office", &[]).await;
    let agent = common::SimAgent::enrolled(&control, 42, "edge-1").await;

    let b = common::open_browser(name, width, height, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);
    b.sign_in(&control.base).await;
    b.goto(&format!(
        "{}/infrastructure/beacons#deploy-beacon",
        control.base
    ))
    .await;
    b.open_form("#open-deploy", "#deploy-agent").await;
    b.expect_text(
        "#deploy-beacon .alert.warn",
        "creates a new managed container",
    )
    .await;

    // Nothing chosen: the refusal sits next to the Agent field.
    page.locator("#deploy-submit").click(None).await.unwrap();
    b.expect_text("#deploy-agent-error", "required").await;
    b.select("#deploy-agent", agent.id().as_str()).await;
    b.select("#deploy-network", network.as_str()).await;
    b.fill("#deploy-name", "edge-2").await;
    b.fill("#deploy-url", "https://beacon2.example.net").await;
    b.fill("#deploy-advertise", "beacon2.example.net:7447")
        .await;
    b.fill("#deploy-http-port", "http").await;
    page.locator("#deploy-submit").click(None).await.unwrap();
    b.expect_text("#deploy-http-port-error", "port from 1 to 65535")
        .await;
    b.screenshot("1-wizard-refuses-port").await;
    b.fill("#deploy-http-port", "18081").await;
    page.locator("#deploy-submit").click(None).await.unwrap();
    b.wait_visible("#deploy-job-link").await;

    let job = agent.next_job().await;
    assert_eq!(job["kind"], "deploy_beacon");
    assert_eq!(job["payload"]["name"], "edge-2");
    assert_eq!(job["payload"]["network_id"], network.as_str());
    assert_eq!(job["payload"]["beacon_url"], "https://beacon2.example.net");
    assert_eq!(job["payload"]["advertise"], "beacon2.example.net:7447");
    assert_eq!(job["payload"]["http_port"], 18081);
    let job_id = job["id"].as_str().unwrap().to_string();

    page.locator("#deploy-job-link").click(None).await.unwrap();
    expect(page.locator("#job-status"))
        .with_timeout(wait)
        .to_have_text("running")
        .await
        .unwrap();
    b.wait_visible("#live-status[data-live='on']").await;
    agent
        .finish(
            &job_id,
            "succeeded",
            "$ docker compose -p kr-beacon-edge-2 up -d\nbeacon-edge-2 is running and healthy",
        )
        .await;
    expect(page.locator("#job-status"))
        .with_timeout(wait)
        .to_have_text("succeeded")
        .await
        .unwrap();
    b.expect_text("#job-result", "running and healthy").await;
    b.screenshot("2-beacon-deployed").await;

    // Its URL joined the profile by itself, listed as managed by this Agent.
    b.goto(&format!("{}/infrastructure/beacons", control.base))
        .await;
    b.expect_text(
        ".beacon-row[data-url='https://beacon2.example.net']",
        "managed",
    )
    .await;
    let profile: serde_json::Value = common::admin_client(&control.base)
        .await
        .get_json(&format!("/api/v1/networks/{network}"))
        .await;
    assert_eq!(profile["beacons"], json!(["https://beacon2.example.net"]));

    // A job that fails on the Agent shows on the Agent's page with its reason.
    let failing = common::queue_restart(&control.base, &agent.id(), "beacon-edge-2").await;
    assert_eq!(agent.next_job().await["id"], failing.as_str());
    agent
        .finish(
            &failing,
            "failed",
            "Error: No such container: kr-beacon-edge-2-beacon-1",
        )
        .await;
    b.goto(&format!(
        "{}/infrastructure/agents/{}",
        control.base,
        agent.id()
    ))
    .await;
    b.expect_text(
        "#agent-jobs .agent-job[data-status='failed'] .job-failure",
        "No such container",
    )
    .await;
    b.expect_text(
        "#agent-jobs .agent-job[data-status='succeeded']",
        "beacon-edge-2",
    )
    .await;
    b.screenshot("3-agent-page-failure").await;

    // Disable asks first, says what it does, then the Agent is disabled.
    b.hydrated().await;
    page.locator("#disable-agent").click(None).await.unwrap();
    b.expect_text("#agent-question-explain", "no jobs").await;
    b.screenshot("4-disable-confirmation").await;
    page.locator("#confirm-disable-agent")
        .click(None)
        .await
        .unwrap();
    expect(page.locator("#agent-status"))
        .with_timeout(wait)
        .to_have_text("disabled")
        .await
        .unwrap();
    b.wait_visible("#enable-agent").await;
    b.screenshot("5-disabled").await;

    // The Overview lists the disabled Agent under "Needs attention" and the
    // failed job among the recent ones, each linking to its page.
    b.goto(&format!("{}/", control.base)).await;
    b.expect_text(
        &format!(
            "#attention-list .attention-item[data-agent='{}']",
            agent.id()
        ),
        "disabled",
    )
    .await;
    b.expect_text(
        &format!("#recent-jobs .recent-job[data-job='{}']", failing),
        "failed",
    )
    .await;
    b.screenshot("6-overview").await;

    // Move asks first, on the page, then shows the new host's install
    // token once; the Agent is then waiting for its new host.
    b.goto(&format!(
        "{}/infrastructure/agents/{}",
        control.base,
        agent.id()
    ))
    .await;
    b.hydrated().await;
    page.locator("#move-agent").click(None).await.unwrap();
    b.expect_text("#move-agent-explain", "one-time install token")
        .await;
    page.keyboard().press("Escape", None).await.unwrap();
    b.wait_visible("#move-agent").await;
    page.locator("#move-agent").click(None).await.unwrap();
    page.locator("#confirm-move-agent")
        .click(None)
        .await
        .unwrap();
    b.expect_text("#token-snippets #snippet-docker-run", "docker run")
        .await;
    expect(page.locator("#agent-status"))
        .with_timeout(wait)
        .to_have_text("moved")
        .await
        .unwrap();
    b.screenshot("7-moved").await;
    b.close().await;
}

crate::on_desktop_and_phone!(deploy_beacon_then_fail_a_job_then_disable, "agent-page");
