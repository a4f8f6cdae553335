//! The network boundary on a shared host, tried as a hostile person limited
//! to one network would, with requests sent raw: a component stays with the
//! network that deployed it (no deploy under its name moves it), what an
//! Agent reports never puts anything in a network, a person's deploy names
//! only its network's Beacons, and a limited person's sidecar does not join
//! another network's Docker network. On both databases.

mod common;

use common::people::join_limited;
use common::two_networks::{beacon_job, get, two_networks};
use serde_json::{json, Value};

/// `body` posted raw (exactly these bytes) to `path` as `person`.
async fn post_raw(
    person: &reqwest::Client,
    c: &common::Control,
    path: &str,
    body: &str,
) -> (u16, Value) {
    let r = person
        .post(c.url(path))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// The component `id` of Agent `agent` as the owner sees it.
async fn component(c: &common::Control, agent: &str, id: &str) -> Value {
    let agent: Value = c.get_json(&format!("/api/v1/agents/{agent}")).await;
    agent["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no {id} on {agent}"))
}

on_both_databases!(
    a_component_stays_with_the_network_that_deployed_it,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let n = two_networks(&c).await;
        let a = n.agent_a.id();
        // Bravo also runs a sidecar on Alpha's host.
        c.queued_job(json!({"agent_id": a, "kind": "deploy_sidecar", "payload": {
            "name": "shop", "network_id": n.bravo, "target": "shop:8080",
            "docker_network": "bravo-apps", "beacons": ["https://edge-b.example.net"]}}))
            .await;
        let ops = join_limited(&c, "operator", "ops-a", std::slice::from_ref(&n.alpha)).await;
        let jobs_before = c
            .get_json::<Vec<Value>>("/api/v1/jobs?limit=500")
            .await
            .len();

        let alpha = &n.alpha;
        let beacon = |name: &str| {
            format!(
                r#"{{"agent_id":"{a}","kind":"deploy_beacon","payload":{{"name":{name},"network_id":"{alpha}","beacon_url":"https://mine.example.net","advertise":"203.0.113.9:7000"}}}}"#
            )
        };
        let sidecar = |name: &str| {
            format!(
                r#"{{"agent_id":"{a}","kind":"deploy_sidecar","payload":{{"name":{name},"network_id":"{alpha}","target":"mine:80","docker_network":"alpha-apps","beacons":["https://edge-a.example.net"]}}}}"#
            )
        };
        // Every spelling of another network's component, as a deploy for Alpha.
        let hostile = [
            beacon(r#""edge-shared""#),
            beacon(r#""EDGE-SHARED""#),
            beacon(r#""  edge-shared  ""#),
            beacon(r#""Edge-Shared""#),
            sidecar(r#""shop""#),
            sidecar(r#""SHOP""#),
            sidecar(r#"" shop""#),
        ];
        for body in &hostile {
            for (who, client) in [("operator in Alpha", &ops), ("owner", &c.client)] {
                let (status, answer) = post_raw(client, &c, "/api/v1/jobs", body).await;
                assert_eq!(status, 400, "{who}: {body}: {answer}");
                assert_eq!(
                    (answer["code"].as_str(), answer["field"].as_str()),
                    (Some("name_of_another_network"), Some("name")),
                    "{who}: {body}: {answer}"
                );
            }
        }
        // Nor can Alpha's operator restart or remove them: not found.
        for (kind, id) in [
            ("remove_component", "beacon-edge-shared"),
            ("restart_component", "beacon-edge-shared"),
            ("remove_component", "sidecar-shop"),
            ("remove_component", "SIDECAR-SHOP"),
        ] {
            let body = format!(
                r#"{{"agent_id":"{a}","kind":"{kind}","payload":{{"component_id":"{id}"}}}}"#
            );
            let (status, answer) = post_raw(&ops, &c, "/api/v1/jobs", &body).await;
            assert_eq!(status, 404, "{body}: {answer}");
        }
        // Nothing was queued, and both still belong to Bravo, desired there.
        let jobs = c.get_json::<Vec<Value>>("/api/v1/jobs?limit=500").await;
        assert_eq!(jobs.len(), jobs_before, "no job was queued");
        for id in ["beacon-edge-shared", "sidecar-shop"] {
            let shown = component(&c, &a, id).await;
            assert_eq!(shown["network_id"], json!(n.bravo), "{shown}");
            assert_eq!(shown["desired"], true, "{shown}");
        }

        // A heartbeat naming Alpha for them moves nothing either.
        n.agent_a
            .report_components(json!([
                {"id": "beacon-edge-shared", "kind": "beacon", "name": "edge-shared", "status": "running",
                 "labels": {"io.knotroute.managed": "true", "io.knotroute.network-id": n.alpha}},
                {"id": "sidecar-shop", "kind": "sidecar", "name": "shop", "status": "running",
                 "labels": {"io.knotroute.managed": "true", "io.knotroute.network-id": n.alpha}}
            ]))
            .await;
        for id in ["beacon-edge-shared", "sidecar-shop"] {
            let shown = component(&c, &a, id).await;
            assert_eq!(shown["network_id"], json!(n.bravo), "{shown}");
        }
        let (_, agent) = get(&ops, &c, &format!("/api/v1/agents/{a}")).await;
        assert!(
            !agent.contains("edge-shared") && !agent.contains("shop"),
            "{agent}"
        );

        // A name of its own is deployed for Alpha as before.
        let (status, answer) = post_raw(&ops, &c, "/api/v1/jobs", &beacon(r#""edge-a2""#)).await;
        assert_eq!(status, 201, "{answer}");
    }
);

on_both_databases!(
    what_an_agent_reports_never_makes_it_a_member_of_a_network,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let n = two_networks(&c).await;
        let ops = join_limited(&c, "operator", "ops-a", std::slice::from_ref(&n.alpha)).await;
        // A host enrolled with nothing but the shared token (and approved)
        // claims Alpha's network for what it runs, in every spelling.
        let stranger = common::SimAgent::with_docker(&c, 90).await;
        let spellings = [
            n.alpha.clone(),
            n.alpha.to_uppercase(),
            format!("  {}  ", n.alpha),
            format!("{}\n", n.alpha),
        ];
        let components: Vec<Value> = spellings
            .iter()
            .enumerate()
            .map(|(i, label)| {
                json!({"id": format!("sidecar-claimed-{i}"), "kind": "sidecar",
                    "name": format!("claimed-{i}"), "status": "running",
                    "service": "umuxz2vrqhhpnmzqk5ycspnwjcgwjjljnngqghfxbar6lw5ar626lwyb.knot",
                    "labels": {"io.knotroute.managed": "true", "io.knotroute.network-id": label}})
            })
            .collect();
        stranger.report_components(json!(components)).await;

        // Stored, but under no network.
        let shown: Value = c
            .get_json(&format!("/api/v1/agents/{}", stranger.id()))
            .await;
        let networks: Vec<&Value> = shown["components"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| &x["network_id"])
            .collect();
        assert_eq!(networks.len(), spellings.len(), "{shown}");
        assert!(networks.iter().all(|n| n.is_null()), "{shown}");

        // Alpha's operator sees neither the host nor its services.
        let (status, agents) = get(&ops, &c, "/api/v1/agents").await;
        assert_eq!(status, 200);
        assert!(!agents.contains(&stranger.id()), "{agents}");
        let (status, _) = get(&ops, &c, &format!("/api/v1/agents/{}", stranger.id())).await;
        assert_eq!(status, 404);
        let services = ops
            .post(c.url("/ui/list_services_page"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body("")
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(!services.contains("claimed-"), "{services}");
        let (_, diagnosis) = get(
            &ops,
            &c,
            &format!("/api/v1/networks/{}/diagnostics", n.alpha),
        )
        .await;
        assert!(!diagnosis.contains(&stranger.id()), "{diagnosis}");
    }
);

on_both_databases!(
    a_persons_deploy_names_its_networks_beacons_and_keeps_off_others_docker_networks,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let n = two_networks(&c).await;
        let a = n.agent_a.id();
        c.queued_job(json!({"agent_id": a, "kind": "deploy_sidecar", "payload": {
            "name": "shop", "network_id": n.bravo, "target": "shop:8080",
            "docker_network": "bravo-apps", "beacons": ["https://edge-b.example.net"]}}))
            .await;
        let ops = join_limited(&c, "operator", "ops-a", std::slice::from_ref(&n.alpha)).await;
        let alpha = &n.alpha;
        let sidecar = |beacons: &str, docker_network: &str| {
            format!(
                r#"{{"agent_id":"{a}","kind":"deploy_sidecar","payload":{{"name":"web","network_id":"{alpha}","target":"web:80","docker_network":"{docker_network}","beacons":{beacons}}}}}"#
            )
        };
        // Beacons that are not Alpha's: Bravo's, made up, internal.
        for beacons in [
            r#"["https://edge-b.example.net"]"#,
            r#"["https://edge-a.example.net","https://edge-b.example.net"]"#,
            r#"["https://evil.example"]"#,
            r#"["http://10.0.0.5:8080"]"#,
            r#"["HTTPS://EDGE-B.EXAMPLE.NET/"]"#,
        ] {
            for (who, client) in [("operator in Alpha", &ops), ("owner", &c.client)] {
                let body = sidecar(beacons, "alpha-apps");
                let (status, answer) = post_raw(client, &c, "/api/v1/jobs", &body).await;
                assert_eq!(status, 400, "{who}: {beacons}: {answer}");
                assert_eq!(answer["code"], "beacon_not_in_network", "{who}: {answer}");
                assert_eq!(answer["field"], "beacons", "{who}: {answer}");
            }
        }
        // A probe names the network's Beacons too.
        let probe = format!(
            r#"{{"agent_id":"{a}","kind":"probe_service","payload":{{"network_id":"{alpha}","service":"web","address":"umuxz2vrqhhpnmzqk5ycspnwjcgwjjljnngqghfxbar6lw5ar626lwyb.knot","beacons":["https://edge-b.example.net"]}}}}"#
        );
        let (status, answer) = post_raw(&ops, &c, "/api/v1/jobs", &probe).await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (400, Some("beacon_not_in_network")),
            "{answer}"
        );
        // A deploy for a network that does not exist is not queued.
        let nowhere = protocol::NetworkId::from_random_bytes([42; 32]).to_string();
        let body =
            sidecar(r#"["https://edge-a.example.net"]"#, "apps").replace(alpha.as_str(), &nowhere);
        let (status, answer) = post_raw(&c.client, &c, "/api/v1/jobs", &body).await;
        assert_eq!(status, 404, "{answer}");

        // Bravo's Docker network on the shared host is not Alpha's to join.
        let body = sidecar(r#"["https://edge-a.example.net"]"#, "bravo-apps");
        let (status, answer) = post_raw(&ops, &c, "/api/v1/jobs", &body).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(
            (answer["code"].as_str(), answer["field"].as_str()),
            (
                Some("docker_network_of_another_network"),
                Some("docker_network")
            ),
            "{answer}"
        );
        // Its own, with its own Beacons, is queued.
        let body = sidecar(r#"["https://edge-a.example.net"]"#, "alpha-apps");
        let (status, answer) = post_raw(&ops, &c, "/api/v1/jobs", &body).await;
        assert_eq!(status, 201, "{answer}");
        // Someone who sees every network decides for the whole host.
        let body = sidecar(r#"["https://edge-a.example.net"]"#, "bravo-apps")
            .replace("\"web\"", "\"bridge\"");
        let (status, answer) = post_raw(&c.client, &c, "/api/v1/jobs", &body).await;
        assert_eq!(status, 201, "{answer}");
    }
);

/// What a limited person's live-update stream says within `within`.
async fn stream_says(stream: &mut reqwest::Response, within: std::time::Duration) -> String {
    let mut said = String::new();
    let deadline = tokio::time::Instant::now() + within;
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(deadline, stream.chunk()).await {
        said.push_str(&String::from_utf8_lossy(&chunk));
    }
    said
}

on_both_databases!(
    alerts_and_live_updates_of_another_network_stay_out_of_sight,
    |backend| async move {
        let (c, _) = common::signed_in_with_webhook(backend).await;
        let n = two_networks(&c).await;
        let ops = join_limited(&c, "operator", "ops-a", std::slice::from_ref(&n.alpha)).await;
        let viewer = join_limited(&c, "viewer", "view-a", std::slice::from_ref(&n.alpha)).await;

        // Each network's Agent fails its job: an alert about each.
        for agent in [&n.agent_a, &n.agent_b] {
            let job = agent.next_job().await;
            agent
                .finish(job["id"].as_str().unwrap(), "failed", "pull denied")
                .await;
        }
        let everything: Value = c.get_json("/api/v1/settings/alerts").await;
        let text = everything.to_string();
        assert!(text.contains(&n.job_a) && text.contains(&n.job_b), "{text}");
        for (who, person) in [("operator", &ops), ("viewer", &viewer)] {
            let (status, alerts) = get(person, &c, "/api/v1/settings/alerts").await;
            assert_eq!(status, 200);
            assert!(alerts.contains(&n.job_a), "{who}: {alerts}");
            assert!(!alerts.contains(&n.job_b), "{who}: {alerts}");
            assert!(!alerts.contains(&n.agent_b.id()), "{who}: {alerts}");
            let screen = person
                .post(c.url("/ui/settings_screen"))
                .header("content-type", "application/x-www-form-urlencoded")
                .body("")
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            assert!(screen.contains(&n.job_a), "{who}: {screen}");
            assert!(!screen.contains(&n.job_b), "{who}: {screen}");
        }

        // Live updates: a change in Bravo says nothing to Alpha's operator.
        let mut stream = ops.get(c.url("/api/v1/events")).send().await.unwrap();
        assert_eq!(stream.status(), 200);
        stream_says(&mut stream, std::time::Duration::from_millis(1500)).await;
        beacon_job(&c, &n.agent_b.id(), &n.bravo, "edge-b2").await;
        let said = stream_says(&mut stream, std::time::Duration::from_secs(3)).await;
        assert!(!said.contains("event: change"), "told of Bravo: {said}");
        // One in Alpha does.
        beacon_job(&c, &n.agent_a.id(), &n.alpha, "edge-a2").await;
        let said = stream_says(&mut stream, std::time::Duration::from_secs(5)).await;
        assert!(
            said.contains("event: change") && said.contains("jobs"),
            "{said}"
        );
    }
);
