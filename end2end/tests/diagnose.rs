//! Diagnose on a network's page, in a real browser: one healthy and one
//! broken Beacon are both shown, in the profile's order, the broken one with
//! its next step; on a desktop and on a 390×844 phone.

mod common;

use playwright_rs::expect;
use std::time::Duration;

async fn diagnose(width: u32, height: u32, name: &str) {
    let control = common::start_control().await;
    let healthy = standins::http_beacon(200, "ok").await;
    let broken = standins::closed_port_url();
    let id = common::create_network(&control.base, "Office", &[&healthy, &broken]).await;

    let b = common::open_browser(name, width, height, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(20);
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/networks/{id}", control.base)).await;
    b.wait_visible("#diagnose-run").await;
    b.hydrated().await;
    page.locator("#diagnose-run").click(None).await.unwrap();
    b.wait_visible("#diagnosis").await;
    let healthz_ok = format!(".diag-line[data-subject='{healthy}'][data-severity='ok']");
    expect(page.locator(&healthz_ok).nth(1))
        .with_timeout(wait)
        .to_contain_text("/healthz answered")
        .await
        .unwrap();
    let refused = format!(".diag-line[data-subject='{broken}'][data-severity='error']");
    expect(page.locator(&refused))
        .with_timeout(wait)
        .to_contain_text("Next step:")
        .await
        .unwrap();
    expect(page.locator(&refused))
        .with_timeout(wait)
        .to_contain_text("firewall")
        .await
        .unwrap();
    // The healthy Beacon's lines come first, as in the profile.
    let first = page
        .locator(".diag-line")
        .first()
        .get_attribute("data-subject")
        .await
        .unwrap();
    assert_eq!(first.as_deref(), Some(healthy.as_str()));
    let last_beacon_line = page
        .locator(format!(".diag-line[data-subject='{broken}']"))
        .count()
        .await
        .unwrap();
    assert_eq!(last_beacon_line, 1, "nothing is tried after a closed port");
    b.screenshot("1-diagnosis").await;
    b.close().await;
}

#[tokio::test]
async fn desktop() {
    diagnose(1280, 900, "diagnose-desktop").await;
}

#[tokio::test]
async fn phone() {
    diagnose(390, 844, "diagnose-phone").await;
}
