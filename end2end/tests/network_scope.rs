//! Network scope in the browser: the owner invites an operator
//! who sees only one network, choosing it in Settings → Users; the person,
//! on a phone, finds the other network absent (lists, Overview count, a
//! direct link not found); the owner moves them to the other network from
//! their row, and the person's next page follows. The server side of every
//! route is in server/tests/network_scope.rs.

mod common;

use playwright_rs::expect;

/// Whether the page's `selector` text contains `text` (no waiting).
async fn shows(b: &common::Browsing, selector: &str, text: &str) -> bool {
    b.page
        .locator(selector)
        .inner_text()
        .await
        .unwrap_or_default()
        .contains(text)
}

#[tokio::test]
async fn a_person_limited_to_one_network_sees_only_that_one() {
    let control = common::start_control().await;
    let base = control.base.clone();
    let alpha = common::create_network(&base, "Alpha", &[]).await;
    let bravo = common::create_network(&base, "Bravo", &[]).await;

    // The owner: role operator, not all networks, only Alpha.
    let owner = common::open_browser("scope-owner", 1280, 900, "en-US").await;
    owner.sign_in(&base).await;
    owner.goto(&format!("{base}/settings/people")).await;
    owner.open_form("#open-invite", "#invite-role").await;
    owner.select("#invite-role", "operator").await;
    owner.wait_visible("#invite-networks-all").await;
    owner
        .page
        .locator("#invite-networks-all")
        .uncheck(None)
        .await
        .unwrap();
    // None chosen yet: the form says so instead of inviting.
    owner
        .page
        .locator("#invite-user")
        .click(None)
        .await
        .unwrap();
    owner
        .expect_text("#invite-error", "Choose at least one network")
        .await;
    owner
        .page
        .locator(format!("#invite-networks-{alpha}"))
        .check(None)
        .await
        .unwrap();
    // A new choice takes the refusal of the last one away.
    expect(owner.page.locator("#invite-error"))
        .to_have_text("")
        .await
        .unwrap();
    owner.screenshot("1-invite-one-network").await;
    owner
        .page
        .locator("#invite-user")
        .click(None)
        .await
        .unwrap();
    owner.wait_visible("#user-invite-link").await;
    let link = owner
        .page
        .locator("#user-invite-link")
        .inner_text()
        .await
        .unwrap();
    let path = &link[link.find("/welcome/").expect("a welcome link")..];

    // The person, on a phone.
    let ops = common::open_browser("scope-operator", 390, 844, "en-US").await;
    common::accept_welcome(&ops, &base, path, "ops-alpha").await;
    ops.expect_text("#count-networks", "1").await;
    ops.goto(&format!("{base}/networks")).await;
    ops.wait_visible("#networks-table").await;
    assert!(shows(&ops, "#networks-table", "Alpha").await);
    assert!(
        !shows(&ops, "#networks-table", "Bravo").await,
        "Bravo is not listed"
    );
    ops.screenshot("2-only-alpha").await;
    ops.goto(&format!("{base}/networks/{bravo}")).await;
    ops.expect_text("[role=alert]", "No network profile with this ID.")
        .await;
    ops.goto(&format!("{base}/onboarding")).await;
    ops.open_form("#open-new-invite", "#invite-network").await;
    assert!(
        !shows(&ops, "main", "Bravo").await,
        "Bravo is not offered for invites"
    );

    // The owner moves them to Bravo from their row.
    let people = common::admin_client(&base)
        .await
        .get_json::<Vec<serde_json::Value>>("/api/v1/users")
        .await;
    let id = people[0]["id"].as_str().unwrap().to_string();
    owner.goto(&format!("{base}/settings/people")).await;
    owner.hydrated().await;
    owner.expect_text(&format!("#networks-{id}"), "Alpha").await;
    owner
        .page
        .locator(format!("#networks-{id} summary"))
        .click(None)
        .await
        .unwrap();
    owner
        .page
        .locator(format!("#networks-of-{id}-{alpha}"))
        .uncheck(None)
        .await
        .unwrap();
    owner
        .page
        .locator(format!("#networks-of-{id}-{bravo}"))
        .check(None)
        .await
        .unwrap();
    owner
        .page
        .locator(format!("#save-networks-{id}"))
        .click(None)
        .await
        .unwrap();
    owner
        .expect_text(&format!("#networks-{id} summary"), "Bravo")
        .await;
    owner.screenshot("3-moved-to-bravo").await;
    owner.close().await;

    ops.goto(&format!("{base}/networks")).await;
    ops.wait_visible("#networks-table").await;
    assert!(shows(&ops, "#networks-table", "Bravo").await);
    assert!(
        !shows(&ops, "#networks-table", "Alpha").await,
        "Alpha is gone at the next page"
    );
    ops.screenshot("4-only-bravo").await;
    ops.close().await;
}
