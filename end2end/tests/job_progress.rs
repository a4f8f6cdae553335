//! A job's page while the job runs, desktop and phone: stages appear with
//! their output as the Agent (simulated here, speaking the real protocol)
//! reports them, Stop reaches the Agent, and the job ends `cancelled` with
//! its stages so far. The same against a real Docker deploy is in
//! containers.rs.

mod common;

use serde_json::json;

fn stage(index: u32, name: &str, status: &str, lines: &[&str]) -> serde_json::Value {
    json!({"index": index, "name": name, "status": status,
        "started_at": "2026-12-02T10:00:00Z", "command": format!("docker {name}"),
        "lines": lines})
}

async fn stages_live_then_stopped(width: u32, height: u32, name: &str) {
    let control = common::start_control().await;
    let agent = common::SimAgent::enrolled(&control, 51, "live-host").await;
    let id = common::queue_restart(&control.base, &agent.id(), "sidecar-web").await;
    agent.claim_reporting().await.expect("the job is waiting");

    let b = common::open_browser(name, width, height, "en-US").await;
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/jobs/{id}", control.base)).await;
    b.hydrated().await;
    b.wait_visible("#live-status[data-live='on']").await;
    b.expect_text("#stages-note", "No stage has started yet.")
        .await;

    // Each stage shows as the Agent reports it, with what it printed.
    let first = json!([stage(
        0,
        "restart",
        "running",
        &["restarting c-sidecar-web"]
    )]);
    assert_eq!(agent.progress(&id, 1, first).await.status(), 200);
    b.expect_text(
        "[data-stage='restart'] .stage-output",
        "restarting c-sidecar-web",
    )
    .await;
    b.expect_text("#job-status", "running").await;
    let second = json!([
        stage(0, "restart", "succeeded", &["c-sidecar-web"]),
        stage(1, "settle", "running", &["watching the container for 5 s"]),
    ]);
    assert_eq!(agent.progress(&id, 2, second).await.status(), 200);
    b.expect_text(
        "[data-stage='settle'] .stage-output",
        "watching the container",
    )
    .await;
    // A stage that succeeded folds away; opening it shows all it printed.
    b.expect_text("[data-stage='restart'] summary", "succeeded")
        .await;
    b.page
        .locator("[data-stage='restart'] summary")
        .click(None)
        .await
        .unwrap();
    b.expect_text(
        "[data-stage='restart'] .stage-output",
        "restarting c-sidecar-web\nc-sidecar-web",
    )
    .await;
    b.wait_visible("#copy-job-log").await;
    b.screenshot("1-stages-live").await;

    // Stop: the page says so, and the Agent hears it in its next answer. (A
    // live update may redraw the button under the first click: then again.)
    let mut stopping = false;
    for _ in 0..3 {
        b.page
            .locator("#cancel-this-job")
            .click(None)
            .await
            .unwrap();
        let shown = b
            .page
            .locator("#job-stopping")
            .wait_for(
                playwright_rs::WaitForOptions::builder()
                    .state(playwright_rs::WaitForState::Visible)
                    .timeout(5_000.0)
                    .build(),
            )
            .await;
        if shown.is_ok() {
            stopping = true;
            break;
        }
    }
    assert!(stopping, "Stop was not taken");
    let answer: serde_json::Value = agent
        .progress(&id, 3, json!([]))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(answer["cancel"], true);
    let last = json!([stage(1, "settle", "cancelled", &["stopped"])]);
    assert_eq!(agent.progress(&id, 4, last).await.status(), 200);
    agent
        .finish(&id, "cancelled", "cancelled by an admin")
        .await;
    b.expect_text("#job-status", "cancelled").await;
    b.expect_text("[data-stage='settle']", "cancelled").await;
    b.screenshot("2-stopped").await;
    b.close().await;
}

crate::on_desktop_and_phone!(stages_live_then_stopped, "job-progress");
