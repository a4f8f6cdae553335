//! A job's page while the job runs, desktop and phone: stages appear with
//! their output as the Agent (simulated here, speaking the real protocol)
//! reports them, Stop reaches the Agent, and the job ends `cancelled` with
//! its stages so far. The same against a real Docker deploy is in
//! containers.rs.

mod common;

use serde_json::json;
use std::time::Duration;

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

/// `line <from>` … `line <to>`.
fn numbered(from: u32, to: u32) -> Vec<String> {
    (from..=to).map(|n| format!("line {n}")).collect()
}

/// True while the log's box shows its last line (within a few pixels).
const LOG_AT_END: &str = "(() => { const l = document.querySelector('#job-log');
    return l.scrollTop + l.clientHeight >= l.scrollHeight - 4; })()";

/// Waits up to `within` for the page's JavaScript `condition` to be true.
async fn until_true(b: &common::Browsing, condition: &str, within: Duration, why: &str) {
    let deadline = std::time::Instant::now() + within;
    while b.page.evaluate_value(condition).await.unwrap() != "true" {
        assert!(std::time::Instant::now() < deadline, "{why}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Sends progress message `seq` as `agent`, which Control must take.
async fn reported(agent: &common::SimAgent, id: &str, seq: u64, stages: serde_json::Value) {
    assert_eq!(agent.progress(id, seq, stages).await.status(), 200);
}

async fn log_scroll_top(b: &common::Browsing) -> String {
    b.page
        .evaluate_value("document.querySelector('#job-log').scrollTop")
        .await
        .unwrap()
}

/// On a phone: the log keeps its newest line in view as output arrives,
/// stays where the reader scrolled up to, follows again once they are back
/// at the end, and Copy log puts all of it on the clipboard.
#[tokio::test]
async fn the_log_follows_its_end_unless_the_reader_scrolled_up() {
    let control = common::start_control().await;
    let agent = common::SimAgent::enrolled(&control, 52, "log-host").await;
    let id = common::queue_restart(&control.base, &agent.id(), "sidecar-web").await;
    agent.claim_reporting().await.expect("the job is waiting");
    let b = common::open_browser("job-log-follow", 390, 844, "en-US").await;
    b.context
        .grant_permissions(&["clipboard-read", "clipboard-write"], None)
        .await
        .unwrap();
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/jobs/{id}", control.base)).await;
    b.hydrated().await;
    b.wait_visible("#live-status[data-live='on']").await;
    let up = |lines: Vec<String>| {
        let mut running = stage(0, "up", "running", &[]);
        running["lines"] = json!(lines);
        json!([running])
    };

    // Far more lines than the box shows: it scrolls to the newest.
    reported(&agent, &id, 1, up(numbered(1, 300))).await;
    b.expect_text("[data-stage='up'] .stage-output", "line 300")
        .await;
    until_true(
        &b,
        LOG_AT_END,
        Duration::from_secs(5),
        "the log did not follow its first lines",
    )
    .await;

    // Scrolled up, the reader stays where they are while lines arrive.
    b.page
        .evaluate_expression("document.querySelector('#job-log').scrollTop = 0")
        .await
        .unwrap();
    reported(&agent, &id, 2, up(numbered(301, 400))).await;
    b.expect_text("[data-stage='up'] .stage-output", "line 400")
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        log_scroll_top(&b).await,
        "0",
        "the log jumped while the reader was reading above"
    );

    // Back at the end, it follows again.
    b.page
        .evaluate_expression(
            "const l = document.querySelector('#job-log'); l.scrollTop = l.scrollHeight",
        )
        .await
        .unwrap();
    reported(&agent, &id, 3, up(numbered(401, 500))).await;
    b.expect_text("[data-stage='up'] .stage-output", "line 500")
        .await;
    until_true(
        &b,
        LOG_AT_END,
        Duration::from_secs(5),
        "the log did not follow again at its end",
    )
    .await;

    // Copy log: every line, under its stage and command.
    b.page.locator("#copy-job-log").click(None).await.unwrap();
    b.expect_text("#copy-job-log", "Copied").await;
    let copied = b
        .page
        .evaluate_value("navigator.clipboard.readText()")
        .await
        .unwrap();
    let mut expected = String::from("== up (running) ==\n$ docker up\n");
    for line in numbered(1, 500) {
        expected.push_str(&line);
        expected.push('\n');
    }
    assert_eq!(copied, expected);
    b.close().await;
}

/// A failed job opens at the stage that failed, below many that
/// succeeded, with its output and the reason from the job's result.
#[tokio::test]
async fn a_failed_job_opens_at_the_stage_that_failed() {
    let control = common::start_control().await;
    let agent = common::SimAgent::enrolled(&control, 53, "fail-host").await;
    let id = common::queue_restart(&control.base, &agent.id(), "sidecar-web").await;
    agent.claim_reporting().await.expect("the job is waiting");
    // More folded stages than the log's box holds, then the failure.
    let mut stages: Vec<serde_json::Value> = (0..24)
        .map(|i| stage(i, &format!("step {i}"), "succeeded", &["fine"]))
        .collect();
    let mut failed = stage(24, "restart", "failed", &["Error: no such container"]);
    failed["exit_code"] = json!(1);
    stages.push(failed);
    reported(&agent, &id, 1, json!(stages)).await;
    agent
        .finish(
            &id,
            "failed",
            "restart failed: the container is gone; deploy the component again",
        )
        .await;

    let b = common::open_browser("job-failed-stage", 390, 844, "en-US").await;
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/jobs/{id}", control.base)).await;
    b.hydrated().await;
    let failed = "[data-stage='restart'][data-status='failed']";
    b.expect_text(
        &format!("{failed} .stage-output"),
        "Error: no such container",
    )
    .await;
    b.expect_text(
        &format!("{failed} .stage-why"),
        "deploy the component again",
    )
    .await;
    b.expect_text(&format!("{failed} summary"), "exit 1").await;
    let in_view = format!(
        "(() => {{ const r = document.querySelector(\"{failed}\").getBoundingClientRect();
            return r.top >= 0 && r.top < window.innerHeight; }})()"
    );
    until_true(
        &b,
        &in_view,
        Duration::from_secs(3),
        "the failed stage is not in view when the page opens",
    )
    .await;
    b.screenshot("failed-stage").await;
    b.close().await;
}
