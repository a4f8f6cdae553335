//! People in a real browser: the owner invites an operator from Settings →
//! Users, the invited person opens the link in a browser of their own,
//! chooses a name and password and lands signed in, without the Users
//! section; the owner sees them listed, changes their role and, after a
//! confirmation, disables them, which signs them out at once.

mod common;

use playwright_rs::expect;

const ANNA_PASSWORD: &str = "a long enough passphrase";

async fn invite_join_disable(width: u32, height: u32, name: &str) {
    let control = common::start_control().await;
    let owner = common::open_browser(&format!("{name}-owner"), width, height, "en-US").await;
    owner.sign_in(&control.base).await;
    owner
        .goto(&format!("{}/settings/people", control.base))
        .await;
    owner.wait_visible("#users-empty").await;
    owner.open_form("#open-invite", "#invite-role").await;
    owner.select("#invite-role", "operator").await;
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
        .text_content()
        .await
        .unwrap()
        .unwrap_or_default();
    let path = &link[link.find("/welcome/").expect("a welcome link")..];
    owner.screenshot("1-invited").await;

    // The invited person, in a browser of their own.
    let anna = common::open_browser(&format!("{name}-anna"), width, height, "en-US").await;
    anna.page
        .goto(&format!("{}{path}", control.base), None)
        .await
        .unwrap();
    anna.expect_text("#welcome-role", "operator").await;
    // Too short a password the browser itself holds back (minlength); the
    // server's own refusal shows when the two passwords differ.
    anna.fill("#name", "Anna").await;
    anna.fill("#password", ANNA_PASSWORD).await;
    anna.fill("#password_again", "a different passphrase").await;
    anna.page
        .locator("#welcome-form button[type=submit]")
        .click(None)
        .await
        .unwrap();
    anna.expect_text("#password_again-error", "The two passwords differ.")
        .await;
    expect(anna.page.locator("#name"))
        .to_have_value("Anna")
        .await
        .unwrap();
    anna.screenshot("2-welcome-refused").await;
    anna.fill("#password", ANNA_PASSWORD).await;
    anna.fill("#password_again", ANNA_PASSWORD).await;
    anna.page
        .locator("#welcome-form button[type=submit]")
        .click(None)
        .await
        .unwrap();
    anna.page
        .wait_for_url(&format!("{}/", control.base), None)
        .await
        .unwrap();
    anna.hydrated().await;
    anna.goto(&format!("{}/settings/tokens", control.base))
        .await;
    anna.wait_visible("#api-tokens").await;
    assert_eq!(
        anna.page
            .locator("#settings-tabs a[href=\"/settings/people\"]")
            .count()
            .await
            .unwrap(),
        0,
        "an operator is not shown the People tab"
    );
    let people = anna
        .page
        .goto(&format!("{}/settings/people", control.base), None)
        .await
        .unwrap()
        .expect("a response");
    assert_eq!(people.status(), 403, "the People tab is the owner's");
    anna.wait_visible("#users .error").await;

    // The owner sees her, changes her role, then disables her.
    owner
        .goto(&format!("{}/settings/people", control.base))
        .await;
    owner.expect_text("#users-table .user-row", "anna").await;
    owner.expect_text("#users-table .user-row", "1 ·").await;
    expect(owner.page.locator("#users-table select"))
        .to_have_value("operator")
        .await
        .unwrap();
    owner.select("#users-table select", "viewer").await;
    owner
        .page
        .locator("#users-table .role-form button[type=submit]")
        .click(None)
        .await
        .unwrap();
    let api = common::admin_client(&control.base).await;
    let mut role = String::new();
    for _ in 0..50 {
        let users: serde_json::Value = api.get_json("/api/v1/users").await;
        role = users[0]["role"].as_str().unwrap_or_default().to_string();
        if role == "viewer" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(role, "viewer", "the form changed her role");
    expect(owner.page.locator("#users-table select"))
        .to_have_value("viewer")
        .await
        .unwrap();
    owner
        .page
        .locator("#users-table a.danger")
        .first()
        .click(None)
        .await
        .unwrap();
    owner.wait_visible("#confirm-disable-user").await;
    owner.screenshot("3-confirm-disable").await;
    owner
        .page
        .locator("#confirm-disable-user")
        .click(None)
        .await
        .unwrap();
    owner
        .expect_text("#users-table .badge.bad", "disabled")
        .await;

    // Signed out at once: her next page is the sign-in screen, and her
    // password no longer opens anything.
    anna.page
        .goto(&format!("{}/settings", control.base), None)
        .await
        .unwrap();
    anna.page
        .wait_for_url(&format!("{}/login?next=%2Fsettings", control.base), None)
        .await
        .unwrap();
    anna.hydrated().await;
    anna.fill("#name", "anna").await;
    anna.fill("#password", ANNA_PASSWORD).await;
    anna.page
        .locator("button[type=submit]")
        .click(None)
        .await
        .unwrap();
    anna.expect_text("#login-error", "Wrong name or password.")
        .await;
    anna.screenshot("4-disabled").await;
    anna.close().await;
    owner.close().await;
}

crate::on_desktop_and_phone!(invite_join_disable, "users");
