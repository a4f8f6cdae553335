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
    expect(page.locator("#deploy-beacon .alert.warn"))
        .with_timeout(wait)
        .to_contain_text("creates a new managed container")
        .await
        .unwrap();

    // Nothing chosen: the refusal sits next to the Agent field.
    page.locator("#deploy-submit").click(None).await.unwrap();
    expect(page.locator("#deploy-agent-error"))
        .with_timeout(wait)
        .to_contain_text("required")
        .await
        .unwrap();
    page.locator("#deploy-agent")
        .select_option(agent.id().as_str(), None)
        .await
        .unwrap();
    page.locator("#deploy-network")
        .select_option(network.as_str(), None)
        .await
        .unwrap();
    page.locator("#deploy-name")
        .fill("edge-2", None)
        .await
        .unwrap();
    page.locator("#deploy-url")
        .fill("https://beacon2.example.net", None)
        .await
        .unwrap();
    page.locator("#deploy-advertise")
        .fill("beacon2.example.net:7447", None)
        .await
        .unwrap();
    page.locator("#deploy-http-port")
        .fill("http", None)
        .await
        .unwrap();
    page.locator("#deploy-submit").click(None).await.unwrap();
    expect(page.locator("#deploy-http-port-error"))
        .with_timeout(wait)
        .to_contain_text("port from 1 to 65535")
        .await
        .unwrap();
    b.screenshot("1-wizard-refuses-port").await;
    page.locator("#deploy-http-port")
        .fill("18081", None)
        .await
        .unwrap();
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
    expect(page.locator("#job-result"))
        .with_timeout(wait)
        .to_contain_text("running and healthy")
        .await
        .unwrap();
    b.screenshot("2-beacon-deployed").await;

    // Its URL joined the profile by itself, listed as managed by this Agent.
    b.goto(&format!("{}/infrastructure/beacons", control.base))
        .await;
    expect(page.locator(".beacon-row[data-url='https://beacon2.example.net']"))
        .with_timeout(wait)
        .to_contain_text("managed")
        .await
        .unwrap();
    let profile: serde_json::Value = common::admin_client(&control.base)
        .await
        .get(format!("{}/api/v1/networks/{network}", control.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
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
    expect(page.locator("#agent-jobs .agent-job[data-status='failed'] .job-failure"))
        .with_timeout(wait)
        .to_contain_text("No such container")
        .await
        .unwrap();
    expect(page.locator("#agent-jobs .agent-job[data-status='succeeded']"))
        .with_timeout(wait)
        .to_contain_text("beacon-edge-2")
        .await
        .unwrap();
    b.screenshot("3-agent-page-failure").await;

    // Disable asks first, says what it does, then the Agent is disabled.
    b.hydrated().await;
    page.locator("#disable-agent").click(None).await.unwrap();
    expect(page.locator("#confirm-explain"))
        .with_timeout(wait)
        .to_contain_text("no jobs")
        .await
        .unwrap();
    b.screenshot("4-disable-confirmation").await;
    page.locator("#confirm-action").click(None).await.unwrap();
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
    expect(page.locator(format!(
        "#attention-list .attention-item[data-agent='{}']",
        agent.id()
    )))
    .with_timeout(wait)
    .to_contain_text("disabled")
    .await
    .unwrap();
    expect(page.locator(format!("#recent-jobs .recent-job[data-job='{}']", failing)))
        .with_timeout(wait)
        .to_contain_text("failed")
        .await
        .unwrap();
    b.screenshot("6-overview").await;
    b.close().await;
}

#[tokio::test]
async fn desktop() {
    deploy_beacon_then_fail_a_job_then_disable(1280, 900, "agent-page-desktop").await;
}

#[tokio::test]
async fn phone() {
    deploy_beacon_then_fail_a_job_then_disable(390, 844, "agent-page-phone").await;
}
