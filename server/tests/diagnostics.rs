//! Layered diagnostics of a network, on both databases, against local
//! servers standing in for Beacons: healthy with its relay port open and
//! closed, HTTP 500, a closed port, a name that does not resolve, TLS with an
//! untrusted certificate and a server that never answers; then the Agent and
//! a sidecar whose container exited.

mod common;

use serde_json::{json, Value};
use test_kit::{closed_port_url, http_beacon, silent_beacon, untrusted_tls_beacon};

/// The lines about `subject`, as (step, severity, reason).
fn lines_of(diagnosis: &Value, subject: &str) -> Vec<(String, String, String)> {
    diagnosis["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["subject"] == subject)
        .map(|l| {
            (
                l["step"].as_str().unwrap().to_string(),
                l["severity"].as_str().unwrap().to_string(),
                format!(
                    "{} → {}",
                    l["reason"].as_str().unwrap(),
                    l["next_step"].as_str().unwrap()
                ),
            )
        })
        .collect()
}

fn steps(lines: &[(String, String, String)]) -> Vec<(&str, &str)> {
    lines
        .iter()
        .map(|(s, v, _)| (s.as_str(), v.as_str()))
        .collect()
}

on_both_databases!(
    each_layer_and_failure_is_told_in_the_order_to_fix_it,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let relay_up = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let relay_up_at = relay_up.local_addr().unwrap().to_string();
        let relay_down_at = closed_port_url().trim_start_matches("http://").to_string();
        let with_relay = http_beacon(200, "ok").await;
        let relay_closed = http_beacon(200, "ok").await;
        let failing = http_beacon(500, "database is down").await;
        let closed = closed_port_url();
        let unresolvable = "https://no-such-beacon.invalid".to_string();
        let tls = untrusted_tls_beacon().await;
        let silent = silent_beacon().await;
        let beacons = [
            &with_relay,
            &relay_closed,
            &failing,
            &closed,
            &unresolvable,
            &tls,
            &silent,
        ];
        let network_id = c
            .created_network(json!({"name": "Office", "beacons": beacons}))
            .await;
        // Two of them Control deployed, so their relay addresses are known.
        let a = common::SimAgent::with_docker(&c, 71).await;
        for (name, url, advertise) in [
            ("edge-1", &with_relay, &relay_up_at),
            ("edge-2", &relay_closed, &relay_down_at),
        ] {
            c.queued_job(
                json!({"agent_id": a.id(), "kind": "deploy_beacon", "payload": {
                        "name": name, "network_id": network_id, "beacon_url": url,
                        "advertise": advertise, "http_port": 18080}}),
            )
            .await;
        }
        // A sidecar of this network whose container exited.
        c.queued_job(
            json!({"agent_id": a.id(), "kind": "deploy_sidecar", "payload": {
                    "name": "web", "network_id": network_id, "target": "app:8080",
                    "docker_network": "apps", "beacons": [with_relay]}}),
        )
        .await;
        let r = a
            .post(
                "/api/v1/agents/heartbeat",
                json!({"name": "docker-host", "docker_available": true, "docker_version": "28.2.2",
                    "components": [{"id": "sidecar-web", "kind": "sidecar", "name": "web",
                    "status": "exited", "labels": {"io.knotroute.managed": "true",
                    "io.knotroute.network-id": network_id}}]}),
            )
            .await;
        assert_eq!(r.status(), 200);

        let diagnosis: Value = c
            .get_json(&format!(
                "/api/v1/networks/{network_id}/diagnostics?lang=en"
            ))
            .await;
        let ok = |s| (s, "ok");
        let with_relay_lines = lines_of(&diagnosis, &with_relay);
        assert_eq!(
            steps(&with_relay_lines),
            [ok("connect"), ok("healthz"), ok("relay")],
            "{with_relay_lines:?}"
        );
        let lines = lines_of(&diagnosis, &relay_closed);
        assert_eq!(
            steps(&lines),
            [ok("connect"), ok("healthz"), ("relay", "error")],
            "{lines:?}"
        );
        assert!(
            lines[2].2.contains("can discover peers") && lines[2].2.contains("cannot relay"),
            "HTTP works but the relay port is closed: {lines:?}"
        );
        let lines = lines_of(&diagnosis, &failing);
        assert_eq!(steps(&lines), [ok("connect"), ("healthz", "error")]);
        assert!(lines[1].2.contains("database is down"), "{lines:?}");
        let lines = lines_of(&diagnosis, &closed);
        assert_eq!(
            steps(&lines),
            [("connect", "error")],
            "nothing after a closed port"
        );
        assert!(lines[0].2.contains("firewall"), "{lines:?}");
        let lines = lines_of(&diagnosis, &unresolvable);
        assert_eq!(steps(&lines), [("dns", "error")]);
        assert!(lines[0].2.contains("DNS record"), "{lines:?}");
        let lines = lines_of(&diagnosis, &tls);
        assert_eq!(steps(&lines), [ok("connect"), ("healthz", "error")]);
        assert!(
            lines[1].2.contains("(tls)") && lines[1].2.contains("certificate"),
            "{lines:?}"
        );
        let lines = lines_of(&diagnosis, &silent);
        assert_eq!(steps(&lines), [ok("connect"), ("healthz", "error")]);
        assert!(lines[1].2.contains("(timeout)"), "{lines:?}");

        // Beacons in the profile's order, then the Agent, then the service.
        let layers: Vec<&str> = diagnosis["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["layer"].as_str().unwrap())
            .collect();
        let first_agent = layers.iter().position(|l| *l == "agent").unwrap();
        let first_service = layers
            .iter()
            .position(|l| *l == "service")
            .unwrap_or_else(|| panic!("no service line: {diagnosis:#}"));
        assert!(layers[..first_agent].iter().all(|l| *l == "beacon"));
        assert!(layers[first_agent..first_service]
            .iter()
            .all(|l| *l == "agent"));
        let subjects: Vec<&str> = diagnosis["lines"]
            .as_array()
            .unwrap()
            .iter()
            .take(first_agent)
            .map(|l| l["subject"].as_str().unwrap())
            .collect();
        let mut profile_order: Vec<&str> = subjects.clone();
        profile_order.dedup();
        assert_eq!(profile_order.len(), beacons.len(), "{subjects:?}");
        let agent = lines_of(&diagnosis, "docker-host");
        assert_eq!(steps(&agent), [ok("online"), ok("docker")]);
        let web = lines_of(&diagnosis, "web");
        assert_eq!(
            steps(&web),
            [("container", "error"), ("knot_address", "warning")],
            "{web:?}"
        );
        assert!(web[0].2.contains("exited"), "{web:?}");
        drop(relay_up);

        // In Russian; a bad language and an unknown profile are refused by name.
        let ru: Value = c
            .get_json(&format!(
                "/api/v1/networks/{network_id}/diagnostics?lang=ru"
            ))
            .await;
        assert!(lines_of(&ru, &closed)[0].2.contains("файрвол"), "{ru}");
        let r = c
            .get(&format!(
                "/api/v1/networks/{network_id}/diagnostics?lang=de"
            ))
            .await;
        assert_eq!(r.status(), 400);
        assert_eq!(r.json::<Value>().await.unwrap()["field"], "lang");
        let r = c.get("/api/v1/networks/kn_unknown/diagnostics").await;
        assert_eq!(r.status(), 404);
    }
);

on_both_databases!(
    a_profile_without_beacons_or_agents_says_so,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let id = c.created_network(json!({"name": "Bare"})).await;
        let diagnosis: Value = c
            .get_json(&format!("/api/v1/networks/{id}/diagnostics"))
            .await;
        let lines = diagnosis["lines"].as_array().unwrap();
        assert_eq!(lines[0]["step"], "beacon_urls");
        assert_eq!(lines[0]["severity"], "error");
        assert!(lines[0]["next_step"].as_str().unwrap().contains("Beacon"));
        assert_eq!(lines[1]["step"], "agents");
        assert_eq!(lines[1]["severity"], "ok", "clients alone need no Agent");
    }
);
