//! Beacon checks through the JSON API, against local servers standing in for
//! Beacons: healthy, HTTP 500, closed port, TLS with an untrusted
//! certificate, a server that never answers, an unresolvable name and the
//! cloud metadata address. Plus the list and "add existing Beacon", and
//! IPv6 spellings of IPv4 addresses judged as those addresses.

mod common;

use serde_json::{json, Value};
use test_kit::{closed_port_url, http_beacon, silent_beacon, untrusted_tls_beacon};

on_both_databases!(
    each_failure_class_is_told_apart_and_kept_as_the_latest_check,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let healthy = http_beacon(200, "ok").await;
        let failing = http_beacon(500, "database is down").await;
        let closed = closed_port_url();
        let tls = untrusted_tls_beacon().await;
        let silent = silent_beacon().await;
        let unresolvable = "http://no-such-beacon.invalid".to_string();
        // Refused whatever the policy, and on this machine should the policy
        // regress (link-local and metadata forms: domain/address_policy.rs).
        let metadata = "http://0.0.0.0:9".to_string();
        let urls = [
            &healthy,
            &failing,
            &closed,
            &tls,
            &silent,
            &unresolvable,
            &metadata,
        ];
        let r = c
            .create_network(json!({"name": "Checked", "beacons": urls}))
            .await;
        assert_eq!(r.status(), 201);
        let network: Value = r.json().await.unwrap();
        let network_id = network["id"].as_str().unwrap().to_string();

        // All at once: the silent one takes the full 5 s timeout.
        let checks = futures_util::future::join_all(urls.iter().map(|url| {
            let body = json!({"network_id": network_id, "url": url});
            let c = &c;
            async move {
                let r = c.post_json("/api/v1/beacons/check", body).await;
                assert_eq!(r.status(), 200);
                r.json::<Value>().await.unwrap()
            }
        }))
        .await;
        let class = |i: usize| checks[i]["class"].as_str().unwrap().to_string();
        assert_eq!(class(0), "ok", "{}", checks[0]);
        assert_eq!(checks[0]["ok"], true);
        assert!(checks[0]["latency_ms"].as_u64().unwrap() < 5000);
        assert_eq!(class(1), "http_status", "{}", checks[1]);
        assert_eq!(checks[1]["detail"], "HTTP 500: database is down");
        assert_eq!(class(2), "connect", "{}", checks[2]);
        assert_eq!(class(3), "tls", "{}", checks[3]);
        assert_eq!(class(4), "timeout", "{}", checks[4]);
        assert_eq!(class(5), "dns", "{}", checks[5]);
        assert_eq!(class(6), "blocked", "{}", checks[6]);
        for failed in &checks[1..] {
            assert_eq!(failed["ok"], false);
        }

        // The list shows every URL as external, with its latest check.
        let again = c
            .post_json(
                "/api/v1/beacons/check",
                json!({"network_id": network_id, "url": failing}),
            )
            .await
            .json::<Value>()
            .await
            .unwrap();
        let listed: Vec<Value> = c.get_json("/api/v1/beacons").await;
        assert_eq!(listed.len(), urls.len());
        let row = listed
            .iter()
            .find(|b| b["url"] == failing.as_str())
            .unwrap();
        assert_eq!(row["network_name"], "Checked");
        assert_eq!(row["managed_by"], Value::Null);
        assert_eq!(row["last_check"], again);
    }
);

on_both_databases!(
    checks_and_additions_refuse_what_does_not_belong,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let r = c
            .create_network(json!({"name": "Small", "beacons": ["https://b1.example.net"]}))
            .await;
        let network: Value = r.json().await.unwrap();
        let network_id = network["id"].as_str().unwrap().to_string();

        // A URL that is not a Beacon of the profile is never contacted.
        let r = c
            .post_json(
                "/api/v1/beacons/check",
                json!({"network_id": network_id, "url": "https://elsewhere.example.net"}),
            )
            .await;
        assert_eq!(r.status(), 404);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["code"], "beacon_not_in_profile");
        assert_eq!(body["field"], "url");
        let r = c
            .post_json(
                "/api/v1/beacons/check",
                json!({"network_id": "kn_nope", "url": "https://b1.example.net"}),
            )
            .await;
        assert_eq!(r.status(), 400);
        assert_eq!(r.json::<Value>().await.unwrap()["field"], "network_id");

        // Adding an existing Beacon: a duplicate is refused on `url`; a new one is added.
        let r = c
            .post_json(
                "/api/v1/beacons",
                json!({"network_id": network_id, "url": "https://B1.example.net/"}),
            )
            .await;
        assert_eq!(r.status(), 400);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["field"], "url", "{body}");
        assert_eq!(body["code"], "beacon_duplicate", "{body}");
        let r = c
            .post_json(
                "/api/v1/beacons",
                json!({"network_id": network_id, "url": "http://10.0.0.7:7447"}),
            )
            .await;
        assert_eq!(r.status(), 400, "the relay port is not the Beacon API");
        assert_eq!(r.json::<Value>().await.unwrap()["field"], "url");
        let r = c
            .post_json(
                "/api/v1/beacons",
                json!({"network_id": network_id, "url": "https://b2.example.net"}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let updated: Value = r.json().await.unwrap();
        assert_eq!(
            updated["beacons"],
            json!(["https://b1.example.net", "https://b2.example.net"])
        );
        let audit: Vec<Value> = c.get_json("/api/v1/audit?action=network.updated").await;
        assert_eq!(audit.len(), 1, "the addition is audited: {audit:?}");
    }
);

on_both_databases!(
    a_deployed_beacon_joins_its_profile_on_its_first_success_only,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let network_id = c.created_network(json!({"name": "Office"})).await;
        let a = common::SimAgent::with_docker(&c, 31).await;
        let deploy = json!({"agent_id": a.id(), "kind": "deploy_beacon", "payload": {
            "name": "edge-1", "network_id": network_id, "beacon_url": "https://Edge1.example.net/",
            "advertise": "edge1.example.net:7447", "http_port": 18080}});
        let path = format!("/api/v1/networks/{network_id}");
        let beacons = || async { c.get_json::<Value>(&path).await["beacons"].clone() };
        // Queues the deployment; the Agent takes it and reports `outcome`.
        let deploy_with = |body: Value, outcome: &'static str| {
            let (c, a) = (&c, &a);
            async move {
                assert_eq!(c.post_json("/api/v1/jobs", body).await.status(), 201);
                let job = a.claim().await.unwrap();
                a.finish(job["id"].as_str().unwrap(), outcome, "output")
                    .await;
            }
        };

        // A failed deployment adds nothing.
        deploy_with(deploy.clone(), "failed").await;
        assert_eq!(beacons().await, json!([]));

        // The first success adds the URL, normalised, and says so in the audit log.
        deploy_with(deploy.clone(), "succeeded").await;
        assert_eq!(beacons().await, json!(["https://edge1.example.net"]));
        let audit: Vec<Value> = c
            .get_json("/api/v1/audit?action=network.beacon_added")
            .await;
        assert_eq!(audit.len(), 1, "{audit:?}");
        assert_eq!(audit[0]["subject"], network_id.as_str());
        assert_eq!(audit[0]["actor"], "control");

        // The admin takes it out of the profile; redeploying the same Beacon
        // does not bring it back.
        let r = c
            .client
            .put(c.url(&format!("/api/v1/networks/{network_id}")))
            .json(&json!({"name": "Office", "beacons": []}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        deploy_with(deploy.clone(), "succeeded").await;
        assert_eq!(beacons().await, json!([]));

        // A new URL for the same Beacon is added again.
        let mut moved = deploy.clone();
        moved["payload"]["beacon_url"] = json!("https://edge1.example.org");
        deploy_with(moved, "succeeded").await;
        assert_eq!(beacons().await, json!(["https://edge1.example.org"]));
    }
);

on_both_databases!(
    private_beacons_are_refused_when_the_policy_says_so,
    |backend| async move {
        let c = common::signed_in_refusing_private_addresses(backend).await;
        let loopback = http_beacon(200, "ok").await;
        let r = c
            .create_network(json!({"name": "Internal", "beacons": [loopback]}))
            .await;
        assert_eq!(r.status(), 201);
        let network: Value = r.json().await.unwrap();
        let id = network["id"].as_str().unwrap();
        let r = c
            .post_json(
                "/api/v1/beacons/check",
                json!({"network_id": id, "url": loopback}),
            )
            .await;
        let check: Value = r.json().await.unwrap();
        assert_eq!(check["class"], "blocked", "{check}");
        assert!(check["detail"]
            .as_str()
            .unwrap()
            .contains("KNOTROUTE_CONTROL_ALLOW_PRIVATE_BEACONS"));
        let diagnosis: Value = c
            .get_json(&format!("/api/v1/networks/{id}/diagnostics?lang=en"))
            .await;
        let first = &diagnosis["lines"][0];
        assert_eq!(first["severity"], "error", "{diagnosis}");
        assert!(first["next_step"]
            .as_str()
            .unwrap()
            .contains("KNOTROUTE_CONTROL_ALLOW_PRIVATE_BEACONS=true"));
    }
);

on_both_databases!(
    ipv4_addresses_written_as_ipv6_are_refused_like_the_addresses_they_carry,
    |backend| async move {
        let c = common::signed_in_refusing_private_addresses(backend).await;
        // A healthy Beacon on loopback, reached through IPv6 spellings of
        // 127.0.0.1 and of 0.0.0.0 (which reaches this host): wherever the
        // policy failed, the connection would stay on this machine.
        let healthy = http_beacon(200, "ok").await;
        let port = healthy.rsplit_once(':').unwrap().1;
        let forms = [
            (format!("http://[::ffff:127.0.0.1]:{port}"), "private"),
            (format!("http://[::ffff:0.0.0.0]:{port}"), "unspecified"),
        ];
        let urls: Vec<&str> = forms.iter().map(|(u, _)| u.as_str()).collect();
        let r = c
            .create_network(json!({"name": "Spelled", "beacons": urls}))
            .await;
        assert_eq!(r.status(), 201);
        let network: Value = r.json().await.unwrap();
        let id = network["id"].as_str().unwrap();
        let stored: Vec<String> = serde_json::from_value(network["beacons"].clone()).unwrap();
        for (url, (_, why)) in stored.iter().zip(&forms) {
            let r = c
                .post_json(
                    "/api/v1/beacons/check",
                    json!({"network_id": id, "url": url}),
                )
                .await;
            assert_eq!(r.status(), 200);
            let check: Value = r.json().await.unwrap();
            assert_eq!(check["class"], "blocked", "{url}: {check}");
            let detail = check["detail"].as_str().unwrap();
            assert!(detail.contains(why), "{url}: {detail}");
        }
        // Diagnose stops at the address for each, before any connection.
        let diagnosis: Value = c
            .get_json(&format!("/api/v1/networks/{id}/diagnostics?lang=en"))
            .await;
        for url in &stored {
            let lines: Vec<&Value> = diagnosis["lines"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|l| l["subject"] == url.as_str())
                .collect();
            assert_eq!(lines.len(), 1, "{url}: {diagnosis}");
            assert_eq!(lines[0]["severity"], "error", "{url}: {diagnosis}");
            assert_eq!(lines[0]["step"], "dns", "{url}: {diagnosis}");
        }
    }
);

on_both_databases!(
    beacon_hosts_that_compose_would_interpolate_are_refused_everywhere,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let network_id = c.created_network(json!({"name": "Plain"})).await;
        let a = common::SimAgent::with_docker(&c, 32).await;
        for host in [
            "http://${https_proxy}",
            "http://a${",
            "http://$HOME:8080",
            "https://a%24%7Bx%7D.example",
        ] {
            let refusals = [
                c.create_network(json!({"name": "Hostile", "beacons": [host]}))
                    .await,
                c.post_json(
                    "/api/v1/beacons",
                    json!({"network_id": network_id, "url": host}),
                )
                .await,
                c.post_json(
                    "/api/v1/jobs",
                    json!({"agent_id": a.id(), "kind": "deploy_beacon", "payload": {
                        "name": "edge", "network_id": network_id, "beacon_url": host,
                        "advertise": "edge.example.net:7447", "http_port": 18080}}),
                )
                .await,
            ];
            for (r, field) in refusals.into_iter().zip(["beacons", "url", "beacon_url"]) {
                assert_eq!(r.status(), 400, "{host}");
                let body: Value = r.json().await.unwrap();
                assert_eq!(body["code"], "beacon_host_characters", "{host}: {body}");
                assert_eq!(body["field"], field, "{host}: {body}");
                assert!(
                    body["hint"].as_str().unwrap().contains('$'),
                    "{host}: {body}"
                );
            }
        }
        assert_eq!(a.claim().await, None, "nothing was queued");
    }
);
