//! The Audit log screen in a real browser: a change made through the API is
//! listed with who, what and its subject linked to the thing's page; the
//! action filter lives in the query string and says when nothing matches.

mod common;

use playwright_rs::expect;
use std::time::Duration;

#[tokio::test]
async fn an_admin_reads_and_filters_the_audit_log() {
    let control = common::start_control().await;
    let network_id = common::create_network(&control.base, "Audited office", &[]).await;
    let b = common::open_browser("audit", 1280, 900, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/audit", control.base)).await;
    let row = page.locator(".audit-row:has-text('network.created')");
    expect(row.clone())
        .with_timeout(wait)
        .to_contain_text("Audited office")
        .await
        .unwrap();
    b.wait_visible(&format!(".audit-row a[href='/networks/{network_id}']"))
        .await;
    b.screenshot("1-audit").await;

    // A filter with no match says so; the filter is in the address.
    b.fill("#audit-action", "network.deleted").await;
    page.locator("#audit-filters button")
        .click(None)
        .await
        .unwrap();
    b.expect_text("#audit-empty", "No entry matches").await;
    assert!(
        page.url().contains("action=network.deleted"),
        "{}",
        page.url()
    );
    b.close().await;
}
