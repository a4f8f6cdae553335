//! The Settings screen in a real browser: a webhook URL the form refuses,
//! then one it saves (shown without its path), a test alert that reaches a
//! local receiver, and the alert listed with its delivery; and on the Agent
//! page, a container nobody deployed flagged as an unmanaged leftover and
//! removed after confirmation.

mod common;

use playwright_rs::expect;
use serde_json::json;
use std::time::Duration;

async fn alerts_and_leftovers(width: u32, height: u32, name: &str) {
    let control = common::start_control().await;
    let (hook, received) = test_kit::webhook_receiver().await;
    let b = common::open_browser(name, width, height, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/settings", control.base)).await;
    b.wait_visible("#webhook-url").await;
    b.hydrated().await;
    expect(page.locator("#webhook-current"))
        .to_contain_text("No webhook is set")
        .await
        .unwrap();

    b.fill("#webhook-url", "hooks.example.net/knotroute").await;
    page.locator("#save-webhook").click(None).await.unwrap();
    b.expect_text("#webhook-url-error", "http:// or https://")
        .await;
    b.fill("#webhook-url", &format!("{hook}?token=secret-token"))
        .await;
    page.locator("#save-webhook").click(None).await.unwrap();
    b.expect_text("#webhook-current code", "http://127.0.0.1:")
        .await;
    let shown = page
        .locator("#webhook-current")
        .text_content()
        .await
        .unwrap();
    assert!(!shown.unwrap_or_default().contains("secret-token"));

    page.locator("#send-test-alert").click(None).await.unwrap();
    b.expect_text("#test-alert-outcome", "Delivered").await;
    let bodies = received.lock().unwrap().clone();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    let alert: serde_json::Value = serde_json::from_str(&bodies[0]).unwrap();
    assert_eq!(alert["event"], "test");
    b.expect_text("#alerts-table .alert-row", "sent").await;
    b.screenshot("1-alerts").await;

    // A container the Agent runs but Control never deployed.
    let agent = common::SimAgent::enrolled(&control, 42, "edge-1").await;
    agent
        .report_components(
            json!([{"id": "sidecar-old", "kind": "sidecar", "name": "old", "status": "running"}]),
        )
        .await;
    b.goto(&format!(
        "{}/infrastructure/agents/{}",
        control.base,
        agent.id()
    ))
    .await;
    b.wait_visible("#components-table").await;
    b.hydrated().await;
    // Live updates connected: connecting re-reads the Agent, which draws its
    // components again and would close a dialog opened just before.
    b.wait_visible("#live-status[data-live='on']").await;
    expect(page.locator("#components-table .badge.leftover"))
        .to_contain_text("unmanaged leftover")
        .await
        .unwrap();
    expect(page.locator("#agent-status"))
        .to_have_text("online")
        .await
        .unwrap();
    page.locator("#remove-sidecar-old")
        .click(None)
        .await
        .unwrap();
    b.wait_visible("#confirm-remove-leftover").await;
    b.screenshot("2-remove-leftover").await;
    page.locator("#confirm-remove-leftover")
        .click(None)
        .await
        .unwrap();
    expect(page.locator("#confirm-remove-leftover"))
        .with_timeout(wait)
        .to_be_hidden()
        .await
        .unwrap();
    let job = agent.next_job().await;
    assert_eq!(job["kind"], "remove_component");
    assert_eq!(job["payload"]["component_id"], "sidecar-old");
    b.close().await;
}

crate::on_desktop_and_phone!(alerts_and_leftovers, "settings");
