//! Each Beacon check failure class in a real browser, against local servers
//! standing in for Beacons: HTTP 500 (with the body excerpt), TLS with an
//! untrusted certificate, and a server that never answers (timeout). Healthy
//! and closed-port Beacons are in `beacons.rs`. Phone size (390×844), where
//! the table becomes cards.

mod common;

use playwright_rs::expect;
use std::time::Duration;

#[tokio::test]
async fn each_failure_class_is_named_with_what_to_do() {
    let control = common::start_control().await;
    let failing = test_kit::http_beacon(500, "database is down").await;
    let tls = test_kit::untrusted_tls_beacon().await;
    let silent = test_kit::silent_beacon().await;
    common::create_network(&control.base, "Office", &[&failing, &tls, &silent]).await;

    let b = common::open_browser("beacon-failures", 390, 844, "en-US").await;
    let page = &b.page;
    // The silent Beacon takes the whole 5 s check timeout.
    let wait = Duration::from_secs(15);
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/infrastructure/beacons", control.base))
        .await;
    b.wait_visible("#beacons-table").await;
    b.hydrated().await;
    for (url, class, says) in [
        (&failing, "http_status", "database is down"),
        (&tls, "tls", "TLS failure"),
        (&silent, "timeout", "Timed out"),
    ] {
        let row = format!(".beacon-row[data-url='{url}']");
        page.locator(format!("{row} .check-beacon"))
            .click(None)
            .await
            .unwrap();
        expect(page.locator(format!(
            "{row} .beacon-check .check-result[data-class='{class}']"
        )))
        .with_timeout(wait)
        .to_contain_text(says)
        .await
        .unwrap();
    }
    expect(page.locator(format!(
        ".beacon-row[data-url='{failing}'] .beacon-check .check-result"
    )))
    .to_contain_text("500")
    .await
    .unwrap();
    b.screenshot("1-failure-classes-phone").await;
    b.close().await;
}
