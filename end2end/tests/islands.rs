//! The islands build of the front end (app/src/islands.rs), in Chromium: the
//! page hydrates only its islands, and the parts
//! moved to islands so far work as in the full build: the frame (live
//! indicator, navigation, sign-out) and the network form (its rules as the
//! admin types, creating a network). Screens not yet moved are the server's
//! HTML only in this build, which is why the full build is the one shipped.

mod common;

use playwright_rs::expect;
use std::time::Duration;

/// The islands site: scripts/build-release.sh --islands (scripts/test.sh builds it).
fn islands_site() -> String {
    let site = std::env::var("KNOTROUTE_E2E_ISLANDS_SITE_ROOT").unwrap_or_else(|_| {
        common::workspace_root()
            .join("target/site-islands")
            .display()
            .to_string()
    });
    assert!(
        std::path::Path::new(&site).join("hash.txt").exists(),
        "{site} has no islands build: run scripts/build-release.sh --islands"
    );
    site
}

#[tokio::test]
async fn the_islands_build_hydrates_only_islands_and_they_work() {
    let site = islands_site();
    let control = common::start_control_with(&[("KNOTROUTE_CONTROL_SITE_ROOT", &site)]).await;
    let base = &control.base;
    let b = common::open_browser("islands", 390, 844, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);

    // The sign-in screen is not an island yet: sign in through its server
    // function from the page, as its form does, so the browser keeps the cookie.
    b.goto(&format!("{base}/login")).await;
    let status = page
        .evaluate_value(&format!(
            "fetch('/ui/sign_in', {{method: 'POST', headers: {{'Content-Type': \
             'application/x-www-form-urlencoded'}}, body: new URLSearchParams({{password: \
             '{}'}})}}).then(r => String(r.status))",
            common::PASSWORD
        ))
        .await
        .unwrap();
    assert_eq!(status, "200", "sign-in through the server function");

    b.goto(&format!("{base}/networks/new")).await;
    // The islands script hydrated the page: the main module and the form's
    // own chunk (one batch), none of the screen's code.
    let script = page
        .evaluate_value("document.querySelector('head script[type=module]').textContent")
        .await
        .unwrap();
    assert!(
        script.contains("leptos-island"),
        "the islands build's script: {script}"
    );
    let modules = page
        .evaluate_value(
            "JSON.stringify(performance.getEntriesByType('resource').map(e => e.name).filter(n => \
             n.includes('/pkg/') && (n.endsWith('.wasm') || n.includes('/batch/'))))",
        )
        .await
        .unwrap();
    let modules: Vec<String> = serde_json::from_str(&modules).unwrap();
    assert!(
        modules.len() <= 2,
        "the main module and at most the form's chunk: {modules:?}"
    );
    assert_eq!(
        page.locator("leptos-island[data-component^='NetworkForm'] #network-form")
            .count()
            .await
            .unwrap(),
        1,
        "the network form is an island"
    );

    // The frame's islands: live updates flow, the current screen is marked.
    b.wait_visible("#live-status[data-live='on']").await;
    expect(page.locator("nav.mainnav a[aria-current='page']"))
        .with_timeout(wait)
        .to_have_text("Networks")
        .await
        .unwrap();

    // The form's rules run in the browser as the admin types.
    b.fill("#network-name", "Island Lab").await;
    b.fill("#network-beacons", "http://beacon.example.net:7447")
        .await;
    b.expect_text(
        "#network-beacons-error",
        "Port 7447 is the relay transport, not the Beacon HTTP API.",
    )
    .await;
    b.screenshot("1-form-refuses-relay-port").await;

    // Creating the network loads its page (no client router in this build).
    b.fill("#network-beacons", "https://beacon.example.net")
        .await;
    page.locator("#save-network").click(None).await.unwrap();
    b.wait_visible("#onboard-users").await;
    assert!(
        page.url().starts_with(&format!("{base}/networks/kn_")),
        "the new network's page: {}",
        page.url()
    );
    b.hydrated().await;
    expect(page.locator("h1"))
        .with_timeout(wait)
        .to_have_text("Island Lab")
        .await
        .unwrap();
    b.screenshot("2-network-created").await;

    // Sign-out, an island of the frame, ends the session.
    page.locator("#sign-out").click(None).await.unwrap();
    page.wait_for_url(&format!("{base}/login"), None)
        .await
        .unwrap();
    // Leaving a page cuts its live stream; that is no fault.
    let problems: Vec<String> = b
        .problems()
        .into_iter()
        .filter(|p| !p.contains("/api/v1/events"))
        .collect();
    assert!(
        problems.is_empty(),
        "no console errors or failed requests: {problems:?}"
    );
    b.close().await;
}
