//! API tokens on the Settings screen in a real browser: a nameless token is
//! refused in the form, a write token is shown once, joins the list and
//! works for a script, and once revoked after a confirmation (which Cancel
//! leaves) it is refused.

mod common;

use playwright_rs::expect;

async fn create_use_revoke(width: u32, height: u32, name: &str) {
    let control = common::start_control().await;
    let b = common::open_browser(name, width, height, "en-US").await;
    let page = &b.page;
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/settings/tokens", control.base)).await;
    b.open_form("#open-new-token", "#token-name").await;
    expect(page.locator("#tokens-empty"))
        .to_contain_text("No API token yet")
        .await
        .unwrap();

    page.locator("#create-token").click(None).await.unwrap();
    b.expect_text("#token-name-error", "required").await;
    b.fill("#token-name", "deploy script").await;
    b.select("#token-scope", "write").await;
    page.locator("#create-token").click(None).await.unwrap();
    b.wait_visible("#new-token-value").await;
    let token = page
        .locator("#new-token-value")
        .text_content()
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(token.starts_with("krt_"), "{token}");
    b.expect_text("#tokens-table .token-row", "deploy script")
        .await;
    let listed = page
        .locator("#tokens-table")
        .text_content()
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(
        listed.contains(&token[..12]) && !listed.contains(&token),
        "{listed}"
    );
    b.screenshot("1-created").await;

    // A script with the token, without the password or a session.
    let script = reqwest::Client::new();
    let create = |label: &'static str| {
        script
            .post(format!("{}/api/v1/networks", control.base))
            .bearer_auth(&token)
            .json(&serde_json::json!({ "name": label }))
            .send()
    };
    assert_eq!(create("From a script").await.unwrap().status(), 201);

    // Revoke asks first, on the page's own address; Cancel leaves the token be.
    page.locator("#tokens-table .token-row .revoke-token")
        .click(None)
        .await
        .unwrap();
    b.wait_visible("#confirm-revoke-token").await;
    b.expect_text("#confirm-revoke-title", "deploy script")
        .await;
    b.screenshot("2-confirm-revoke").await;
    page.locator("#cancel-revoke-token")
        .click(None)
        .await
        .unwrap();
    expect(page.locator("#confirm-revoke"))
        .to_be_hidden()
        .await
        .unwrap();
    assert_eq!(create("Still works").await.unwrap().status(), 201);
    page.locator("#tokens-table .token-row .revoke-token")
        .click(None)
        .await
        .unwrap();
    page.locator("#confirm-revoke-token")
        .click(None)
        .await
        .unwrap();
    b.expect_text("#tokens-table .token-row .badge.bad", "revoked")
        .await;
    assert_eq!(
        page.locator("#confirm-revoke").count().await.unwrap(),
        0,
        "the question is gone once answered"
    );
    assert_eq!(create("Too late").await.unwrap().status(), 401);
    b.close().await;
}

crate::on_desktop_and_phone!(create_use_revoke, "tokens");
