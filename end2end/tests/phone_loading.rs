//! What a screen costs a phone to load: how many requests, whether the HTML
//! names the screen's WebAssembly up front (so it loads beside the main
//! module, not after it), and how long the browser may keep each file. The
//! counts are deterministic. The times are not on a shared machine, so they
//! are left to `phone_benchmark` at the bottom, which scripts/bench-phone.sh
//! runs with the phone profile.

mod common;

use common::phone::{describe, seeded_control, Fetched, NetworkLog, LIVE_STREAM};
use common::Browsing;
use std::time::Duration;

/// The phone budget's request limits (BENCHMARKS.md): a first load, and a
/// screen reached from another in the app.
const FIRST_LOAD_REQUESTS: usize = 12;
const NAVIGATION_REQUESTS: usize = 3;
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

fn is_asset(f: &Fetched) -> bool {
    f.url.contains("/pkg/")
}

/// Loads `url` as a person would and waits until it is interactive, its live
/// indicator is on, and it has stopped fetching.
async fn load(b: &Browsing, log: &NetworkLog, url: &str) {
    b.goto(url).await;
    b.wait_visible("#live-status[data-live=\"on\"]").await;
    log.settle().await;
}

/// The change feed was idle while the fixture was written, so the first
/// screen to listen (sign-in's Overview) re-reads once when the feed's first
/// fresh reading arrives (http/admin/events.rs: never a missed change). Lets
/// that happen and end before anything is counted or timed.
async fn let_the_first_re_read_happen(b: &Browsing, log: &NetworkLog, base: &str) {
    load(b, log, &format!("{base}/")).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    log.settle().await;
}

/// A first visit: the cache emptied, and from a blank page, so that the
/// last page's live stream and requests are closed and cannot hold the
/// browser's six connections to the host.
async fn load_cold(b: &Browsing, log: &NetworkLog, url: &str) {
    b.page.goto("about:blank", None).await.unwrap();
    log.clear_cache().await;
    log.clear();
    load(b, log, url).await;
}

/// The absolute URLs the page's HTML preloads.
async fn preloaded(b: &Browsing) -> Vec<String> {
    let list = b
        .page
        .evaluate_value(
            "JSON.stringify([...document.querySelectorAll('link[rel=preload], link[rel=modulepreload]')].map(l => l.href))",
        )
        .await
        .unwrap();
    serde_json::from_str(&list).unwrap()
}

/// Whether the page asked for `url` only after it became interactive (its
/// mark `knotroute-hydrated`), by the page's own timeline.
async fn asked_once_interactive(b: &Browsing, url: &str) -> bool {
    let url = serde_json::to_string(url).unwrap();
    let asked = b
        .page
        .evaluate_value(&format!(
            "(() => {{ const r = performance.getEntriesByName({url}, 'resource')[0]; \
             const h = performance.getEntriesByName('knotroute-hydrated')[0]; \
             return String(!!r && !!h && r.startTime >= h.startTime); }})()"
        ))
        .await
        .unwrap();
    asked == "true"
}

/// No chunk is in two of the batches a page preloads: the page would fetch
/// its bytes twice, and which batch the loader reads it from would depend on
/// their order.
fn assert_each_chunk_named_once(screen: &str, named: &[String]) {
    let mut seen = std::collections::HashSet::new();
    for batch in named.iter().filter_map(|url| url.split_once("/pkg/batch/")) {
        for key in batch.1.split('.') {
            assert!(
                seen.insert(key),
                "{screen}: chunk {key} is in two preloaded batches: {named:#?}"
            );
        }
    }
}

#[tokio::test]
async fn every_screen_loads_in_a_few_requests_and_keeps_its_files() {
    let (control, screens) = seeded_control().await;
    let b = common::open_browser("phone-loading", 390, 844, "en-US").await;
    b.sign_in(&control.base).await;
    let log = NetworkLog::attach(&b).await;
    for screen in &screens {
        let url = format!("{}{}", control.base, screen.path);
        load_cold(&b, &log, &url).await;
        let first = log.requests();
        let listing = describe(&first);
        assert!(
            first.len() <= FIRST_LOAD_REQUESTS,
            "{}: {} requests on a first visit, at most {FIRST_LOAD_REQUESTS}:\n{listing}",
            screen.name,
            first.len()
        );
        let named = preloaded(&b).await;
        assert_each_chunk_named_once(screen.name, &named);
        // The WebAssembly comes as the main module and one batch of the screen's chunks.
        let wasm = |f: &&Fetched| f.url.ends_with(".wasm") || f.url.contains("/pkg/batch/");
        // A part an island fetches only once the page is interactive (a
        // job's output reading) is not needed to get there: it may come after.
        for wasm in first.iter().filter(wasm) {
            assert!(
                named.contains(&wasm.url) || asked_once_interactive(&b, &wasm.url).await,
                "{}: {} was fetched without the HTML naming it up front, before the page was \
                 interactive; preloaded: {named:#?}",
                screen.name,
                wasm.url
            );
        }
        for f in &first {
            let expected = if is_asset(f) {
                IMMUTABLE
            } else if f.url == url {
                "no-store"
            } else {
                continue;
            };
            assert_eq!(
                f.cache_control, expected,
                "{}: {} is sent with the wrong Cache-Control",
                screen.name, f.url
            );
        }
        // Again: the browser asks for none of the files, not even to revalidate.
        log.clear();
        load(&b, &log, &url).await;
        let again: Vec<Fetched> = log.requests().into_iter().filter(is_asset).collect();
        // Else the next visit would fetch what this one did not name.
        assert_eq!(
            preloaded(&b).await,
            named,
            "{}: a second visit named other files up front",
            screen.name
        );
        assert!(
            again.is_empty(),
            "{}: a second visit fetched files again:\n{}\nThe first visit's requests:\n{listing}",
            screen.name,
            describe(&again)
        );
    }
    b.close().await;
}

#[tokio::test]
async fn a_second_screen_reached_in_the_app_costs_at_most_three_requests() {
    let (control, screens) = seeded_control().await;
    let b = common::open_browser("phone-navigation", 390, 844, "en-US").await;
    b.sign_in(&control.base).await;
    let log = NetworkLog::attach(&b).await;
    let overview = format!("{}/", control.base);
    // Not the navigation's cost.
    let_the_first_re_read_happen(&b, &log, &control.base).await;
    let in_nav = [
        "/networks",
        "/infrastructure",
        "/services",
        "/onboarding",
        "/jobs",
        "/audit",
        "/settings",
    ];
    let mut off_budget = Vec::new();
    for target in screens.iter().filter(|s| in_nav.contains(&s.path.as_str())) {
        load_cold(&b, &log, &overview).await;
        log.clear();
        b.page
            .locator(format!("nav.mainnav a[href=\"{}\"]", target.path))
            .click(None)
            .await
            .unwrap();
        b.wait_visible(&format!(
            "nav.mainnav a[href=\"{}\"][aria-current=\"page\"]",
            target.path
        ))
        .await;
        log.settle().await;
        let fetched: Vec<Fetched> = log
            .requests()
            .into_iter()
            .filter(|f| !f.url.contains(LIVE_STREAM))
            .collect();
        if fetched.len() > NAVIGATION_REQUESTS {
            off_budget.push(format!(
                "Overview → {}: {} requests, expected at most {NAVIGATION_REQUESTS}:\n{}",
                target.name,
                fetched.len(),
                describe(&fetched)
            ));
        }
    }
    assert!(off_budget.is_empty(), "{}", off_budget.join("\n"));
    b.close().await;
}

/// When the page became interactive: hydrated, with its live indicator on
/// (the marks `knotroute-hydrated` and `knotroute-live`), in ms from the
/// start of navigation. A build without the marks is timed when the test
/// saw both, a little later than they happened.
async fn interactive_after(b: &Browsing) -> f64 {
    b.page
        .evaluate_value(
            "(() => { const at = n => (performance.getEntriesByName(n)[0] || {startTime: NaN}).startTime; \
             const t = Math.max(at('knotroute-hydrated'), at('knotroute-live')); \
             return String(Number.isNaN(t) ? performance.now() : t); })()",
        )
        .await
        .unwrap()
        .parse()
        .unwrap()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The timed benchmark (BENCHMARKS.md): every screen on the phone profile,
/// cold (empty cache) and warm, the median of `KNOTROUTE_BENCH_RUNS` runs.
#[tokio::test]
#[ignore = "timed benchmark: scripts/bench-phone.sh runs it"]
async fn phone_benchmark() {
    let runs: usize = std::env::var("KNOTROUTE_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    // KNOTROUTE_BENCH_REQUESTS=1 lists each screen's cold requests too.
    let list_requests = std::env::var_os("KNOTROUTE_BENCH_REQUESTS").is_some();
    let (control, screens) = seeded_control().await;
    let b = common::open_browser("phone-benchmark", 390, 844, "en-US").await;
    b.sign_in(&control.base).await;
    let log = NetworkLog::attach(&b).await;
    // Before the first cold load leaves for about:blank: that load once
    // cancelled those two calls and waited 30 s on requests whose end it
    // never saw.
    let_the_first_re_read_happen(&b, &log, &control.base).await;
    log.throttle_like_a_phone().await;
    println!("phone profile: 150 ms RTT, 1.6 Mbit/s down, 750 kbit/s up, CPU 4x slower, 390x844; median of {runs} runs");
    println!("| screen | interactive, cold | interactive, warm | requests, cold | transfer, cold | requests, warm |");
    println!("|---|---|---|---|---|---|");
    for screen in &screens {
        let url = format!("{}{}", control.base, screen.path);
        let (mut cold, mut warm) = (Vec::new(), Vec::new());
        let (mut requests, mut bytes, mut warm_requests) = (0, 0.0, 0);
        for _ in 0..runs {
            load_cold(&b, &log, &url).await;
            cold.push(interactive_after(&b).await);
            let fetched = log.requests();
            requests = fetched.len();
            bytes = fetched.iter().map(|f| f.bytes).sum();
            if list_requests {
                println!("{} (cold):\n{}", screen.name, describe(&fetched));
            }
            log.clear();
            load(&b, &log, &url).await;
            warm.push(interactive_after(&b).await);
            warm_requests = log.requests().len();
        }
        println!(
            "| {} | {:.2} s | {:.2} s | {requests} | {:.0} KB | {warm_requests} |",
            screen.name,
            median(cold) / 1000.0,
            median(warm) / 1000.0,
            bytes / 1000.0
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    b.close().await;
}
