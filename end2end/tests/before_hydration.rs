//! What a person does before the page has hydrated is not lost
//! (app/src/assets/before_hydration.js). On a phone the server's HTML is on
//! screen a second or more before the WebAssembly has arrived: a press
//! meanwhile used to do nothing, what was typed was not seen by the form, and
//! a form without an action went to its page's address with its fields in
//! the URL. Here the page's WebAssembly is held back (DevTools' Fetch domain)
//! while the admin fills in the new-network form and presses Save; once it
//! arrives, the network is created from what they typed. Sign-out is a
//! plain form and works without waiting. And the live updates' stream opens
//! with the HTML: a change made while the WebAssembly is on its way shows
//! once it has arrived.

mod common;

use playwright_rs::expect;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Holds every WebAssembly file and chunk batch the page asks for until
/// released (DevTools' Fetch domain); the cache is off, so that none comes
/// from it instead.
struct HeldWebAssembly {
    cdp: playwright_rs::protocol::CDPSession,
    paused: Arc<Mutex<Vec<String>>>,
    released: Arc<AtomicBool>,
}

impl HeldWebAssembly {
    async fn start(b: &common::Browsing) -> HeldWebAssembly {
        let cdp = b.context.new_cdp_session(&b.page).await.unwrap();
        let paused: Arc<Mutex<Vec<String>>> = Arc::default();
        let released = Arc::new(AtomicBool::new(false));
        {
            let (paused, released, cdp_in) = (paused.clone(), released.clone(), cdp.clone());
            cdp.on("Fetch.requestPaused", move |e: Value| {
                let (paused, released, cdp) = (paused.clone(), released.clone(), cdp_in.clone());
                async move {
                    let id = e["requestId"].as_str().unwrap_or_default().to_string();
                    if released.load(Ordering::SeqCst) {
                        let _ = cdp
                            .send("Fetch.continueRequest", Some(json!({ "requestId": id })))
                            .await;
                    } else {
                        paused.lock().unwrap().push(id);
                    }
                    Ok(())
                }
            });
        }
        cdp.send("Network.enable", None).await.unwrap();
        cdp.send(
            "Network.setCacheDisabled",
            Some(json!({ "cacheDisabled": true })),
        )
        .await
        .unwrap();
        cdp.send(
            "Fetch.enable",
            Some(json!({ "patterns": [
                { "urlPattern": "*/pkg/*.wasm" },
                { "urlPattern": "*/pkg/batch/*" },
            ] })),
        )
        .await
        .unwrap();
        HeldWebAssembly {
            cdp,
            paused,
            released,
        }
    }

    /// Waits until the page has asked for WebAssembly (and been held).
    async fn asked_for(&self) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while self.paused.lock().unwrap().is_empty() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the page asked for no WebAssembly"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn release(&self) {
        self.released.store(true, Ordering::SeqCst);
        let held: Vec<String> = std::mem::take(&mut *self.paused.lock().unwrap());
        for id in held {
            self.cdp
                .send("Fetch.continueRequest", Some(json!({ "requestId": id })))
                .await
                .unwrap();
        }
    }
}

async fn hydrated(b: &common::Browsing) -> String {
    b.page
        .evaluate_value("String(document.body.hasAttribute('data-hydrated'))")
        .await
        .unwrap()
}

/// Loads `path` through the page's own script, so that the test's call does
/// not wait for a load the held WebAssembly keeps from ending.
async fn open_while_held(b: &common::Browsing, path: &str) {
    b.page
        .evaluate::<(), ()>(
            &format!("() => {{ setTimeout(() => {{ location.href = '{path}'; }}, 0); }}"),
            None,
        )
        .await
        .unwrap();
}

#[tokio::test]
async fn a_form_filled_in_and_saved_before_hydration_is_saved_once_hydrated() {
    let control = common::start_control().await;
    let base = &control.base;
    let b = common::open_browser("before-hydration", 390, 844, "en-US").await;
    let page = &b.page;
    b.sign_in(base).await;
    let held = HeldWebAssembly::start(&b).await;

    open_while_held(&b, "/networks/new").await;
    b.wait_visible("#network-form").await;
    held.asked_for().await;

    b.fill("#network-name", "Early Lab").await;
    b.fill("#network-beacons", "https://beacon.example.net")
        .await;
    page.locator("#save-network").click(None).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        hydrated(&b).await,
        "false",
        "the page hydrated before the test pressed Save"
    );
    assert_eq!(
        page.url(),
        format!("{base}/networks/new"),
        "pressing Save before hydration must not submit the form to the page's address"
    );
    b.screenshot("0-saved-before-hydration").await;

    held.release().await;

    // Once hydrated, the press is made again with what was typed.
    b.wait_visible("#onboard-users").await;
    expect(page.locator("h1"))
        .with_timeout(Duration::from_secs(10))
        .to_have_text("Early Lab")
        .await
        .unwrap();
    assert!(
        page.url().starts_with(&format!("{base}/networks/kn_")),
        "the new network's page: {}",
        page.url()
    );
    b.screenshot("1-created-once-hydrated").await;
    b.close().await;
}

/// A network's page shows its Beacons in their box at once, before the
/// form has hydrated: a textarea's value is not in the server's HTML, so the
/// early script puts in the text drawn beside it (`data-value`). Without it,
/// the box stood empty for the second or more a phone waits.
#[tokio::test]
async fn a_networks_text_boxes_show_its_text_before_hydration() {
    let control = common::start_control().await;
    let base = &control.base;
    let beacons = ["https://a.example.net", "https://b.example.net:8443"];
    let id = common::create_network(base, "Boxes", &beacons).await;
    let b = common::open_browser("text-boxes-early", 390, 844, "en-US").await;
    let page = &b.page;
    b.sign_in(base).await;
    let held = HeldWebAssembly::start(&b).await;

    open_while_held(&b, &format!("/networks/{id}")).await;
    b.wait_visible("#network-form").await;
    held.asked_for().await;
    let one_per_line = beacons.join("\n");
    expect(page.locator("#network-beacons"))
        .with_timeout(Duration::from_secs(10))
        .to_have_value(&one_per_line)
        .await
        .unwrap();
    assert_eq!(hydrated(&b).await, "false", "the page hydrated too early");
    b.screenshot("0-text-before-hydration").await;

    held.release().await;
    b.hydrated().await;
    assert_eq!(
        page.locator("#network-beacons")
            .input_value(None)
            .await
            .unwrap(),
        one_per_line,
        "hydration keeps the text"
    );
    b.close().await;
}

/// Sign-out is the frame's plain form: it signs out at once, with the
/// WebAssembly still on its way (here: never arriving).
#[tokio::test]
async fn sign_out_works_before_the_webassembly_arrives() {
    let control = common::start_control().await;
    let base = &control.base;
    let b = common::open_browser("sign-out-early", 390, 844, "en-US").await;
    let page = &b.page;
    b.sign_in(base).await;
    let held = HeldWebAssembly::start(&b).await;

    open_while_held(&b, "/audit").await;
    b.wait_visible("#sign-out").await;
    held.asked_for().await;
    assert_eq!(hydrated(&b).await, "false", "the page hydrated too early");
    page.locator("#sign-out").click(None).await.unwrap();
    page.wait_for_url(&format!("{base}/login"), None)
        .await
        .unwrap();

    // The session is over: a screen sends the browser to sign in again.
    open_while_held(&b, "/networks").await;
    page.wait_for_url(&format!("{base}/login?next=%2Fnetworks"), None)
        .await
        .unwrap();
    b.close().await;
}

/// What the page's live updates' stream (`GET /api/v1/events`) did, as
/// DevTools saw it: answered, and the change events it brought.
struct StreamWatch {
    opened: Arc<AtomicBool>,
    changes: Arc<Mutex<u32>>,
}

impl StreamWatch {
    async fn start(b: &common::Browsing) -> StreamWatch {
        let cdp = b.context.new_cdp_session(&b.page).await.unwrap();
        let opened = Arc::new(AtomicBool::new(false));
        let changes: Arc<Mutex<u32>> = Arc::default();
        let seen = opened.clone();
        cdp.on("Network.responseReceived", move |e: Value| {
            let seen = seen.clone();
            async move {
                let url = e["response"]["url"].as_str().unwrap_or_default();
                if url.ends_with("/api/v1/events") && e["response"]["status"] == 200 {
                    seen.store(true, Ordering::SeqCst);
                }
                Ok(())
            }
        });
        let told = changes.clone();
        cdp.on("Network.eventSourceMessageReceived", move |e: Value| {
            let told = told.clone();
            async move {
                if e["eventName"] == "change" {
                    *told.lock().unwrap() += 1;
                }
                Ok(())
            }
        });
        cdp.send("Network.enable", None).await.unwrap();
        StreamWatch { opened, changes }
    }

    async fn wait_until(&self, what: &str, done: impl Fn(&Self) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !done(self) {
            assert!(tokio::time::Instant::now() < deadline, "{what}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[tokio::test]
async fn the_live_stream_opens_before_the_webassembly_and_keeps_what_changed_meanwhile() {
    let control = common::start_control().await;
    let base = &control.base;
    let b = common::open_browser("live-before-hydration", 390, 844, "en-US").await;
    b.sign_in(base).await;
    let stream = StreamWatch::start(&b).await;
    let held = HeldWebAssembly::start(&b).await;

    open_while_held(&b, "/infrastructure").await;
    b.wait_visible("#agents-empty").await;
    held.asked_for().await;
    stream
        .wait_until(
            "the stream did not open while the WebAssembly was held",
            |s| s.opened.load(Ordering::SeqCst),
        )
        .await;

    // An Agent enrolls meanwhile, and the stream says so before the page can listen.
    let agent = common::SimAgent::enrolled(&control, 42, "edge-1").await;
    stream
        .wait_until("the stream reported no change", |s| {
            *s.changes.lock().unwrap() > 0
        })
        .await;
    assert_eq!(hydrated(&b).await, "false", "the page hydrated too early");
    b.screenshot("live-0-held").await;

    held.release().await;
    b.hydrated().await;
    b.wait_visible("#live-status[data-live='on']").await;
    expect(
        b.page
            .locator(format!(".agent-row[data-agent='{}']", agent.id())),
    )
    .with_timeout(Duration::from_secs(10))
    .to_be_visible()
    .await
    .unwrap();
    b.screenshot("live-1-hydrated").await;
    b.close().await;
}
