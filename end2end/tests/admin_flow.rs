//! What an administrator does first, in a real browser: sign in (and fail to),
//! create a network, be stopped by the relay-port rule, rename, delete, sign out.
//! Once at desktop size and once at a phone's 390×844.

mod common;

use playwright_rs::expect;
use std::time::Duration;

async fn network_lifecycle(width: u32, height: u32, name: &str) {
    let control = common::start_control().await;
    let b = common::open_browser(name, width, height, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);

    // A wrong password is refused on the form.
    b.goto(&format!("{}/networks", control.base)).await;
    assert!(
        page.url().contains("/login?next="),
        "unauthenticated pages lead to sign-in: {}",
        page.url()
    );
    b.fill("#password", "not the password").await;
    page.locator("button[type=submit]")
        .click(None)
        .await
        .unwrap();
    expect(page.locator("#login-error"))
        .with_timeout(wait)
        .to_have_text("Wrong name or password.")
        .await
        .unwrap();
    b.screenshot("1-wrong-password").await;

    // The right one leads back to where the admin wanted to go.
    b.fill("#password", common::PASSWORD).await;
    page.locator("button[type=submit]")
        .click(None)
        .await
        .unwrap();
    page.wait_for_url(&format!("{}/networks", control.base), None)
        .await
        .unwrap();
    b.hydrated().await;
    b.wait_visible("#networks-empty").await;
    b.screenshot("2-empty-networks").await;

    // New network: generated ID, and the relay port refused before saving.
    page.locator("#new-network").click(None).await.unwrap();
    page.wait_for_url(&format!("{}/networks/new", control.base), None)
        .await
        .unwrap();
    b.wait_visible("#network-name").await;
    b.fill("#network-name", "Browser Lab").await;
    b.fill("#network-beacons", "http://beacon.example.net:7447")
        .await;
    b.expect_text(
        "#network-beacons-error",
        "Port 7447 is the relay transport, not the Beacon HTTP API.",
    )
    .await;
    b.screenshot("3-relay-port-refused").await;
    page.locator("#save-network").click(None).await.unwrap();
    // Still on the form: nothing was sent.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(page.url().ends_with("/networks/new"));

    b.fill("#network-beacons", "https://beacon.example.net")
        .await;
    expect(page.locator("#network-beacons-error"))
        .with_timeout(wait)
        .to_be_hidden()
        .await
        .unwrap();
    page.locator("#save-network").click(None).await.unwrap();
    page.wait_for_url(&format!("{}/networks/kn_*", control.base), None)
        .await
        .unwrap();
    let id = b.network_page_id().await;
    assert!(
        id.starts_with("kn_") && id.len() == 55,
        "generated Network ID: {id}"
    );
    b.screenshot("4-created").await;

    // Rename.
    b.fill("#network-name", "Browser Lab Renamed").await;
    page.locator("#save-network").click(None).await.unwrap();
    expect(page.locator("#saved-status"))
        .with_timeout(wait)
        .to_have_text("Saved.")
        .await
        .unwrap();
    b.goto(&format!("{}/networks", control.base)).await;
    b.expect_text("#networks-table", "Browser Lab Renamed")
        .await;
    expect(page.locator("#networks-table"))
        .to_contain_text(&id)
        .await
        .unwrap();
    b.screenshot("5-list").await;

    // Delete, after a confirmation that can be cancelled.
    page.locator(".network-name").click(None).await.unwrap();
    b.wait_visible("#delete-network").await;
    page.locator("#delete-network").click(None).await.unwrap();
    b.wait_visible("[role=alertdialog]").await;
    b.screenshot("6-confirm-delete").await;
    page.keyboard().press("Escape", None).await.unwrap();
    expect(page.locator("[role=alertdialog]"))
        .with_timeout(wait)
        .to_be_hidden()
        .await
        .unwrap();
    page.locator("#delete-network").click(None).await.unwrap();
    page.locator("#confirm-delete").click(None).await.unwrap();
    page.wait_for_url(&format!("{}/networks", control.base), None)
        .await
        .unwrap();
    b.wait_visible("#networks-empty").await;

    // Sign out ends the session.
    page.locator("#sign-out").click(None).await.unwrap();
    page.wait_for_url(&format!("{}/login", control.base), None)
        .await
        .unwrap();
    b.goto(&format!("{}/networks", control.base)).await;
    assert!(page.url().contains("/login"), "signed out: {}", page.url());
    b.screenshot("7-signed-out").await;
    b.close().await;
}

crate::on_desktop_and_phone!(network_lifecycle, "admin-flow");
