//! Beacons on the Infrastructure screen in a real browser: an external Beacon
//! checked healthy with its latency; "Add existing Beacon" refuses the relay
//! port beside the field, then adds a Beacon whose port is closed, and its
//! check says "connection refused" with what to do. Desktop and phone sizes.

mod common;

use playwright_rs::expect;
use std::time::Duration;

/// A Beacon stand-in answering every request with 200 "ok".
fn healthy_beacon() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut request = [0u8; 2048];
            let _ = stream.read(&mut request);
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        }
    });
    url
}

#[tokio::test]
async fn an_admin_checks_an_external_beacon_and_adds_an_existing_one() {
    let control = common::start_control().await;
    let healthy = healthy_beacon();
    let network_id = common::create_network(&control.base, "Office", &[&healthy]).await;
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };

    let b = common::open_browser("beacons", 1280, 900, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(15);
    b.sign_in(&control.base).await;
    // Beacons are a tab of Infrastructure, with its own URL.
    b.goto(&format!("{}/infrastructure", control.base)).await;
    b.hydrated().await;
    page.locator("nav.tabs a[href='/infrastructure/beacons']")
        .click(None)
        .await
        .unwrap();
    b.wait_visible("#beacons-table").await;
    // A page load in the islands build. Check is a plain form: its answer
    // is the page again, with the result.
    assert!(
        page.url().ends_with("/infrastructure/beacons"),
        "{}",
        page.url()
    );
    let healthy_row = format!(".beacon-row[data-url='{healthy}']");
    expect(page.locator(&healthy_row))
        .with_timeout(wait)
        .to_contain_text("external, unmanaged")
        .await
        .unwrap();
    expect(page.locator(&healthy_row))
        .with_timeout(wait)
        .to_contain_text("not checked yet")
        .await
        .unwrap();
    page.locator(format!("{healthy_row} .check-beacon"))
        .click(None)
        .await
        .unwrap();
    expect(page.locator(format!(
        "{healthy_row} .beacon-check .check-result[data-class='ok']"
    )))
    .with_timeout(wait)
    .to_contain_text(" ms")
    .await
    .unwrap();

    // The relay port is refused beside the field, before anything is sent.
    b.open_form("#open-add-beacon", "#beacon-network").await;
    b.select("#beacon-network", network_id.as_str()).await;
    b.fill("#beacon-url", "http://10.1.2.3:7447").await;
    page.locator("#add-beacon-submit")
        .click(None)
        .await
        .unwrap();
    expect(page.locator("#beacon-url-error"))
        .with_timeout(wait)
        .to_contain_text("7447")
        .await
        .unwrap();
    b.fill("#beacon-url", &closed).await;
    page.locator("#add-beacon-submit")
        .click(None)
        .await
        .unwrap();
    expect(page.locator("#add-beacon-done"))
        .with_timeout(wait)
        .to_contain_text("Added")
        .await
        .unwrap();
    let closed_row = format!(".beacon-row[data-url='{closed}']");
    page.locator(format!("{closed_row} .check-beacon"))
        .click(None)
        .await
        .unwrap();
    expect(page.locator(format!(
        "{closed_row} .beacon-check .check-result[data-class='connect']"
    )))
    .with_timeout(wait)
    .to_contain_text("Connection refused")
    .await
    .unwrap();
    b.screenshot("1-beacons-checked").await;

    // The stored results come back on a fresh load, and on a phone.
    let phone = common::open_browser("beacons-phone", 390, 844, "en-US").await;
    phone.sign_in(&control.base).await;
    phone
        .goto(&format!("{}/infrastructure/beacons", control.base))
        .await;
    expect(phone.page.locator(format!(
        ".beacon-row[data-url='{closed}'] .beacon-check .check-result"
    )))
    .with_timeout(wait)
    .to_contain_text("connect")
    .await
    .unwrap();
    phone.screenshot("2-beacons-phone").await;
    phone.close().await;
    b.close().await;
}
