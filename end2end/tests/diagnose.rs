//! Diagnose on a network's page, in a real browser: one healthy and one
//! broken Beacon are both shown, in the profile's order, the broken one with
//! its next step; then the Beacons tab draws the healthy one's 24-hour
//! sparkline and the broken one's last failure; on a desktop and on a
//! 390×844 phone.

mod common;

use playwright_rs::expect;
use std::time::Duration;

async fn diagnose(width: u32, height: u32, name: &str) {
    let control = common::start_control().await;
    let healthy = test_kit::http_beacon(200, "ok").await;
    let broken = test_kit::closed_port_url();
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

    // Two real checks of each Beacon, and 23 earlier hours of the healthy
    // one's roll-ups (a day cannot pass in a test), one hour with failures.
    let admin = common::admin_client(&control.base).await;
    for _ in 0..2 {
        for url in [&healthy, &broken] {
            let r = admin
                .post_json(
                    "/api/v1/beacons/check",
                    serde_json::json!({"network_id": id, "url": url}),
                )
                .await;
            assert_eq!(r.status(), 200);
        }
    }
    control
        .sql(&format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 23) \
             INSERT INTO beacon_check_hours \
             (network_id, url, hour, checks, failures, latency_sum_ms, latency_max_ms) \
             SELECT '{id}', '{healthy}', strftime('%Y-%m-%dT%H:00:00+00:00', 'now', '-' || i || ' hours'), \
             60, CASE WHEN i = 5 THEN 3 ELSE 0 END, (60 - CASE WHEN i = 5 THEN 3 ELSE 0 END) * (8 + (i * 7) % 23), 90 FROM n"
        ))
        .await;
    b.goto(&format!("{}/infrastructure/beacons", control.base))
        .await;
    let row = |url: &str| format!(".beacon-row[data-url='{url}']");
    let line = page.locator(format!("{} svg.sparkline path.spark-line", row(&healthy)));
    expect(line.clone())
        .with_timeout(wait)
        .to_be_visible()
        .await
        .unwrap();
    let d = line.get_attribute("d").await.unwrap().unwrap_or_default();
    assert!(
        d.matches('L').count() >= 20,
        "a line through the day's hours: {d}"
    );
    let failed_hours = page
        .locator(format!("{} svg.sparkline rect.spark-fail", row(&healthy)))
        .count()
        .await
        .unwrap();
    assert_eq!(failed_hours, 1);
    expect(page.locator(format!("{} .last-failure", row(&broken))))
        .with_timeout(wait)
        .to_contain_text("connect")
        .await
        .unwrap();
    b.screenshot("2-beacons-sparkline").await;
    b.close().await;
}

crate::on_desktop_and_phone!(diagnose, "diagnose");
