//! A new Agent waits for approval, in a real browser: a host enrolls with
//! the shared token; the Overview says an Agent waits; its page shows its
//! host and key fingerprint, which the admin compares with the Agent's log,
//! and no job can be queued for it; Approve asks first, then the Agent takes
//! jobs. Another is rejected, and its key is listed as refused. Desktop and
//! phone (390×844) sizes; and Settings turns the waiting off.

mod common;

use playwright_rs::expect;
use serde_json::json;
use std::time::Duration;

async fn approve_one_reject_another(width: u32, height: u32, name: &str) {
    let control = common::start_control().await;
    let newcomer = common::SimAgent::new(&control, 61);
    assert_eq!(
        newcomer.enroll(common::ENROLL, "edge-new").await.status(),
        201
    );
    newcomer
        .report(
            json!({"name": "edge-new", "hostname": "edge-host", "version": "1.4.0",
            "docker_available": true, "docker_version": "28.2.2"}),
        )
        .await;
    let intruder = common::SimAgent::new(&control, 62);
    assert_eq!(
        intruder.enroll(common::ENROLL, "who-knows").await.status(),
        201
    );

    let b = common::open_browser(name, width, height, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);
    b.sign_in(&control.base).await;
    b.expect_text("#agents-pending", "2 new Agents wait for your approval")
        .await;
    b.screenshot("1-overview-says-agents-wait").await;

    let agent_page = format!("{}/infrastructure/agents/{}", control.base, newcomer.id());
    b.goto(&agent_page).await;
    b.expect_text("#agent-status", "pending").await;
    b.expect_text("#agent-reason", "Waiting for an admin's approval")
        .await;
    b.expect_text(
        "#agent-key-fingerprint",
        &newcomer.key.public_key().fingerprint(),
    )
    .await;
    b.screenshot("2-pending-agent-with-fingerprint").await;
    // Not a choice for a job while it waits: with both waiting, the form
    // has no Agent to offer and says why.
    b.goto(&format!("{}/jobs", control.base)).await;
    b.open_form("#open-new-job", "#jobs-no-agents").await;
    b.expect_text("#jobs-no-agents", "approve one that waits")
        .await;

    // Approve asks first, saying what to compare.
    b.goto(&agent_page).await;
    page.locator("#approve-agent").click(None).await.unwrap();
    b.expect_text("#agent-question-explain", "compare this key fingerprint")
        .await;
    b.screenshot("3-approve-asks-first").await;
    page.locator("#confirm-approve-agent")
        .click(None)
        .await
        .unwrap();
    expect(page.locator("#agent-status"))
        .with_timeout(wait)
        .to_have_text("online")
        .await
        .unwrap();
    // It takes jobs now.
    let job = common::queue_restart(&control.base, &newcomer.id(), "beacon-x").await;
    assert_eq!(newcomer.next_job().await["id"], job.as_str());

    // The other is rejected: gone from the list, its key refused.
    b.goto(&format!(
        "{}/infrastructure/agents/{}",
        control.base,
        intruder.id()
    ))
    .await;
    page.locator("#reject-agent").click(None).await.unwrap();
    b.expect_text("#agent-question-explain", "stays refused")
        .await;
    page.locator("#confirm-reject-agent")
        .click(None)
        .await
        .unwrap();
    page.wait_for_url(&format!("{}/infrastructure", control.base), None)
        .await
        .unwrap();
    b.hydrated().await;
    b.expect_text("#revoked-table", "rejected").await;
    b.screenshot("4-rejected-key-refused").await;
    assert_eq!(intruder.enroll(common::ENROLL, "again").await.status(), 403);
    assert!(b.problems().is_empty(), "{:?}", b.problems());
    b.close().await;
}

#[tokio::test]
async fn a_new_agent_waits_and_is_approved_or_rejected_on_desktop() {
    approve_one_reject_another(1280, 900, "approval-desktop").await;
}

#[tokio::test]
async fn a_new_agent_waits_and_is_approved_or_rejected_on_a_phone() {
    approve_one_reject_another(390, 844, "approval-phone").await;
}

/// Settings turns the waiting off: from then on an Agent enrolled with the
/// shared token is approved at once and takes jobs.
#[tokio::test]
async fn turning_approval_off_in_settings_lets_shared_token_agents_in_at_once() {
    let control = common::start_control().await;
    let b = common::open_browser("approval-settings", 1280, 900, "en-US").await;
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/settings", control.base)).await;
    b.expect_text(
        "#agent-approval-state",
        "On: Agents enrolled with the shared token wait",
    )
    .await;
    b.page
        .locator("#agent-approval-required")
        .uncheck(None)
        .await
        .unwrap();
    b.page
        .locator("#save-agent-approval")
        .click(None)
        .await
        .unwrap();
    b.expect_text("#agent-approval-saved", "Saved.").await;
    b.expect_text(
        "#agent-approval-state",
        "Off: Agents enrolled with the shared token are approved at once",
    )
    .await;
    b.screenshot("approval-off").await;

    let newcomer = common::SimAgent::new(&control, 63);
    assert_eq!(
        newcomer
            .enroll(common::ENROLL, "edge-trusted")
            .await
            .status(),
        201
    );
    let job = common::queue_restart(&control.base, &newcomer.id(), "beacon-x").await;
    assert_eq!(newcomer.next_job().await["id"], job.as_str());
    assert!(b.problems().is_empty(), "{:?}", b.problems());
    b.close().await;
}
