//! Webhook alerts end to end, against a local webhook receiver: a flapping
//! Beacon alerts once per 5-minute window, a failed delivery is retried,
//! Agents going offline, failed jobs and services losing their `.knot`
//! address alert too, and the settings API sets the webhook and sends a
//! test alert.

mod common;

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::{Duration, Utc};
use protocol::beacons::BeaconRef;
use serde_json::{json, Value};
use server::domain::access::principal::Principal;
use std::sync::atomic::{AtomicU16, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A webhook receiver keeping every alert it accepted; it refuses the next
/// `fail_next` deliveries with 503.
#[derive(Clone, Default)]
struct Receiver {
    accepted: Arc<Mutex<Vec<Value>>>,
    fail_next: Arc<AtomicUsize>,
}

impl Receiver {
    fn events(&self) -> Vec<String> {
        self.accepted
            .lock()
            .unwrap()
            .iter()
            .map(|a| a["event"].as_str().unwrap_or("").to_string())
            .collect()
    }

    fn last(&self) -> Value {
        self.accepted.lock().unwrap().last().cloned().unwrap()
    }
}

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

async fn receiver() -> (String, Receiver) {
    async fn take(State(r): State<Receiver>, Json(alert): Json<Value>) -> StatusCode {
        if r.fail_next
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
        {
            return StatusCode::SERVICE_UNAVAILABLE;
        }
        r.accepted.lock().unwrap().push(alert);
        StatusCode::NO_CONTENT
    }
    let r = Receiver::default();
    let url = serve(
        Router::new()
            .route("/hook/secret-token", post(take))
            .with_state(r.clone()),
    )
    .await;
    (format!("{url}/hook/secret-token"), r)
}

/// A Beacon whose /healthz answers with the status set in the returned cell.
async fn switchable_beacon() -> (String, Arc<AtomicU16>) {
    let status = Arc::new(AtomicU16::new(200));
    let cell = status.clone();
    let app = Router::new().route(
        "/healthz",
        get(move || {
            let cell = cell.clone();
            async move { StatusCode::from_u16(cell.load(Ordering::SeqCst)).unwrap() }
        }),
    );
    (serve(app).await, status)
}

on_both_databases!(
    a_flapping_beacon_alerts_once_per_window_and_failed_deliveries_are_retried,
    |backend| async move {
        let (hook, received) = receiver().await;
        let c = common::start_with(
            backend,
            common::Options {
                alert_webhook: Some(hook.clone()),
                ..Default::default()
            },
        )
        .await;
        c.sign_in().await;
        let (url, health) = switchable_beacon().await;
        let r = c
            .create_network(json!({"name": "Office", "beacons": [url]}))
            .await;
        assert_eq!(r.status(), 201);
        let profile: Value = r.json().await.unwrap();
        let beacon = BeaconRef {
            network_id: profile["id"].as_str().unwrap().into(),
            url: url.clone(),
        };
        let alerts = &c.state.alerts;
        let checking = Principal::owner().may().unwrap();
        let check = |code: u16| {
            health.store(code, Ordering::SeqCst);
            c.state.beacons.check(&checking, &beacon)
        };
        // Checks happen now; deliveries are run at chosen later times, which
        // is when an alert counts as sent.
        let t0 = Utc::now();
        let at = |secs: i64| t0 + Duration::seconds(secs);

        check(200).await.unwrap();
        assert_eq!(
            alerts.deliver_due(at(1)).await.unwrap(),
            0,
            "healthy from the start: no news"
        );
        check(500).await.unwrap();
        assert_eq!(alerts.deliver_due(at(1)).await.unwrap(), 1);
        assert_eq!(received.events(), ["beacon.down"]);
        let down = received.last();
        assert_eq!(down["subject"]["url"], url.as_str());
        assert_eq!(down["subject"]["class"], "http_status");
        assert!(down["text"].as_str().unwrap().contains("is down"), "{down}");

        // Up, down and up again within the window: one alert at its end.
        check(200).await.unwrap();
        assert_eq!(alerts.deliver_due(at(60)).await.unwrap(), 0, "debounced");
        check(500).await.unwrap();
        assert_eq!(
            alerts.deliver_due(at(360)).await.unwrap(),
            0,
            "flapped back: nothing to say"
        );
        check(200).await.unwrap();
        assert_eq!(
            alerts.deliver_due(at(240)).await.unwrap(),
            0,
            "still inside the window"
        );
        assert_eq!(alerts.deliver_due(at(302)).await.unwrap(), 1);
        assert_eq!(received.events(), ["beacon.down", "beacon.up"]);

        // A refused delivery is retried after 10 s, and delivered once.
        received.fail_next.store(1, Ordering::SeqCst);
        check(500).await.unwrap();
        assert_eq!(
            alerts.deliver_due(at(700)).await.unwrap(),
            0,
            "the receiver refused it"
        );
        assert_eq!(alerts.deliver_due(at(705)).await.unwrap(), 0, "backing off");
        assert_eq!(alerts.deliver_due(at(711)).await.unwrap(), 1);
        assert_eq!(alerts.deliver_due(at(800)).await.unwrap(), 0);
        assert_eq!(
            received.events(),
            ["beacon.down", "beacon.up", "beacon.down"]
        );

        let settings: Value = c.get_json("/api/v1/settings/alerts").await;
        assert_eq!(settings["from_environment"], true);
        let shown = settings["webhook"].as_str().unwrap();
        assert!(
            !shown.contains("secret-token"),
            "the token stays hidden: {shown}"
        );
        let retried = &settings["recent"][0];
        assert_eq!(
            (retried["status"].as_str(), retried["attempts"].as_i64()),
            (Some("sent"), Some(2))
        );
        assert!(retried["last_error"].as_str().unwrap().is_empty());
        let r = c
            .client
            .put(c.url("/api/v1/settings/alerts"))
            .json(&json!({"webhook_url": "https://elsewhere.example"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 409);
        let body: Value = r.json().await.unwrap();
        assert_eq!(
            (body["code"].as_str(), body["field"].as_str()),
            (Some("webhook_set_by_environment"), Some("webhook_url"))
        );
    }
);

on_both_databases!(
    offline_agents_failed_jobs_and_lost_addresses_alert,
    |backend| async move {
        let (hook, received) = receiver().await;
        let c = common::start_with(
            backend,
            common::Options {
                alert_webhook: Some(hook),
                ..Default::default()
            },
        )
        .await;
        c.sign_in().await;
        let alerts = &c.state.alerts;
        let a = common::SimAgent::with_docker(&c, 41).await;
        let offline_after = c.state.config.agent_offline_after;
        // Enrolled with the shared token, it waited for approval: news.
        assert_eq!(alerts.deliver_due(Utc::now()).await.unwrap(), 1);
        assert_eq!(received.events(), ["agent.pending"]);
        received.accepted.lock().unwrap().clear();

        // Online from the start is no news; two minutes of silence is.
        let now = Utc::now();
        alerts.watch_agents(now, offline_after).await.unwrap();
        assert_eq!(alerts.deliver_due(now).await.unwrap(), 0);
        let later = now + Duration::minutes(2);
        alerts.watch_agents(later, offline_after).await.unwrap();
        alerts.watch_agents(later, offline_after).await.unwrap();
        assert_eq!(
            alerts.deliver_due(later).await.unwrap(),
            1,
            "once, however often it is seen"
        );
        assert_eq!(received.events(), ["agent.offline"]);
        assert_eq!(received.last()["subject"]["agent_id"], a.id());

        // A sidecar announces its address, then reports none.
        let sidecar = |service: &str| {
            json!({"name": "host", "docker_available": true, "components": [
                {"id": "sidecar-web", "kind": "sidecar", "name": "web", "status": "running", "service": service}]})
        };
        a.post("/api/v1/agents/heartbeat", sidecar("")).await;
        a.post(
            "/api/v1/agents/heartbeat",
            sidecar("qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot"),
        )
        .await;
        assert_eq!(
            alerts.deliver_due(Utc::now()).await.unwrap(),
            0,
            "a new address is no news"
        );
        a.post("/api/v1/agents/heartbeat", sidecar("")).await;
        assert_eq!(alerts.deliver_due(Utc::now()).await.unwrap(), 1);
        assert_eq!(received.last()["event"], "service.address_lost");
        assert!(received.last()["text"].as_str().unwrap().contains("web"));

        // A failed job.
        let job = json!({"agent_id": a.id(), "kind": "restart_component", "payload": {"component_id": "sidecar-web"}});
        assert_eq!(c.post_json("/api/v1/jobs", job).await.status(), 201);
        let claimed = a.claim().await.unwrap();
        a.finish(
            claimed["id"].as_str().unwrap(),
            "failed",
            "no such container\ntrace",
        )
        .await;
        assert_eq!(alerts.deliver_due(Utc::now()).await.unwrap(), 1);
        let failed = received.last();
        assert_eq!(failed["event"], "job.failed");
        assert_eq!(failed["subject"]["job_id"], claimed["id"]);
        assert!(failed["text"]
            .as_str()
            .unwrap()
            .contains("no such container"));
    }
);

on_both_databases!(
    the_settings_api_sets_the_webhook_and_sends_a_test_alert,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let put = |body: Value| {
            c.client
                .put(c.url("/api/v1/settings/alerts"))
                .json(&body)
                .send()
        };
        // Without a webhook nothing is queued, and the test says why.
        let r = c.post_json("/api/v1/settings/alerts/test", json!({})).await;
        let outcome: Value = r.json().await.unwrap();
        assert_eq!(outcome["delivered"], false);

        let r = put(json!({"webhook_url": "hooks.example.net"}))
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["field"], "webhook_url");
        assert!(
            body["hint"].as_str().unwrap().contains("https://"),
            "{body}"
        );

        let (hook, received) = receiver().await;
        let r = put(json!({"webhook_url": hook})).await.unwrap();
        assert_eq!(r.status(), 200);
        let settings: Value = r.json().await.unwrap();
        assert_eq!(settings["from_environment"], false);
        assert!(settings["webhook"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:"));
        let r = c.post_json("/api/v1/settings/alerts/test", json!({})).await;
        let outcome: Value = r.json().await.unwrap();
        assert_eq!(outcome["delivered"], true, "{outcome}");
        assert_eq!(received.events(), ["test"]);
        let audit: Value = c
            .get_json("/api/v1/audit?action=settings.alert_webhook")
            .await;
        assert_eq!(audit.as_array().unwrap().len(), 1);
        assert!(
            !audit.to_string().contains("secret-token"),
            "the audit log hides the token"
        );

        // Turned off: the test refuses politely again.
        assert_eq!(put(json!({"webhook_url": ""})).await.unwrap().status(), 200);
        let settings: Value = c.get_json("/api/v1/settings/alerts").await;
        assert!(settings["webhook"].is_null());
    }
);

on_both_databases!(
    webhooks_never_reach_unspecified_or_refused_private_addresses,
    |backend| async move {
        let c = common::signed_in_refusing_private_addresses(backend).await;
        // Only targets on this machine, so that even a regressed policy sends
        // nothing outside it; link-local and metadata forms are unit-tested
        // in domain/address_policy.rs, which connects nowhere.
        for (url, why) in [
            ("http://0.0.0.0:9/hook", "unspecified"),
            ("http://localhost:9/hook", "private"),
            ("http://127.0.0.1:9/hook", "private"),
        ] {
            let r = c
                .client
                .put(c.url("/api/v1/settings/alerts"))
                .json(&json!({ "webhook_url": url }))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
            let r = c.post_json("/api/v1/settings/alerts/test", json!({})).await;
            let outcome: Value = r.json().await.unwrap();
            assert_eq!(outcome["delivered"], false, "{url}: {outcome}");
            let detail = outcome["detail"].as_str().unwrap();
            assert!(detail.contains(why), "{url}: {detail}");
        }
    }
);

on_both_databases!(
    webhooks_written_as_ipv6_forms_of_refused_addresses_are_refused,
    |backend| async move {
        let c = common::signed_in_refusing_private_addresses(backend).await;
        // A receiver on loopback, named through IPv6 spellings of 127.0.0.1
        // and 0.0.0.0: a failing policy would still only reach this machine.
        let (hook, received) = test_kit::webhook_receiver().await;
        let port = hook
            .trim_start_matches("http://127.0.0.1:")
            .trim_end_matches("/hook");
        for (url, why) in [
            (format!("http://[::ffff:127.0.0.1]:{port}/hook"), "private"),
            (
                format!("http://[::ffff:0.0.0.0]:{port}/hook"),
                "unspecified",
            ),
        ] {
            let r = c
                .client
                .put(c.url("/api/v1/settings/alerts"))
                .json(&json!({ "webhook_url": url }))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200, "{url}");
            let r = c.post_json("/api/v1/settings/alerts/test", json!({})).await;
            let outcome: Value = r.json().await.unwrap();
            assert_eq!(outcome["delivered"], false, "{url}: {outcome}");
            let detail = outcome["detail"].as_str().unwrap();
            assert!(detail.contains(why), "{url}: {detail}");
        }
        assert!(received.lock().unwrap().is_empty(), "nothing reached it");
    }
);

/// A webhook refusing with 500 and a body that never ends.
async fn endless_refusal() -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = [0u8; 8192];
                let _ = stream.read(&mut request).await;
                let head = "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n\r\n";
                if stream.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let chunk = "overloaded ".repeat(1000);
                while stream.write_all(chunk.as_bytes()).await.is_ok() {}
            });
        }
    });
    url
}

on_both_databases!(
    a_refusing_webhooks_body_is_read_only_up_to_a_bound,
    |backend| async move {
        let hook = endless_refusal().await;
        let c = common::start_with(
            backend,
            common::Options {
                alert_webhook: Some(hook),
                ..Default::default()
            },
        )
        .await;
        let started = std::time::Instant::now();
        let by = Principal::owner().may().unwrap();
        let outcome = c.state.alerts.send_test(&by).await.unwrap();
        assert!(!outcome.delivered);
        assert!(
            outcome
                .detail
                .starts_with("HTTP 500: overloaded overloaded"),
            "{}",
            outcome.detail
        );
        assert!(outcome.detail.chars().count() < 400, "{}", outcome.detail);
        // Reading the whole body would only end at the 10 s delivery timeout.
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "took {:?}",
            started.elapsed()
        );
    }
);
