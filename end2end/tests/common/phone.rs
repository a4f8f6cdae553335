//! Control as a phone sees it: something on every screen, the list of those
//! screens, and a record of what a page fetched over the network, taken from
//! Chromium's DevTools protocol (a cache hit is no request).

use super::{create_network, queue_restart, start_control, Browsing, Control, SimAgent};
use playwright_rs::protocol::CDPSession;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A screen of the signed-in app.
pub struct Screen {
    pub name: &'static str,
    pub path: String,
}

/// A Control with a profile, an Agent and a job, so that no screen is an
/// empty state only. The profile's long name is what made the Jobs filter
/// wider than a phone.
pub async fn seeded_control() -> (Control, Vec<Screen>) {
    let control = start_control().await;
    let base = &control.base;
    let network = create_network(
        base,
        "Branch office network for the northern warehouse region",
        &["https://beacon.example.net"],
    )
    .await;
    let agent = SimAgent::enrolled(&control, 42, "edge-1").await;
    let job = queue_restart(base, &agent.id(), "sidecar-web").await;
    let screens = vec![
        ("overview", "/".to_string()),
        ("networks", "/networks".to_string()),
        ("new-network", "/networks/new".to_string()),
        ("network", format!("/networks/{network}")),
        ("setup", format!("/networks/{network}/setup")),
        ("infrastructure", "/infrastructure".to_string()),
        ("beacons", "/infrastructure/beacons".to_string()),
        ("agent", format!("/infrastructure/agents/{}", agent.id())),
        ("services", "/services".to_string()),
        ("onboarding", "/onboarding".to_string()),
        ("jobs", "/jobs".to_string()),
        ("job", format!("/jobs/{job}")),
        ("audit", "/audit".to_string()),
        ("settings", "/settings".to_string()),
        ("settings-people", "/settings/people".to_string()),
        ("settings-tokens", "/settings/tokens".to_string()),
        ("policy", "/policy".to_string()),
    ]
    .into_iter()
    .map(|(name, path)| Screen { name, path })
    .collect();
    (control, screens)
}

/// One request as DevTools saw it.
#[derive(Clone, Debug, Default)]
pub struct Fetched {
    pub url: String,
    /// What asked for it, as DevTools names it ("Fetch", "Script", "Other"
    /// for a `<link rel=preload>`…): a file fetched twice shows by whom.
    pub kind: String,
    /// Answered from the browser's cache: no round trip.
    pub from_cache: bool,
    pub status: u16,
    pub cache_control: String,
    /// Bytes over the wire (compressed, with headers).
    pub bytes: f64,
    pub done: bool,
}

impl Fetched {
    /// A request still open, for a failure message: by whom, and whether
    /// the server answered at all (no status: it never sent its headers;
    /// a status: the body never ended).
    fn describe_open(&self) -> String {
        let answer = match self.status {
            0 => "no answer yet".to_string(),
            status => format!("answered {status}, body still open"),
        };
        format!("{} {} ({answer})", self.kind, self.url)
    }

    /// A request that goes over the network: not a cache hit, not a `data:`
    /// URL (the icon), and not an event about a request never seen sent.
    fn goes_out(&self) -> bool {
        !self.url.is_empty() && !self.from_cache && !self.url.starts_with("data:")
    }
}

/// What the page fetched since the last [`NetworkLog::clear`].
#[derive(Clone)]
pub struct NetworkLog {
    pub cdp: CDPSession,
    seen: Arc<Mutex<HashMap<String, Fetched>>>,
}

/// The live-update stream stays open for as long as the page does.
pub const LIVE_STREAM: &str = "/api/v1/events";

impl NetworkLog {
    pub async fn attach(b: &Browsing) -> Self {
        let cdp = b.context.new_cdp_session(&b.page).await.unwrap();
        let seen: Arc<Mutex<HashMap<String, Fetched>>> = Arc::default();
        let on = |event: &str, update: fn(&mut Fetched, &Value)| {
            let seen = seen.clone();
            cdp.on(event, move |e: Value| {
                let seen = seen.clone();
                async move {
                    let id = e["requestId"].as_str().unwrap_or_default().to_string();
                    update(seen.lock().unwrap().entry(id).or_default(), &e);
                    Ok(())
                }
            });
        };
        on("Network.requestWillBeSent", |f, e| {
            f.url = e["request"]["url"].as_str().unwrap_or_default().to_string();
            f.kind = e["type"].as_str().unwrap_or_default().to_string();
        });
        on("Network.requestServedFromCache", |f, _| f.from_cache = true);
        on("Network.responseReceived", |f, e| {
            let r = &e["response"];
            f.status = r["status"].as_u64().unwrap_or_default() as u16;
            f.from_cache |= r["fromDiskCache"].as_bool().unwrap_or(false)
                || r["fromPrefetchCache"].as_bool().unwrap_or(false)
                || r["fromServiceWorker"].as_bool().unwrap_or(false);
            let headers = r["headers"].as_object().cloned().unwrap_or_default();
            f.cache_control = headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("cache-control"))
                .and_then(|(_, v)| v.as_str())
                .unwrap_or_default()
                .to_string();
        });
        on("Network.loadingFinished", |f, e| {
            f.bytes = e["encodedDataLength"].as_f64().unwrap_or_default();
            f.done = true;
        });
        on("Network.loadingFailed", |f, _| f.done = true);
        cdp.send("Network.enable", None).await.unwrap();
        Self { cdp, seen }
    }

    pub fn clear(&self) {
        self.seen.lock().unwrap().clear();
    }

    /// Empties the HTTP cache, as for a first visit.
    pub async fn clear_cache(&self) {
        self.cdp
            .send("Network.clearBrowserCache", None)
            .await
            .unwrap();
    }

    /// The phone profile the phone budget is measured on: 150 ms round trip,
    /// 1.6 Mbit/s down, 750 kbit/s up, the CPU slowed 4×.
    pub async fn throttle_like_a_phone(&self) {
        self.cdp
            .send(
                "Network.emulateNetworkConditions",
                Some(json!({"offline": false, "latency": 150,
                    "downloadThroughput": 1_600_000 / 8, "uploadThroughput": 750_000 / 8})),
            )
            .await
            .unwrap();
        self.cdp
            .send("Emulation.setCPUThrottlingRate", Some(json!({"rate": 4})))
            .await
            .unwrap();
    }

    /// The requests that went over the network (cache hits left out).
    pub fn requests(&self) -> Vec<Fetched> {
        let mut all: Vec<Fetched> = self
            .seen
            .lock()
            .unwrap()
            .values()
            .filter(|f| f.goes_out())
            .cloned()
            .collect();
        all.sort_by(|a, b| a.url.cmp(&b.url));
        all
    }

    /// Waits until every request but the live stream has finished and none
    /// started for a moment: what a screen fetches has then been fetched.
    pub async fn settle(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut quiet_since = Instant::now();
        let mut last = usize::MAX;
        loop {
            let (count, pending) = {
                let seen = self.seen.lock().unwrap();
                let pending: Vec<String> = seen
                    .values()
                    .filter(|f| f.goes_out() && !f.done && !f.url.contains(LIVE_STREAM))
                    .map(Fetched::describe_open)
                    .collect();
                (seen.len(), pending)
            };
            if count != last || !pending.is_empty() {
                last = count;
                quiet_since = Instant::now();
            } else if quiet_since.elapsed() > Duration::from_millis(400) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the page kept fetching for 30 s; still open: {pending:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Lists the requests for a failure message.
pub fn describe(requests: &[Fetched]) -> String {
    requests
        .iter()
        .map(|f| {
            format!(
                "  {} {} {} [{}] {:.0} B",
                f.status, f.kind, f.url, f.cache_control, f.bytes
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
