//! GET /metrics: off without KNOTROUTE_CONTROL_METRICS_TOKEN, refused without
//! the token, and with it a Prometheus text exposition that an independent
//! parser (prometheus-parse) reads back with the numbers of what happened:
//! Agents, jobs by status, job durations, heartbeats, Beacon checks and
//! their failures, request latency by route template, the database pool.

mod common;

use prometheus_parse::{Sample, Scrape, Value};
use serde_json::{json, Value as Json};
use test_kit::{closed_port_url, http_beacon};

const TOKEN: &str = "metrics-token-0123456789";

async fn scrape(c: &common::Control, token: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(c.url("/metrics"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

/// The value of `metric` whose labels include all of `labels`.
fn value(scrape: &Scrape, metric: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let wanted =
        |s: &&Sample| s.metric == metric && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v));
    scrape.samples.iter().find(wanted).map(|s| match &s.value {
        Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v) => *v,
        Value::Histogram(buckets) => buckets
            .iter()
            .find(|b| b.less_than.is_infinite())
            .map(|b| b.count)
            .unwrap_or_default(),
        Value::Summary(_) => f64::NAN,
    })
}

on_both_databases!(
    metrics_are_off_unless_a_token_is_set,
    |backend| async move {
        let c = common::start(backend).await;
        let r = scrape(&c, Some(TOKEN)).await;
        assert_eq!(r.status(), 404);
        let body: Json = r.json().await.unwrap();
        assert_eq!(body["code"], "metrics_disabled");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .contains("KNOTROUTE_CONTROL_METRICS_TOKEN"),
            "{body}"
        );
    }
);

on_both_databases!(
    metrics_need_the_token_and_count_what_happened,
    |backend| async move {
        let c = common::start_with(
            backend,
            common::Options {
                metrics_token: Some(TOKEN.into()),
                ..Default::default()
            },
        )
        .await;
        // Neither no token nor a wrong one (not even the admin session) gets in.
        for token in [None, Some("metrics-token-wrong-0000")] {
            let r = scrape(&c, token).await;
            assert_eq!(r.status(), 401, "{token:?}");
            assert_eq!(r.headers()["www-authenticate"], "Bearer");
        }
        c.sign_in().await;
        assert_eq!(
            c.get("/metrics").await.status(),
            401,
            "a signed-in admin still needs the metrics token"
        );

        // What happens: an Agent heartbeats three times and runs a job; two
        // Beacon checks, one healthy and one refused.
        let healthy = http_beacon(200, "ok").await;
        let closed = closed_port_url();
        let r = c
            .create_network(json!({"name": "Office", "beacons": [healthy, closed]}))
            .await;
        let network_id = r.json::<Json>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let a = common::SimAgent::with_docker(&c, 61).await;
        for _ in 0..2 {
            let r = a
                .post(
                    "/api/v1/agents/heartbeat",
                    json!({"name": "docker-host", "docker_available": true}),
                )
                .await;
            assert_eq!(r.status(), 200);
        }
        c.queued_job(json!({"agent_id": a.id(), "kind": "restart_component",
                    "payload": {"component_id": "sidecar-web"}}))
            .await;
        let job = a.claim().await.unwrap();
        a.finish(job["id"].as_str().unwrap(), "succeeded", "restarted")
            .await;
        for url in [&healthy, &closed] {
            let r = c
                .post_json(
                    "/api/v1/beacons/check",
                    json!({"network_id": network_id, "url": url}),
                )
                .await;
            assert_eq!(r.status(), 200);
        }

        // A made-up method does not become a label of its own.
        let r = reqwest::Client::new()
            .request(
                reqwest::Method::from_bytes(b"FOO").unwrap(),
                c.url("/healthz"),
            )
            .send()
            .await
            .unwrap();
        assert!(r.status().is_client_error(), "{}", r.status());

        let r = scrape(&c, Some(TOKEN)).await;
        assert_eq!(r.status(), 200);
        assert!(r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4"));
        let text = r.text().await.unwrap();
        let parsed = Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).unwrap();
        let v = |metric: &str, labels: &[(&str, &str)]| {
            value(&parsed, metric, labels)
                .unwrap_or_else(|| panic!("{metric} {labels:?} missing:\n{text}"))
        };
        assert_eq!(v("knotroute_agents_total", &[]), 1.0);
        assert_eq!(v("knotroute_agents_online", &[]), 1.0);
        assert_eq!(v("knotroute_heartbeats_total", &[]), 3.0);
        assert_eq!(v("knotroute_jobs", &[("status", "succeeded")]), 1.0);
        assert_eq!(
            v(
                "knotroute_job_duration_seconds",
                &[("kind", "restart_component"), ("status", "succeeded")]
            ),
            1.0
        );
        assert_eq!(
            v(
                "knotroute_beacon_check_duration_seconds",
                &[("class", "ok")]
            ),
            1.0
        );
        assert_eq!(
            v(
                "knotroute_beacon_check_failures_total",
                &[("class", "connect")]
            ),
            1.0
        );
        assert!(
            value(
                &parsed,
                "knotroute_beacon_check_failures_total",
                &[("class", "ok")]
            )
            .is_none(),
            "a healthy check is no failure"
        );
        // Requests by route template, never by raw path (IDs, tokens).
        assert_eq!(
            v(
                "knotroute_http_request_duration_seconds",
                &[
                    ("route", "/api/v1/jobs"),
                    ("method", "POST"),
                    ("status", "201")
                ]
            ),
            1.0
        );
        assert!(
            v(
                "knotroute_http_request_duration_seconds",
                &[("route", "/metrics"), ("method", "GET"), ("status", "401")]
            ) >= 2.0
        );
        assert!(!text.contains(&network_id), "no raw paths in labels");
        assert_eq!(
            v(
                "knotroute_http_request_duration_seconds",
                &[("route", "/healthz"), ("method", "other")]
            ),
            1.0
        );
        assert!(!text.contains("FOO"));
        assert!(v("knotroute_db_pool_max_connections", &[]) >= 1.0);
        assert!(v("knotroute_db_pool_connections", &[("state", "idle")]) >= 0.0);
    }
);
