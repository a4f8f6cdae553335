//! Two-step sign-in in a real browser: a person turns it on in Settings by
//! scanning (here: reading) the QR code's otpauth link, confirms with the
//! app's code and sees ten recovery codes; the next sign-in asks for a code.
//! The owner sees the badge, requires two-step sign-in of everyone and
//! resets the person's (a lost phone): her password alone sets up nothing;
//! with the setup link the owner makes her, her next sign-in sets up a new
//! app on the sign-in screen itself and shows new recovery codes.

mod common;

use common::{accept_welcome, Browsing, PERSON_PASSWORD};
use test_kit::authenticator::{code_now, next_code};

/// The otpauth URI the setup offers, as an app on the phone opens it.
async fn offered_uri(b: &Browsing) -> String {
    b.wait_visible("#two-step-qr svg").await;
    b.page
        .locator("#two-step-open")
        .get_attribute("href")
        .await
        .unwrap()
        .expect("a link for an app on this device")
}

/// Fills the sign-in form as anna and submits it.
async fn sign_in_as_anna(b: &Browsing, base: &str) {
    b.goto(&format!("{base}/login")).await;
    b.fill("#name", "anna").await;
    b.fill("#password", PERSON_PASSWORD).await;
    b.page
        .locator("button[type=submit]")
        .click(None)
        .await
        .unwrap();
}

async fn submit_code(b: &Browsing, code: &str) {
    b.fill("#code", code).await;
    b.page
        .locator("button[type=submit]")
        .click(None)
        .await
        .unwrap();
}

async fn two_step(width: u32, height: u32, name: &str) {
    let control = common::start_control().await;
    let base = control.base.clone();
    let api = common::admin_client(&base).await;
    let r = api
        .post_json(
            "/api/v1/users/invites",
            serde_json::json!({ "role": "operator" }),
        )
        .await;
    let link: serde_json::Value = r.json().await.unwrap();
    let link = link["link"].as_str().unwrap();
    let path = &link[link.find("/welcome/").unwrap()..];

    // Anna turns it on in Settings.
    let anna = common::open_browser(&format!("{name}-anna"), width, height, "en-US").await;
    accept_welcome(&anna, &base, path, "anna").await;
    anna.goto(&format!("{base}/settings")).await;
    anna.expect_text("#two-step-state", "Off").await;
    anna.page
        .locator("#two-step-turn-on")
        .click(None)
        .await
        .unwrap();
    let uri = offered_uri(&anna).await;
    anna.screenshot("1-scan").await;
    anna.fill("#two-step-code", "123").await;
    anna.page
        .locator("#two-step-confirm-button")
        .click(None)
        .await
        .unwrap();
    anna.expect_text("#two-step-error", "6 digits").await;
    anna.fill("#two-step-code", &code_now(&uri)).await;
    anna.page
        .locator("#two-step-confirm-button")
        .click(None)
        .await
        .unwrap();
    anna.wait_visible("#recovery-codes").await;
    assert_eq!(
        anna.page
            .locator("#recovery-codes li")
            .count()
            .await
            .unwrap(),
        10
    );
    anna.expect_text("#two-step-state", "On").await;
    anna.expect_text("#recovery-codes-left", "10").await;
    anna.screenshot("2-recovery-codes").await;
    // New codes or turning it off: a form of its own, which asks for a code.
    anna.open_form("#two-step-manage-open", "#two-step-code")
        .await;
    anna.fill("#two-step-code", "123").await;
    anna.page
        .locator("#two-step-new-codes")
        .click(None)
        .await
        .unwrap();
    anna.expect_text("#two-step-error", "6 digits").await;
    anna.wait_visible("#two-step-turn-off").await;
    anna.close().await;

    // The next sign-in asks for a code after the password.
    let again = common::open_browser(&format!("{name}-anna-again"), width, height, "en-US").await;
    sign_in_as_anna(&again, &base).await;
    again.expect_text("#login-error", "6-digit code").await;
    again.wait_visible("#code").await;
    again.screenshot("3-code-asked").await;
    submit_code(&again, &next_code(&uri)).await;
    again
        .page
        .wait_for_url(&format!("{base}/"), None)
        .await
        .unwrap();
    again.close().await;

    // The owner sees the badge, requires it, and resets anna's.
    let owner = common::open_browser(&format!("{name}-owner"), width, height, "en-US").await;
    owner.sign_in(&base).await;
    owner.goto(&format!("{base}/settings/people")).await;
    owner
        .expect_text("#users-table .user-row", "two-step")
        .await;
    owner
        .page
        .locator("#require-two-step")
        .check(None)
        .await
        .unwrap();
    owner
        .page
        .locator("#save-two-step-requirement")
        .click(None)
        .await
        .unwrap();
    let mut required = false;
    for _ in 0..50 {
        let policy: serde_json::Value = api.get_json("/api/v1/users/second-factor").await;
        required = policy["required"] == true;
        if required {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(required, "the form requires two-step sign-in");
    owner
        .page
        .locator("#users-table a[id^=reset-two-step-]")
        .click(None)
        .await
        .unwrap();
    owner.wait_visible("#confirm-reset-two-step").await;
    owner.screenshot("4-confirm-reset").await;
    owner
        .page
        .locator("#confirm-reset-two-step")
        .click(None)
        .await
        .unwrap();
    owner.wait_visible("#users-table .user-row").await;
    for _ in 0..50 {
        if owner
            .page
            .locator("#users-table .badge.ok")
            .count()
            .await
            .unwrap()
            == 0
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        owner
            .page
            .locator("#users-table .badge.ok")
            .count()
            .await
            .unwrap(),
        0,
        "the badge is gone after the reset"
    );

    // A new phone: the password alone sets no second factor up (a stolen
    // one would set up the thief's); the owner hands her a setup link.
    let new_phone = common::open_browser(&format!("{name}-anna-new"), width, height, "en-US").await;
    sign_in_as_anna(&new_phone, &base).await;
    new_phone
        .expect_text("#login-error", "needs a setup link from the owner")
        .await;
    new_phone.screenshot("5-needs-a-setup-link").await;
    let people: Vec<serde_json::Value> = api.get_json("/api/v1/users").await;
    let anna_id = people.iter().find(|p| p["name"] == "anna").expect("listed")["id"]
        .as_str()
        .unwrap()
        .to_string();
    owner.goto(&format!("{base}/settings/people")).await;
    owner
        .open_form("#open-two-step-link", "#two-step-link-person")
        .await;
    owner.select("#two-step-link-person", &anna_id).await;
    owner
        .page
        .locator("#create-two-step-link")
        .click(None)
        .await
        .unwrap();
    owner.wait_visible("#two-step-link").await;
    let setup_link = owner
        .page
        .locator("#two-step-link")
        .text_content()
        .await
        .unwrap()
        .unwrap_or_default();
    owner.screenshot("6-setup-link").await;
    owner.close().await;

    // She opens it in the browser she signs in with, then the sign-in
    // screen sets up the new app and shows new codes.
    let path = &setup_link[setup_link.find("/two-step-setup/").expect("a setup link")..];
    new_phone.goto(&format!("{base}{path}")).await;
    new_phone
        .page
        .wait_for_url(&format!("{base}/login?two_step=setup"), None)
        .await
        .unwrap();
    sign_in_as_anna(&new_phone, &base).await;
    new_phone
        .expect_text("#login-error", "requires two-step sign-in")
        .await;
    let new_uri = offered_uri(&new_phone).await;
    assert_ne!(new_uri, uri, "a new secret");
    new_phone.screenshot("7-set-up-at-sign-in").await;
    submit_code(&new_phone, &code_now(&new_uri)).await;
    new_phone
        .wait_visible("#recovery-codes-after-sign-in")
        .await;
    new_phone.screenshot("8-codes-at-sign-in").await;
    new_phone
        .page
        .locator("#codes-saved")
        .click(None)
        .await
        .unwrap();
    new_phone
        .page
        .wait_for_url(&format!("{base}/"), None)
        .await
        .unwrap();
    new_phone.close().await;
}

crate::on_desktop_and_phone!(two_step, "two-step");
