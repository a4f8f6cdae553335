//! The islands build of the front end (app/src/islands.rs), the one shipped,
//! in Chromium: the page hydrates only its islands, and they work: sign-in;
//! the frame's live indicator (its navigation and sign-out are plain HTML);
//! the Overview and the job list (live regions without an island, Cancel a
//! plain form; the new-job button an island); a job's
//! page; the network form (its rules as the admin types, creating a
//! network); and Diagnose and Delete on a network's page. The other browser
//! tests run against the same build; end2end/tests/full_build.rs keeps the
//! full build working.

mod common;

use playwright_rs::expect;
use std::time::Duration;

#[tokio::test]
async fn the_islands_build_hydrates_only_islands_and_they_work() {
    let control = common::start_control().await;
    let base = &control.base;
    let b = common::open_browser("islands", 390, 844, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);

    // Sign-in is an island: a wrong password is answered on the form, the
    // right one goes on to the Overview.
    b.goto(&format!("{base}/login")).await;
    assert_eq!(
        page.locator("leptos-island[data-component^='SignInForm'] form")
            .count()
            .await
            .unwrap(),
        1,
        "the sign-in form is an island"
    );
    b.fill("#password", "not the password").await;
    page.locator("button[type=submit]")
        .click(None)
        .await
        .unwrap();
    b.wait_visible("#password[aria-invalid='true']").await;
    let refusal = page
        .locator("#login-error")
        .text_content()
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(
        !refusal.trim().is_empty(),
        "a wrong password is answered on the form"
    );
    // The refusal's answer is logged by Chromium as a failed resource.
    b.forget_problems();
    b.sign_in(base).await;

    // The Overview's counts and lists are no island: a live region the page's
    // early script draws again from the server's HTML on live updates
    // (app::live_region). An Agent that enrolls while it is open is counted,
    // no reload.
    assert_eq!(
        page.locator("#overview-live[data-live-region='agents jobs'] #count-agents")
            .count()
            .await
            .unwrap(),
        1,
        "the Overview's counts are a live region"
    );
    assert_eq!(
        page.locator("leptos-island #count-agents")
            .count()
            .await
            .unwrap(),
        0,
        "the Overview's counts need no island"
    );
    b.wait_visible("#live-status[data-live='on']").await;
    let agents_online = page.locator("#count-agents .stat-value");
    expect(agents_online.clone())
        .with_timeout(wait)
        .to_have_text("0")
        .await
        .unwrap();
    page.evaluate::<(), ()>("() => { window.__sameDocument = 'yes'; }", None)
        .await
        .unwrap();
    let agent = common::SimAgent::enrolled(&control, 42, "edge-1").await;
    expect(agents_online)
        .with_timeout(wait)
        .to_have_text("1")
        .await
        .unwrap();
    let same = page
        .evaluate::<(), String>("() => window.__sameDocument || 'reloaded'", None)
        .await
        .unwrap();
    assert_eq!(same, "yes", "the Overview updates without a reload");
    b.screenshot("0-overview-live").await;

    // The job list is a live region too, its Cancel a plain form; only the
    // new-job button is an island. A job queued meanwhile appears without a
    // reload, and Cancel works on it.
    b.goto(&format!("{base}/jobs")).await;
    b.wait_visible("#jobs-empty").await;
    assert_eq!(
        page.locator("#jobs-live[data-live-region='jobs progress'] #jobs-empty")
            .count()
            .await
            .unwrap(),
        1,
        "the job list is a live region"
    );
    assert_eq!(
        page.locator("leptos-island[data-component^='NewJob'] #open-new-job")
            .count()
            .await
            .unwrap(),
        1,
        "the new-job button is an island"
    );
    b.wait_visible("#live-status[data-live='on']").await;
    page.evaluate::<(), ()>("() => { window.__sameDocument = 'yes'; }", None)
        .await
        .unwrap();
    let job = common::queue_restart(base, &agent.id(), "sidecar-web").await;
    let job_status = format!(".job-row[data-job='{job}'] .badge");
    expect(page.locator(job_status.clone()))
        .with_timeout(wait)
        .to_have_text("pending")
        .await
        .unwrap();
    let same = page
        .evaluate::<(), String>("() => window.__sameDocument || 'reloaded'", None)
        .await
        .unwrap();
    assert_eq!(same, "yes", "the job list updates without a reload");
    assert_eq!(
        page.locator("leptos-island .job-row")
            .count()
            .await
            .unwrap(),
        0,
        "the job list needs no island"
    );
    page.locator(format!(".job-row[data-job='{job}'] .cancel-job"))
        .click(None)
        .await
        .unwrap();
    expect(page.locator(job_status))
        .with_timeout(wait)
        .to_have_text("cancelled")
        .await
        .unwrap();
    assert!(
        // server_fn's redirect leaves an empty query ("/jobs?").
        page.url().trim_end_matches('?').ends_with("/jobs"),
        "Cancel leads back to the list: {}",
        page.url()
    );

    // A job's own page: Cancel is a plain form there too.
    let job = common::queue_restart(base, &agent.id(), "sidecar-web").await;
    b.goto(&format!("{base}/jobs/{job}")).await;
    b.expect_text("#job-status", "pending").await;
    page.locator("#cancel-this-job").click(None).await.unwrap();
    b.expect_text("#job-status", "cancelled").await;

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

    // The form's rules run in the browser as the admin types; creating the
    // network loads its page (no client router in this build).
    b.create_network_through_form("Island Lab").await;
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

    // Diagnose, an island, and Delete, a plain form, on the network's page.
    page.locator("#diagnose-run").click(None).await.unwrap();
    expect(page.locator("#diagnosis .diag-line").first())
        .with_timeout(Duration::from_secs(30))
        .to_be_visible()
        .await
        .unwrap();
    page.locator("#delete-network").click(None).await.unwrap();
    b.wait_visible("[role=alertdialog]").await;
    page.locator("#confirm-delete").click(None).await.unwrap();
    page.wait_for_url(&format!("{base}/networks"), None)
        .await
        .unwrap();
    b.wait_visible("#networks-empty").await;

    // Sign-out, an island of the frame, ends the session.
    b.sign_out_without_problems(base).await;
    b.close().await;
}
