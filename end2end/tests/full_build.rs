//! The full build of the front end (`scripts/build-release.sh --full`), which
//! hydrates the whole page and routes in the browser. The islands build is
//! the one shipped and every other browser test runs against it; this keeps
//! the full build, which the same source compiles, working: whole-page
//! hydration, in-app navigation without a page load, a form that creates a
//! network and goes on to its page, and sign-out.

mod common;

use playwright_rs::expect;
use std::time::Duration;

/// The full build's site: scripts/build-release.sh --full (scripts/test.sh builds it).
fn full_site() -> String {
    let site = std::env::var("KNOTROUTE_E2E_FULL_SITE_ROOT").unwrap_or_else(|_| {
        common::workspace_root()
            .join("target/site-full")
            .display()
            .to_string()
    });
    assert!(
        std::path::Path::new(&site).join("hash.txt").exists(),
        "{site} has no full build: run scripts/build-release.sh --full"
    );
    site
}

#[tokio::test]
async fn the_full_build_hydrates_the_page_and_routes_in_the_browser() {
    let site = full_site();
    let control = common::start_control_with(&[("KNOTROUTE_CONTROL_SITE_ROOT", &site)]).await;
    let base = &control.base;
    let b = common::open_browser("full-build", 390, 844, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);
    b.sign_in(base).await;

    // The whole page hydrates: no island elements, and the live indicator
    // (an island in the other build) is on.
    assert_eq!(
        page.locator("leptos-island").count().await.unwrap(),
        0,
        "the full build renders islands as plain components"
    );
    b.wait_visible("#live-status[data-live='on']").await;

    // In-app navigation stays in the same document (the client router).
    page.evaluate::<(), ()>("() => { window.__sameDocument = 'yes'; }", None)
        .await
        .unwrap();
    page.locator("nav.mainnav a[href='/networks']")
        .click(None)
        .await
        .unwrap();
    expect(page.locator("nav.mainnav a[aria-current='page']"))
        .with_timeout(wait)
        .to_have_text("Networks")
        .await
        .unwrap();
    page.locator("#new-network").click(None).await.unwrap();
    b.wait_visible("#network-form").await;

    // The form's rules run as the admin types; saving goes on to the new
    // network's page, still without a page load.
    b.create_network_through_form("Full Lab").await;
    expect(page.locator("h1"))
        .with_timeout(wait)
        .to_have_text("Full Lab")
        .await
        .unwrap();
    let same = page
        .evaluate::<(), String>("() => window.__sameDocument || 'reloaded'", None)
        .await
        .unwrap();
    assert_eq!(
        same, "yes",
        "navigation and the form stayed in one document"
    );
    b.screenshot("0-network-created").await;

    b.sign_out_without_problems(base).await;
    b.close().await;
}
