//! A network's setup checklist over the JSON API, on both databases, as an
//! admin working through the guide sees it: every state (done, not yet,
//! can't tell, skipped by choice) reached through what Control really sees:
//! Beacon checks and diagnoses against local stand-in Beacons, a simulated
//! Agent's heartbeats, invites opened by a phone, the operations policy.

mod common;

use reqwest::header::USER_AGENT;
use serde_json::{json, Value};
use test_kit::http_beacon;

const ANDROID: &str =
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126 Mobile Safari/537.36";

async fn checklist(c: &common::Control, id: &str) -> Value {
    let r = c.get(&format!("/api/v1/networks/{id}/setup?lang=en")).await;
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

async fn put(c: &common::Control, path: &str, body: Value) -> reqwest::Response {
    c.client.put(c.url(path)).json(&body).send().await.unwrap()
}

on_both_databases!(
    the_checklist_follows_what_control_sees_step_by_step,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let first = http_beacon(200, "ok").await;
        let id = c
            .created_network(json!({"name": "Home", "beacons": [first]}))
            .await;

        // A fresh network: the profile is there, and little else.
        let list = checklist(&c, &id).await;
        assert_eq!(list["network_name"], "Home");
        let (state, detail) = common::setup_step(&list, "network_id");
        assert_eq!(state, "done");
        assert!(detail.contains(&id), "{detail}");
        let (state, detail) = common::setup_step(&list, "first_beacon");
        assert_eq!(state, "cant_tell", "never checked: {detail}");
        assert_eq!(common::setup_step(&list, "second_beacon").0, "not_yet");
        assert_eq!(
            common::setup_step(&list, "relays").0,
            "cant_tell",
            "relay never tested"
        );
        assert_eq!(
            common::setup_step(&list, "control_https").0,
            "not_yet",
            "no public URL"
        );
        assert_eq!(common::setup_step(&list, "agents").0, "not_yet");
        assert_eq!(common::setup_step(&list, "first_service").0, "not_yet");
        assert_eq!(common::setup_step(&list, "onboarding").0, "not_yet");
        assert_eq!(common::setup_step(&list, "monitoring").0, "not_yet");
        assert_eq!(common::setup_step(&list, "policy").0, "not_yet");
        assert_eq!(list["bootstrap"].as_array().unwrap().len(), 7);

        // A check over plain HTTP: it answers, but is not behind HTTPS.
        let r = c
            .post_json(
                "/api/v1/beacons/check",
                json!({"network_id": id, "url": first}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let (state, detail) = common::setup_step(&checklist(&c, &id).await, "first_beacon");
        assert_eq!(state, "not_yet");
        assert!(detail.contains("plain HTTP"), "{detail}");

        // A second Beacon on the same host, both checked and diagnosed: one
        // host, said as a single point of failure.
        let second = http_beacon(200, "ok").await;
        let r = put(
            &c,
            &format!("/api/v1/networks/{id}"),
            json!({"name": "Home", "beacons": [first, second]}),
        )
        .await;
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
        for url in [&first, &second] {
            let r = c
                .post_json(
                    "/api/v1/beacons/check",
                    json!({"network_id": id, "url": url}),
                )
                .await;
            assert_eq!(r.status(), 200);
        }
        let list = checklist(&c, &id).await;
        assert_eq!(
            common::setup_step(&list, "second_beacon").0,
            "cant_tell",
            "not compared yet"
        );
        let r = c
            .get(&format!("/api/v1/networks/{id}/diagnostics?lang=en"))
            .await;
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
        let list = checklist(&c, &id).await;
        let (state, detail) = common::setup_step(&list, "second_beacon");
        assert_eq!(state, "not_yet");
        assert!(detail.contains("127.0.0.1"), "{detail}");
        let warnings = list["warnings"].as_array().unwrap();
        assert!(
            warnings[0]
                .as_str()
                .unwrap()
                .contains("single point of failure"),
            "{warnings:?}"
        );
        // Their relay ports were tested (7447 on 127.0.0.1, closed or not).
        let (state, detail) = common::setup_step(&list, "relays");
        assert_ne!(state, "cant_tell", "{detail}");

        // An Agent with Docker runs a managed Beacon and a sidecar that
        // advertises a relay and has announced its address.
        let agent = common::SimAgent::with_docker(&c, 41).await;
        c.queued_job(
            json!({"agent_id": agent.id(), "kind": "deploy_beacon", "payload": {
            "name": "edge", "network_id": id, "beacon_url": "https://edge.example",
            "advertise": "edge.example:7447", "http_port": 18080}}),
        )
        .await;
        c.queued_job(
            json!({"agent_id": agent.id(), "kind": "deploy_sidecar", "payload": {
            "name": "web", "network_id": id, "target": "app:8080", "docker_network": "apps",
            "beacons": [first], "advertise": "203.0.113.9:7447"}}),
        )
        .await;
        let (state, detail) = common::setup_step(&checklist(&c, &id).await, "relays");
        assert_ne!(state, "done", "queued, not running: {detail}");
        let r = agent
            .post(
                "/api/v1/agents/heartbeat",
                json!({"name": "edge-host", "docker_available": true, "docker_version": "28.2.2",
                    "components": [{"id": "sidecar-web", "kind": "sidecar", "name": "web",
                    "status": "running", "service": "web-abc.knot",
                    "labels": {"io.knotroute.managed": "true", "io.knotroute.network-id": id}},
                    {"id": "beacon-edge", "kind": "beacon", "name": "edge", "status": "running",
                    "labels": {"io.knotroute.managed": "true", "io.knotroute.network-id": id}}]}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let list = checklist(&c, &id).await;
        let (state, detail) = common::setup_step(&list, "agents");
        assert_eq!(state, "done");
        assert!(detail.contains("edge-host"), "{detail}");
        let (state, detail) = common::setup_step(&list, "relays");
        assert_eq!(state, "done", "{detail}");
        assert!(
            detail.contains("edge") && detail.contains("web"),
            "{detail}"
        );
        let (state, detail) = common::setup_step(&list, "first_service");
        assert_eq!(state, "not_yet", "not backed up: {detail}");
        assert!(detail.contains("web-abc.knot"), "{detail}");
        // (identity_backups.rs follows this step to done.)

        // An invite opened on a phone.
        let r = c
            .post_json("/api/v1/invites", json!({"network_id": id}))
            .await;
        assert_eq!(r.status(), 201);
        let created: Value = r.json().await.unwrap();
        assert_eq!(
            common::setup_step(&checklist(&c, &id).await, "onboarding").0,
            "not_yet"
        );
        let url = created["url"].as_str().unwrap();
        let path = &url[url.find("/join/").unwrap()..];
        let r = reqwest::Client::new()
            .get(c.url(path))
            .header(USER_AGENT, ANDROID)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let (state, detail) = common::setup_step(&checklist(&c, &id).await, "onboarding");
        assert_eq!(state, "done");
        assert!(detail.contains("on: Android."), "{detail}");
        assert!(detail.contains("Windows, Linux"), "not yet there: {detail}");

        // The policy written down.
        let r = put(
            &c,
            "/api/v1/policy",
            json!({"relays": "Deploy a Beacon elsewhere.", "revocation": "Revoke the Agent."}),
        )
        .await;
        assert_eq!(r.status(), 200);
        assert_eq!(
            common::setup_step(&checklist(&c, &id).await, "policy").0,
            "done"
        );

        // Skipped by choice, and taken back; the profile step cannot be.
        let r = put(
            &c,
            &format!("/api/v1/networks/{id}/setup"),
            json!({"step": "monitoring", "skipped": true}),
        )
        .await;
        assert_eq!(r.status(), 200);
        let list: Value = r.json().await.unwrap();
        let monitoring = list["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["step"] == "monitoring")
            .unwrap();
        assert_eq!(monitoring["state"], "skipped");
        assert_eq!(monitoring["skipped_by"], "owner (break-glass)");
        assert!(monitoring["skipped_at"].is_string());
        let audit: Value = c.get_json("/api/v1/audit").await;
        assert!(audit.to_string().contains("setup.step_skipped"), "{audit}");
        let r = put(
            &c,
            &format!("/api/v1/networks/{id}/setup"),
            json!({"step": "monitoring", "skipped": false}),
        )
        .await;
        assert_eq!(r.status(), 200);
        assert_eq!(
            common::setup_step(&checklist(&c, &id).await, "monitoring").0,
            "not_yet"
        );
        for (body, status, code, field) in [
            (
                json!({"step": "network_id", "skipped": true}),
                409,
                "step_not_skippable",
                "step",
            ),
            (
                json!({"step": "everything", "skipped": true}),
                400,
                "unknown_step",
                "step",
            ),
            (json!({"step": "monitoring"}), 400, "malformed_json", ""),
        ] {
            let r = put(&c, &format!("/api/v1/networks/{id}/setup"), body.clone()).await;
            assert_eq!(r.status(), status, "{body}");
            let error: Value = r.json().await.unwrap();
            assert_eq!(error["code"], code, "{body}: {error}");
            if !field.is_empty() {
                assert_eq!(error["field"], field, "{error}");
            }
            assert!(error["error"].as_str().is_some_and(|e| !e.is_empty()));
        }
        let r = c.get("/api/v1/networks/kn_unknown/setup").await;
        assert_eq!(r.status(), 404);

        // In Russian, from the same facts.
        let ru: Value = c
            .get_json(&format!("/api/v1/networks/{id}/setup?lang=ru"))
            .await;
        let (_, detail) = common::setup_step(&ru, "agents");
        assert!(detail.contains("В сети"), "{detail}");

        // The Overview summarises it.
        let page = c.page_in("/", "en").await;
        assert!(
            page.contains("setup-summaries") && page.contains("Home"),
            "{page}"
        );
        assert!(page.contains(&format!("/networks/{id}/setup")));
        assert!(!page.contains("setup-more"), "one network: all summarised");
        // Past five networks the Overview says how many more there are.
        for n in 0..5 {
            c.created_network(json!({"name": format!("Z{n}")})).await;
        }
        let page = c.page_in("/", "en").await;
        assert!(
            page.contains("setup-more") && page.contains("1 more networks"),
            "{page}"
        );

        // Deleting the network takes its checklist with it.
        let r = c.delete(&format!("/api/v1/networks/{id}")).await;
        assert_eq!(r.status(), 204);
        let r = c.get(&format!("/api/v1/networks/{id}/setup")).await;
        assert_eq!(r.status(), 404);
    }
);

on_both_databases!(
    control_behind_https_is_done_only_when_a_trusted_proxy_says_so,
    |backend| async move {
        let c = common::start_with(
            backend,
            common::Options {
                trust_proxy: true,
                public_url: Some("https://control.example".into()),
                ..Default::default()
            },
        )
        .await;
        // Its cookies are Secure, so this client carries the session by hand.
        let client = reqwest::Client::new();
        let r = client
            .post(c.url("/api/v1/session"))
            .header("origin", "https://control.example")
            .json(&json!({"password": common::PASSWORD}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let session = r
            .headers()
            .get_all("set-cookie")
            .iter()
            .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_string())
            .find(|c| c.starts_with("__Host-kr_session="))
            .unwrap();
        let r = client
            .post(c.url("/api/v1/networks"))
            .header("origin", "https://control.example")
            .header("cookie", &session)
            .json(&json!({"name": "Lab"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        let id = r.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let path = format!("/api/v1/networks/{id}/setup?lang=en");
        let read = |proto: Option<&'static str>| {
            let mut request = client.get(c.url(&path)).header("cookie", &session);
            if let Some(proto) = proto {
                request = request.header("x-forwarded-proto", proto);
            }
            async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
        };
        let (state, detail) = common::setup_step(&read(None).await, "control_https");
        assert_eq!(state, "cant_tell", "{detail}");
        assert!(detail.contains("X-Forwarded-Proto"), "{detail}");
        let (state, _) = common::setup_step(&read(Some("http")).await, "control_https");
        assert_eq!(state, "cant_tell");
        let (state, detail) = common::setup_step(&read(Some("https")).await, "control_https");
        assert_eq!(state, "done", "{detail}");
        assert!(detail.contains("https://control.example"), "{detail}");
    }
);

on_both_databases!(
    the_policy_is_filled_in_from_control_checked_and_exported_as_markdown,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let policy: Value = c.get_json("/api/v1/policy?lang=en").await;
        assert_eq!(policy["filled_in"], false);
        assert!(policy["template"]["revocation"]
            .as_str()
            .unwrap()
            .contains("Revoke"));
        assert!(
            policy["alerts"]["warning"].is_string(),
            "no webhook: warned"
        );
        assert!(policy["release_channel"]["text"]
            .as_str()
            .unwrap()
            .contains("No Agent"));

        // Too long: refused by field, nothing saved.
        let long = "x".repeat(4001);
        let r = put(
            &c,
            "/api/v1/policy",
            json!({"relays": long, "revocation": ""}),
        )
        .await;
        assert_eq!(r.status(), 400);
        let error: Value = r.json().await.unwrap();
        assert_eq!(error["field"], "relays", "{error}");
        let r = put(&c, "/api/v1/policy", json!({"relays": 7})).await;
        assert_eq!(r.status(), 400, "wrong type");

        // Two Agents on different releases: a warning.
        for (seed, version) in [(51u8, "1.2.3"), (52, "1.3.0")] {
            let agent = common::SimAgent::with_docker(&c, seed).await;
            let r = agent
                .post(
                    "/api/v1/agents/heartbeat",
                    json!({"name": format!("host-{seed}"), "version": version, "docker_available": true}),
                )
                .await;
            assert_eq!(r.status(), 200);
        }
        let written = json!({"relays": "  Deploy a new Beacon [here](x).  ", "revocation": "Revoke, rotate, move."});
        let r = put(&c, "/api/v1/policy", written).await;
        assert_eq!(r.status(), 200);
        let policy: Value = r.json().await.unwrap();
        assert_eq!(policy["filled_in"], true);
        assert_eq!(
            policy["written"]["relays"],
            "Deploy a new Beacon [here](x)."
        );
        assert_eq!(policy["updated_by"], "owner (break-glass)");
        assert!(policy["release_channel"]["warning"].is_string(), "{policy}");
        let audit: Value = c.get_json("/api/v1/audit").await;
        assert!(audit.to_string().contains("policy.updated"), "{audit}");

        let r = c.get("/api/v1/policy/markdown?lang=ru").await;
        assert_eq!(r.status(), 200);
        assert!(r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/markdown"));
        assert!(r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("operations-policy.md"));
        let text = r.text().await.unwrap();
        assert!(text.starts_with("# Политика эксплуатации"), "{text}");
        assert!(text.contains("1.2.3 (1), 1.3.0 (1)"), "{text}");
        assert!(
            text.contains("Deploy a new Beacon [here](x)."),
            "written as is: {text}"
        );
        assert!(text.contains("Revoke, rotate, move."), "{text}");
        let r = c.get("/api/v1/policy/markdown?lang=xx").await;
        assert_eq!(r.status(), 400);
    }
);
