//! Only someone who may change Control-wide settings points Control at a
//! private address. A person limited to one network cannot list one as a
//! Beacon (in any spelling), deploy a Beacon at one, or have Control read a
//! private address's answer through a check or a diagnosis; nor do
//! Control's own checks reach one for a profile whose Beacons such a person
//! listed. Owners still can (private addresses are allowed by default).
//! On both databases, with bodies sent raw.

mod common;

use common::people::join_limited;
use common::two_networks::{get, send};
use serde_json::{json, Value};
use server::domain::beacons::schedule::BeaconSchedule;

/// Private hosts as a limited admin might spell them.
const PRIVATE_SPELLINGS: [&str; 9] = [
    "http://127.0.0.1:8080",
    "http://10.0.0.5:8080",
    "http://192.168.1.10",
    "https://100.64.0.1",
    "http://[::1]:8080",
    "http://[::ffff:127.0.0.1]:8080",
    "http://[fd12::1]",
    "http://localhost:8080",
    "http://0x7f.1:8080",
];

async fn put_raw(
    person: &reqwest::Client,
    c: &common::Control,
    path: &str,
    body: &str,
) -> (u16, Value) {
    let r = person
        .put(c.url(path))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

on_both_databases!(
    a_limited_admin_cannot_point_control_at_private_addresses,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let alpha = c
            .created_network(json!({"name": "Alpha", "beacons": ["https://edge-a.example.net"]}))
            .await;
        let admin = join_limited(&c, "admin", "adm-a", std::slice::from_ref(&alpha)).await;
        let path = format!("/api/v1/networks/{alpha}");
        for url in PRIVATE_SPELLINGS {
            let body =
                format!(r#"{{"name":"Alpha","beacons":["https://edge-a.example.net","{url}"]}}"#);
            let (status, answer) = put_raw(&admin, &c, &path, &body).await;
            assert_eq!(status, 400, "{url}: {answer}");
            assert_eq!(
                (answer["code"].as_str(), answer["field"].as_str()),
                (Some("private_address"), Some("beacons")),
                "{url}: {answer}"
            );
            let (status, answer) = send(
                &admin,
                &c,
                "POST",
                "/api/v1/beacons",
                json!({"network_id": alpha, "url": url}),
            )
            .await;
            assert_eq!(
                (status, answer["code"].as_str()),
                (400, Some("private_address")),
                "{url}: {answer}"
            );
        }
        let profile: Value = c.get_json(&path).await;
        assert_eq!(profile["beacons"], json!(["https://edge-a.example.net"]));

        // A Beacon deployed joins its profile: the same rule for its URL.
        let agent = common::SimAgent::with_docker(&c, 31).await;
        let ops = join_limited(&c, "operator", "ops-a", std::slice::from_ref(&alpha)).await;
        // (Alpha needs a component on the host for its operator to see it.)
        common::deployed(
            &c,
            &agent,
            json!({"agent_id": agent.id(), "kind": "deploy_beacon", "payload": {
                "name": "edge", "network_id": alpha, "beacon_url": "https://edge-a.example.net",
                "advertise": "203.0.113.7:7000"}}),
        )
        .await;
        for url in [
            "http://127.0.0.1:18080",
            "http://[::1]:18080",
            "http://localhost:18080",
        ] {
            let (status, answer) = send(
                &ops,
                &c,
                "POST",
                "/api/v1/jobs",
                json!({"agent_id": agent.id(), "kind": "deploy_beacon", "payload": {
                    "name": "lan", "network_id": alpha, "beacon_url": url,
                    "advertise": "203.0.113.7:7000"}}),
            )
            .await;
            assert_eq!(status, 400, "{url}: {answer}");
            assert_eq!(answer["field"], "beacon_url", "{answer}");
        }

        // The owner may: a Beacon on this host, which answers.
        let lan = test_kit::http_beacon(200, "secret internal answer").await;
        let r = c
            .post_json("/api/v1/beacons", json!({"network_id": alpha, "url": lan}))
            .await;
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
        let checked: Value = c
            .post_json(
                "/api/v1/beacons/check",
                json!({"network_id": alpha, "url": lan}),
            )
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(checked["ok"], true, "{checked}");
        // The limited admin's check of it reads nothing from there.
        let (status, checked) = send(
            &admin,
            &c,
            "POST",
            "/api/v1/beacons/check",
            json!({"network_id": alpha, "url": lan}),
        )
        .await;
        assert_eq!(status, 200, "{checked}");
        assert_eq!(
            (checked["ok"].as_bool(), checked["class"].as_str()),
            (Some(false), Some("blocked")),
            "{checked}"
        );
        let detail = checked["detail"].as_str().unwrap();
        assert!(detail.contains("Control-wide settings"), "{detail}");
        assert!(!detail.contains("secret internal answer"), "{detail}");
        let (status, diagnosis) = get(
            &admin,
            &c,
            &format!("/api/v1/networks/{alpha}/diagnostics?lang=en"),
        )
        .await;
        assert_eq!(status, 200);
        assert!(diagnosis.contains("Control-wide settings"), "{diagnosis}");
        // Listed by the owner, it stays when the limited admin saves the rest.
        let body =
            format!(r#"{{"name":"Alpha HQ","beacons":["https://edge-a.example.net","{lan}"]}}"#);
        let (status, answer) = put_raw(&admin, &c, &path, &body).await;
        assert_eq!(status, 200, "{answer}");

        // Control's own round checks it as whoever last listed the Beacons
        // could: the owner's list reaches it; once the limited admin changes
        // the list, no longer.
        let round = BeaconSchedule::new(
            c.state.db.clone(),
            c.state.beacons.clone(),
            c.state.networks.clone(),
            chrono::Duration::seconds(60),
        );
        let latest_check = || async {
            let beacons: Vec<Value> = c.get_json("/api/v1/beacons").await;
            beacons
                .iter()
                .find(|b| b["url"] == lan.as_str())
                .map(|b| b["last_check"].clone())
                .unwrap_or(Value::Null)
        };
        round.run_round().await.unwrap();
        let last = latest_check().await;
        assert_eq!(last["ok"], true, "listed by the owner: {last}");
        let body = format!(
            r#"{{"name":"Alpha HQ","beacons":["https://edge-a.example.net","{lan}","https://edge-a2.example.net"]}}"#
        );
        let (status, answer) = put_raw(&admin, &c, &path, &body).await;
        assert_eq!(status, 200, "{answer}");
        round.run_round().await.unwrap();
        let last = latest_check().await;
        assert_eq!(
            (last["ok"].as_bool(), last["class"].as_str()),
            (Some(false), Some("blocked")),
            "listed by the limited admin: {last}"
        );
    }
);
