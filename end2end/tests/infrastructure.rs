//! Infrastructure in a real browser: Add agent refuses a bad expiry beside the
//! field, creates an install token and shows its snippet once (with the
//! PUBLIC_URL warning); a host enrolls with it; the Agent and the accepted
//! attempt appear; a job is queued for it and cancelled on the Jobs screen;
//! revoking the Agent asks first, then says so.

mod common;

use playwright_rs::expect;
use protocol::signing::AgentKey;
use std::time::Duration;

#[tokio::test]
async fn an_admin_adds_an_agent_with_an_install_token_and_revokes_it() {
    let control = common::start_control().await;
    let b = common::open_browser("infrastructure", 1280, 900, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/infrastructure", control.base)).await;
    b.wait_visible("#agents-empty").await;

    // The form comes with its button's first press.
    b.open_form("#open-add-agent", "#token-name").await;
    b.fill("#token-hours", "0").await;
    page.locator("#create-token").click(None).await.unwrap();
    b.expect_text("#token-hours-error", "from 1 to 720").await;
    b.fill("#token-hours", "24").await;
    b.fill("#token-name", "edge-1").await;
    page.locator("#create-token").click(None).await.unwrap();
    b.wait_visible("#snippet-docker-run").await;
    b.expect_text("#token-snippets", "PUBLIC_URL is not set")
        .await;
    expect(page.locator(".token-state").first())
        .with_timeout(wait)
        .to_have_text("active")
        .await
        .unwrap();
    b.screenshot("1-token-created").await;
    let snippet = page
        .locator("#snippet-docker-run")
        .text_content()
        .await
        .unwrap()
        .unwrap_or_default();
    let token = snippet
        .split("KNOTROUTE_CONTROL_ENROLL_TOKEN='")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .expect("the snippet carries the token")
        .to_string();
    assert!(token.starts_with("krit_"), "{snippet}");

    // The host enrolls with it, as an Agent would.
    let key = AgentKey::from_seed([9; 32]);
    let r = reqwest::Client::new()
        .post(format!("{}/api/v1/agents/enroll", control.base))
        .json(
            &serde_json::json!({"name": "host-name", "public_key": key.public_key().to_wire(),
            "token": token, "tags": []}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);

    b.goto(&format!("{}/infrastructure", control.base)).await;
    b.expect_text("#agents-table", "edge-1").await;
    expect(page.locator(".token-state").first())
        .with_timeout(wait)
        .to_have_text("used")
        .await
        .unwrap();
    b.expect_text("#enrollment-table", "accepted").await;
    b.screenshot("2-agent-enrolled").await;

    // Jobs: a bad component is refused at its field; a good job is queued, then cancelled.
    b.goto(&format!("{}/jobs", control.base)).await;
    b.wait_visible("#jobs-empty").await;
    b.open_form("#open-new-job", "#job-agent").await;
    let agent_id = key.public_key().agent_id().to_string();
    b.select("#job-agent", agent_id.as_str()).await;
    b.select("#job-kind", "restart_component").await;
    b.fill("#job-component", "nginx").await;
    page.locator("#queue-job").click(None).await.unwrap();
    b.expect_text(
        "#job-component-error",
        "Expected beacon-<name> or sidecar-<name>.",
    )
    .await;
    b.fill("#job-component", "sidecar-web").await;
    page.locator("#queue-job").click(None).await.unwrap();
    b.wait_visible("#job-queued").await;
    expect(page.locator("#jobs-table .badge").first())
        .with_timeout(wait)
        .to_have_text("pending")
        .await
        .unwrap();
    b.screenshot("3-job-queued").await;
    page.locator(".cancel-job")
        .first()
        .click(None)
        .await
        .unwrap();
    expect(page.locator("#jobs-table .badge").first())
        .with_timeout(wait)
        .to_have_text("cancelled")
        .await
        .unwrap();

    b.goto(&format!("{}/infrastructure", control.base)).await;
    page.locator(".agent-name")
        .first()
        .click(None)
        .await
        .unwrap();
    b.wait_visible("#agent-status").await;
    b.hydrated().await;
    page.locator("#revoke-agent").click(None).await.unwrap();
    b.wait_visible("#agent-question-explain").await;
    b.screenshot("4-revoke-confirmation").await;
    page.locator("#confirm-revoke-agent")
        .click(None)
        .await
        .unwrap();
    expect(page.locator("#agent-status"))
        .with_timeout(wait)
        .to_have_text("revoked")
        .await
        .unwrap();
    b.close().await;
}
