//! Starts a real Control (the binary `cargo leptos build --release` produced,
//! with its WebAssembly front end) on a free loopback port and a fresh SQLite
//! data directory, and a headless Chromium driven by playwright-rs.

#![allow(dead_code)]

pub mod containers;
pub mod leftovers;
pub mod phone;

use playwright_rs::{
    Browser, BrowserContext, BrowserContextOptions, LaunchOptions, Page, Playwright,
    ScreenshotOptions, Viewport, WaitForOptions, WaitForState,
};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const PASSWORD: &str = "browser-test-admin-password";
pub const ENROLL: &str = test_kit::TEST_ENROLL_TOKEN;
pub use test_kit::SimAgent;

pub struct Control {
    pub base: String,
    child: Child,
    _data: tempfile::TempDir,
}

impl test_kit::TestControl for Control {
    fn base_url(&self) -> &str {
        &self.base
    }

    fn admin_password(&self) -> &str {
        PASSWORD
    }
}

impl Drop for Control {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Control {
    /// Runs one SQL statement on Control's SQLite file, for states a browser
    /// cannot reach in a test's time (an invite whose expiry has passed).
    pub async fn sql(&self, statement: &str) {
        use sea_orm::ConnectionTrait;
        let file = self._data.path().join("knotroute-control.sqlite3");
        let db = sea_orm::Database::connect(format!("sqlite://{}?mode=rw", file.display()))
            .await
            .unwrap();
        db.execute_unprepared(statement).await.unwrap();
        db.close().await.unwrap();
    }
}

pub async fn start_control() -> Control {
    start_control_with(&[]).await
}

/// Control with extra settings (`KNOTROUTE_CONTROL_…` variables).
pub async fn start_control_with(settings: &[(&str, &str)]) -> Control {
    start_control_at(free_port(), settings).await
}

/// Control on loopback port `port` (known ahead, e.g. for its public URL).
pub async fn start_control_at(port: u16, settings: &[(&str, &str)]) -> Control {
    let bin = std::env::var("KNOTROUTE_E2E_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|_| workspace_root().join("target/release/knotroute-control"));
    let site = std::env::var("KNOTROUTE_E2E_SITE_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|_| workspace_root().join("target/site"));
    assert!(
        bin.exists(),
        "{} is missing: run scripts/build-release.sh first (scripts/test.sh does)",
        bin.display()
    );
    assert!(
        site.join("hash.txt").exists() || site.join("pkg/knotroute.wasm").exists(),
        "{} has no front end: run scripts/build-release.sh",
        site.display()
    );
    let data = tempfile::tempdir().unwrap();
    let child = Command::new(&bin)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("KNOTROUTE_CONTROL_ADMIN_PASSWORD", PASSWORD)
        .env("KNOTROUTE_CONTROL_ENROLL_TOKEN", ENROLL)
        .env("KNOTROUTE_CONTROL_DATA", data.path())
        .env("KNOTROUTE_CONTROL_LISTEN", format!("127.0.0.1:{port}"))
        .env("KNOTROUTE_CONTROL_SITE_ROOT", &site)
        .env("RUST_LOG", "warn")
        // Scheduled checks would change what a Beacon row shows while a test
        // looks at it; a test that wants them sets an interval.
        .env("KNOTROUTE_CONTROL_BEACON_CHECK_INTERVAL", "0")
        .envs(settings.iter().copied())
        .stdout(Stdio::null())
        .spawn()
        .expect("start knotroute-control");
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(r) = reqwest::get(format!("{base}/readyz")).await {
            if r.status().is_success() {
                break;
            }
        }
        assert!(Instant::now() < deadline, "Control did not become ready");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Control {
        base,
        child,
        _data: data,
    }
}

pub struct Browsing {
    pub playwright: Playwright,
    pub browser: Browser,
    pub context: BrowserContext,
    pub page: Page,
    name: String,
    /// Console errors and failed requests, shown when a page does not hydrate.
    events: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

pub async fn open_browser(name: &str, width: u32, height: u32, locale: &str) -> Browsing {
    let playwright = Playwright::launch()
        .await
        .expect("playwright driver (scripts/install-tools.sh --browser provides it)");
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
    ];
    let browser = playwright
        .chromium()
        .launch_with_options(
            LaunchOptions::new()
                .headless(true)
                .executable_path(
                    std::env::var("KNOTROUTE_E2E_CHROMIUM")
                        .unwrap_or_else(|_| "/usr/bin/chromium".into()),
                )
                .args(args.iter().map(|a| a.to_string()).collect()),
        )
        .await
        .expect("launch Chromium");
    let context = browser
        .new_context_with_options(
            BrowserContextOptions::builder()
                .viewport(Viewport { width, height })
                .locale(locale.to_string())
                .build(),
        )
        .await
        .unwrap();
    let page = context.new_page().await.unwrap();
    let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = events.clone();
    page.on_console(move |m| {
        let seen = seen.clone();
        async move {
            if m.type_() == "error" || m.type_() == "warning" {
                seen.lock()
                    .unwrap()
                    .push(format!("console {}: {}", m.type_(), m.text()));
            }
            Ok(())
        }
    })
    .await
    .unwrap();
    let seen = events.clone();
    page.on_request_failed(move |r| {
        let seen = seen.clone();
        async move {
            let why = r.failure().unwrap_or_default();
            seen.lock().unwrap().push(format!(
                "request failed: {} {} ({why})",
                r.method(),
                r.url()
            ));
            Ok(())
        }
    })
    .await
    .unwrap();
    Browsing {
        playwright,
        browser,
        context,
        page,
        name: name.to_string(),
        events,
    }
}

impl Browsing {
    /// Waits up to `ms` for `selector` to reach `state`.
    async fn wait(
        &self,
        selector: &str,
        state: WaitForState,
        ms: f64,
    ) -> Result<(), playwright_rs::Error> {
        self.page
            .locator(selector)
            .wait_for(WaitForOptions::builder().state(state).timeout(ms).build())
            .await
    }

    /// Types `value` into the field `selector`, replacing what it held.
    pub async fn fill(&self, selector: &str, value: &str) {
        self.page.locator(selector).fill(value, None).await.unwrap();
    }

    /// Chooses the option whose value is `value` in the select `selector`.
    pub async fn select(&self, selector: &str, value: &str) {
        self.page
            .locator(selector)
            .select_option(value, None)
            .await
            .unwrap();
    }

    /// Waits up to 10 s for `selector` to contain `text`.
    pub async fn expect_text(&self, selector: &str, text: &str) {
        playwright_rs::expect(self.page.locator(selector))
            .with_timeout(std::time::Duration::from_secs(10))
            .to_contain_text(text)
            .await
            .unwrap();
    }

    /// Waits until the WebAssembly has hydrated the page, so clicks reach Rust handlers.
    pub async fn hydrated(&self) {
        for attempt in 1.. {
            let waited = self
                .wait(
                    "body[data-hydrated=\"true\"]",
                    WaitForState::Attached,
                    15_000.0,
                )
                .await;
            match waited {
                Ok(()) => return,
                Err(_) if attempt < 3 && self.network_changed() => self.reload().await,
                Err(e) => {
                    self.fail(&format!("the page did not hydrate within 15 s ({e})"))
                        .await
                }
            }
        }
    }

    /// Whether Chromium aborted requests because it saw the machine's
    /// network change (`net::ERR_NETWORK_CHANGED`): it does when Docker adds
    /// or removes a container's interface, which the container tests do
    /// while a page loads. Nothing of Control's is at fault then.
    fn network_changed(&self) -> bool {
        self.events
            .lock()
            .unwrap()
            .iter()
            .any(|e| e.contains("ERR_NETWORK_CHANGED"))
    }

    /// Console errors and warnings and failed requests seen so far.
    pub fn problems(&self) -> Vec<String> {
        self.events.lock().unwrap().clone()
    }

    /// On the new-network form: names the network, checks that the form
    /// refuses the relay port as the admin types, then saves it with a good
    /// Beacon URL and waits for the new network's page.
    pub async fn create_network_through_form(&self, name: &str) {
        self.fill("#network-name", name).await;
        self.fill("#network-beacons", "http://beacon.example.net:7447")
            .await;
        self.expect_text(
            "#network-beacons-error",
            "Port 7447 is the relay transport, not the Beacon HTTP API.",
        )
        .await;
        self.screenshot("form-refuses-relay-port").await;
        self.fill("#network-beacons", "https://beacon.example.net")
            .await;
        self.page
            .locator("#save-network")
            .click(None)
            .await
            .unwrap();
        self.wait_visible("#onboard-users").await;
    }

    /// Signs out with the frame's button, and asserts that the walk so far
    /// logged no console errors or failed requests (leaving a page cuts its
    /// live stream; that is no fault).
    pub async fn sign_out_without_problems(&self, base: &str) {
        self.page.locator("#sign-out").click(None).await.unwrap();
        self.page
            .wait_for_url(&format!("{base}/login"), None)
            .await
            .unwrap();
        let problems: Vec<String> = self
            .problems()
            .into_iter()
            .filter(|p| !p.contains(phone::LIVE_STREAM))
            .collect();
        assert!(
            problems.is_empty(),
            "no console errors or failed requests: {problems:?}"
        );
    }

    /// Forgets the problems seen so far: after a step whose refusal the
    /// browser reports as a failed resource (a 4xx answer, on purpose).
    pub fn forget_problems(&self) {
        self.events.lock().unwrap().clear();
    }

    /// Loads the page again after a network change, as a person would.
    async fn reload(&self) {
        eprintln!("[browser] Chromium saw the network change (a container's interface came or went) and aborted requests: reloading");
        self.events.lock().unwrap().clear();
        self.page.reload(None).await.unwrap();
    }

    /// Panics with what the page loaded and what went wrong (console errors,
    /// failed requests) and a screenshot, to tell a slow machine from a front
    /// end that failed.
    pub async fn fail(&self, what: &str) -> ! {
        self.screenshot("failed").await;
        let loaded = self
            .page
            .evaluate_value(
                "JSON.stringify({url: location.href, state: document.readyState, \
                 hydrated: document.body.dataset.hydrated || null, \
                 resources: performance.getEntriesByType('resource').map(e => \
                 [e.name, Math.round(e.startTime), Math.round(e.duration), e.transferSize, e.responseStatus])})",
            )
            .await
            .unwrap_or_else(|e| format!("(could not ask the page: {e})"));
        let events = self.events.lock().unwrap().join("\n");
        panic!("{what}.\nloaded: {loaded}\nevents:\n{events}");
    }

    pub async fn goto(&self, url: &str) {
        self.page.goto(url, None).await.unwrap();
        self.hydrated().await;
    }

    /// Saves a screenshot under target/e2e-screenshots for people to look at.
    pub async fn screenshot(&self, step: &str) {
        save_screenshot(&self.page, &format!("{}-{step}", self.name)).await;
    }

    /// Signs in through the form and waits for the Overview.
    pub async fn sign_in(&self, base: &str) {
        self.goto(&format!("{base}/login")).await;
        self.page
            .locator("#password")
            .fill(PASSWORD, None)
            .await
            .unwrap();
        self.page
            .locator("button[type=submit]")
            .click(None)
            .await
            .unwrap();
        self.page
            .wait_for_url(&format!("{base}/"), None)
            .await
            .unwrap();
        self.hydrated().await;
    }

    /// The Network ID shown on a profile's own page, once that page (loaded
    /// lazily) has replaced the new-profile form, which has a field of the same id.
    pub async fn network_page_id(&self) -> String {
        self.wait_visible("#onboard-users").await;
        self.page
            .locator("#network-id")
            .input_value(None)
            .await
            .unwrap()
    }

    /// Opens a form that loads on demand (`pages::on_demand`): once the page
    /// is interactive, presses its button and waits for `field`.
    pub async fn open_form(&self, button: &str, field: &str) {
        for attempt in 1.. {
            self.hydrated().await;
            self.page.locator(button).click(None).await.unwrap();
            match self.wait(field, WaitForState::Visible, 10_000.0).await {
                Ok(()) => return,
                // The form's chunk was cut off by a network change (see `network_changed`).
                Err(_) if attempt < 3 && self.network_changed() => self.reload().await,
                Err(e) => self.fail(&format!("{field} did not appear: {e}")).await,
            }
        }
    }

    pub async fn wait_visible(&self, selector: &str) {
        if let Err(e) = self.wait(selector, WaitForState::Visible, 10_000.0).await {
            self.fail(&format!("{selector} did not appear: {e}")).await;
        }
    }

    pub async fn close(self) {
        let _ = self.context.close().await;
        let _ = self.browser.close().await;
        let _ = self.playwright.shutdown().await;
    }
}

/// Saves a full-page screenshot of any page (another browser context's too)
/// as `target/e2e-screenshots/<name>.png`.
pub async fn save_screenshot(page: &Page, name: &str) {
    let dir = std::env::var("KNOTROUTE_E2E_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| workspace_root().join("target/e2e-screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    page.screenshot_to_file(
        &dir.join(format!("{name}.png")),
        ScreenshotOptions::builder().full_page(true).build(),
    )
    .await
    .unwrap();
}

/// One browser scenario as two tests: `desktop` (1280×900) and `phone`
/// (390×844). The scenario takes the width, the height and the name its
/// screenshots are filed under (`<name>-desktop`, `<name>-phone`).
#[macro_export]
macro_rules! on_desktop_and_phone {
    ($scenario:ident, $name:literal) => {
        #[tokio::test]
        async fn desktop() {
            $scenario(1280, 900, concat!($name, "-desktop")).await;
        }

        #[tokio::test]
        async fn phone() {
            $scenario(390, 844, concat!($name, "-phone")).await;
        }
    };
}

/// The admin's API session, signed in, as a script would use it.
pub async fn admin_client(base: &str) -> test_kit::AdminClient {
    let admin = test_kit::AdminClient::new(base, PASSWORD);
    admin.sign_in().await;
    admin
}

/// Queues a restart of `component` on the Agent through the admin API; the job's ID.
pub async fn queue_restart(base: &str, agent_id: &str, component: &str) -> String {
    let r = admin_client(base)
        .await
        .post_json(
            "/api/v1/jobs",
            serde_json::json!({"agent_id": agent_id, "kind": "restart_component",
            "payload": {"component_id": component}}),
        )
        .await;
    assert_eq!(r.status(), 201);
    r.json::<serde_json::Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A network profile made through the admin API; its ID.
pub async fn create_network(base: &str, name: &str, beacons: &[&str]) -> String {
    let r = admin_client(base)
        .await
        .post_json(
            "/api/v1/networks",
            serde_json::json!({"name": name, "beacons": beacons}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let created: serde_json::Value = r.json().await.unwrap();
    created["id"].as_str().unwrap().to_string()
}

/// The passphrase every invited test person chooses.
pub const PERSON_PASSWORD: &str = "a long enough passphrase";

/// Takes up the invitation at `path` (`/welcome/…`) as `name` in browser
/// `b`, through the real form; ends signed in and hydrated on the Overview.
pub async fn accept_welcome(b: &Browsing, base: &str, path: &str, name: &str) {
    b.page.goto(&format!("{base}{path}"), None).await.unwrap();
    b.fill("#name", name).await;
    b.fill("#password", PERSON_PASSWORD).await;
    b.fill("#password_again", PERSON_PASSWORD).await;
    b.page
        .locator("#welcome-form button[type=submit]")
        .click(None)
        .await
        .unwrap();
    if let Err(e) = b.page.wait_for_url(&format!("{base}/"), None).await {
        b.screenshot("welcome-stuck").await;
        b.fail(&format!("the welcome page did not sign {name} in: {e}"))
            .await;
    }
    b.hydrated().await;
}
