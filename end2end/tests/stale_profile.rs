//! Two admins on one profile: a save based on what the form showed before
//! someone else's change is refused in the form (with a way to reload), loses
//! nothing typed, and the other admin's Beacon stays. Desktop and phone.

mod common;

use playwright_rs::expect;
use std::time::Duration;

async fn a_stale_save_is_refused_in_the_form(width: u32, height: u32, name: &str) {
    let control = common::start_control().await;
    let base = control.base.clone();
    let id = common::create_network(&base, "Shared", &["https://one.example.net"]).await;
    let b = common::open_browser(name, width, height, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);
    b.sign_in(&base).await;
    b.goto(&format!("{base}/networks/{id}")).await;
    b.hydrated().await;
    b.wait_visible("#network-name").await;

    // Meanwhile another admin adds a Beacon through the API.
    let other = common::admin_client(&base).await;
    let r = other
        .post_json(
            "/api/v1/beacons",
            serde_json::json!({"network_id": id, "url": "https://two.example.net"}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());

    // This admin, still looking at the old list, renames and saves.
    b.fill("#network-name", "Shared, renamed").await;
    page.locator("#save-network").click(None).await.unwrap();
    b.expect_text(
        "#form-error",
        "Someone else changed this profile since you opened it.",
    )
    .await;
    b.wait_visible("#reload-profile").await;
    b.screenshot("stale-refused").await;
    // Nothing typed is lost, and nothing was saved over the other change.
    let typed = page
        .locator("#network-name")
        .input_value(None)
        .await
        .unwrap();
    assert_eq!(typed, "Shared, renamed");
    let stored: serde_json::Value = other.get_json(&format!("/api/v1/networks/{id}")).await;
    assert_eq!(stored["name"], "Shared");
    assert_eq!(
        stored["beacons"],
        serde_json::json!(["https://one.example.net", "https://two.example.net"])
    );

    // Reload shows both Beacons; saving then works.
    page.locator("#reload-profile").click(None).await.unwrap();
    b.hydrated().await;
    expect(page.locator("#network-beacons"))
        .with_timeout(wait)
        .to_have_value("https://one.example.net\nhttps://two.example.net")
        .await
        .unwrap();
    b.fill("#network-name", "Shared, renamed").await;
    page.locator("#save-network").click(None).await.unwrap();
    expect(page.locator("#saved-status"))
        .with_timeout(wait)
        .to_have_text("Saved.")
        .await
        .unwrap();
    b.close().await;
}

crate::on_desktop_and_phone!(a_stale_save_is_refused_in_the_form, "stale");
