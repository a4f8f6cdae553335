//! Network scope: a person limited to some networks finds
//! everything of the others absent (lists leave it out, a direct link
//! answers 404, never 403), takes no action that concerns every network,
//! and a change of their networks applies at their next request. On both
//! databases, over real HTTP, as the person's own signed-in browser; the
//! last test walks every admin route and server function with the other
//! network's real IDs (the tables in common/route_rules.rs), with an alert
//! about the other network among those every reader may list.

mod common;

use common::people::{join, join_limited};
use common::route_rules::{concrete, rule, ui_rule, Args, Ids, Rule};
use common::two_networks::{get, send, two_networks};
use serde_json::{json, Value};
use server::domain::access::roles::{fleet_wide, Role, RoleRules};

on_both_databases!(
    everything_of_another_network_is_absent,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let n = two_networks(&c).await;
        let ops = join_limited(&c, "operator", "ops-a", std::slice::from_ref(&n.alpha)).await;
        let bravos = [
            n.bravo.as_str(),
            &n.agent_b.id(),
            &n.job_b,
            &n.invite_b,
            "edge-b",
            "edge-shared",
        ];

        // Lists name nothing of Bravo, and still show Alpha's.
        for (path, alphas) in [
            ("/api/v1/networks", vec![n.alpha.clone()]),
            ("/api/v1/agents", vec![n.agent_a.id()]),
            ("/api/v1/jobs", vec![n.job_a.clone()]),
            ("/api/v1/invites", vec![n.invite_a.clone()]),
            ("/api/v1/beacons", vec!["edge-a".to_string()]),
            ("/api/v1/audit", vec![n.job_a.clone(), n.invite_a.clone()]),
        ] {
            let (status, body) = get(&ops, &c, path).await;
            assert_eq!(status, 200, "{path}: {body}");
            for bravo in bravos {
                assert!(!body.contains(bravo), "{path} shows {bravo}: {body}");
            }
            for alpha in alphas {
                assert!(body.contains(&alpha), "{path} lacks {alpha}: {body}");
            }
        }
        // Alpha's Agent shows only Alpha's Beacon.
        let (status, body) = get(&ops, &c, &format!("/api/v1/agents/{}", n.agent_a.id())).await;
        assert_eq!(status, 200);
        let agent: Value = serde_json::from_str(&body).unwrap();
        let networks: Vec<&Value> = agent["components"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| &c["network_id"])
            .collect();
        assert_eq!(networks, [&json!(n.alpha)], "{body}");

        // A direct link to anything of Bravo is not found, read or change.
        let b_agent = n.agent_b.id();
        for path in [
            format!("/api/v1/networks/{}", n.bravo),
            format!("/api/v1/networks/{}/onboarding?platform=android", n.bravo),
            format!("/api/v1/agents/{b_agent}"),
            format!("/api/v1/jobs/{}", n.job_b),
            format!("/api/v1/jobs/{}/log", n.job_b),
            format!("/api/v1/networks/{}/diagnostics", n.bravo),
        ] {
            let (status, body) = get(&ops, &c, &path).await;
            assert_eq!(status, 404, "{path}: {body}");
        }
        for (method, path, body) in [
            (
                "POST",
                format!("/api/v1/jobs/{}/cancel", n.job_b),
                json!({}),
            ),
            (
                "DELETE",
                format!("/api/v1/invites/{}", n.invite_b),
                json!({}),
            ),
            (
                "POST",
                "/api/v1/beacons/check".into(),
                json!({"network_id": n.bravo, "url": "https://edge-b.example.net"}),
            ),
            (
                "POST",
                "/api/v1/jobs".into(),
                json!({"agent_id": b_agent, "kind": "restart_component",
                    "payload": {"component_id": "beacon-edge-b"}}),
            ),
        ] {
            let (status, answer) = send(&ops, &c, method, &path, body).await;
            assert_eq!(status, 404, "{method} {path}: {answer}");
        }
        // A job for Bravo on Alpha's own Agent: refused, and nothing queued.
        let jobs_before = c.get_json::<Vec<Value>>("/api/v1/jobs").await.len();
        let (status, answer) = send(
            &ops,
            &c,
            "POST",
            "/api/v1/jobs",
            json!({"agent_id": n.agent_a.id(), "kind": "deploy_beacon", "payload": {
                "name": "sneaky", "network_id": n.bravo,
                "beacon_url": "https://sneaky.example.net", "advertise": "203.0.113.7:7000",
                "http_port": 18080}}),
        )
        .await;
        assert_eq!(status, 404, "{answer}");
        assert_eq!(answer["code"], "not_found");
        let jobs = c.get_json::<Vec<Value>>("/api/v1/jobs").await;
        assert_eq!(jobs.len(), jobs_before, "no job was queued");
        // Bravo's records are as they were.
        let job_b: Value = c.get_json(&format!("/api/v1/jobs/{}", n.job_b)).await;
        assert_eq!(job_b["status"], "pending");
        let invites: Vec<Value> = c.get_json("/api/v1/invites").await;
        let invite_b = invites.iter().find(|i| i["id"] == n.invite_b.as_str());
        assert_eq!(invite_b.unwrap()["state"], "active");

        // What Alpha's operator may do there still works.
        let (status, answer) = send(
            &ops,
            &c,
            "POST",
            &format!("/api/v1/jobs/{}/cancel", n.job_a),
            json!({}),
        )
        .await;
        assert_eq!(status, 200, "{answer}");

        // Their token sees what they see.
        let (status, token) = send(
            &ops,
            &c,
            "POST",
            "/api/v1/tokens",
            json!({"name": "ci", "scope": "read"}),
        )
        .await;
        assert_eq!(status, 201);
        let script = reqwest::Client::new();
        let listed = script
            .get(c.url("/api/v1/networks"))
            .bearer_auth(token["token"].as_str().unwrap())
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            listed.contains(&n.alpha) && !listed.contains(&n.bravo),
            "{listed}"
        );
    }
);

on_both_databases!(
    a_limited_admin_changes_only_its_networks_and_nothing_fleet_wide,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let n = two_networks(&c).await;
        let admin = join_limited(&c, "admin", "adm-a", std::slice::from_ref(&n.alpha)).await;

        let (status, answer) = send(
            &admin,
            &c,
            "PUT",
            &format!("/api/v1/networks/{}", n.alpha),
            json!({"name": "Alpha HQ"}),
        )
        .await;
        assert_eq!(status, 200, "{answer}");
        for (method, path, body) in [
            (
                "PUT",
                format!("/api/v1/networks/{}", n.bravo),
                json!({"name": "Mine now"}),
            ),
            ("DELETE", format!("/api/v1/networks/{}", n.bravo), json!({})),
            (
                "POST",
                "/api/v1/beacons".to_string(),
                json!({"network_id": n.bravo, "url": "https://extra.example.net"}),
            ),
        ] {
            let (status, answer) = send(&admin, &c, method, &path, body).await;
            assert_eq!(status, 404, "{method} {path}: {answer}");
        }
        let bravo: Value = c.get_json(&format!("/api/v1/networks/{}", n.bravo)).await;
        assert_eq!(bravo["name"], "Bravo", "Bravo is untouched");

        // A new network would be outside its scope; Agents, install tokens
        // and settings concern every network. Refused whatever the ID.
        for (method, path, body) in [
            (
                "POST",
                "/api/v1/networks".to_string(),
                json!({"name": "Charlie"}),
            ),
            (
                "POST",
                "/api/v1/install-tokens".to_string(),
                json!({"name": "edge"}),
            ),
            (
                "POST",
                format!("/api/v1/agents/{}/disable", n.agent_a.id()),
                json!({}),
            ),
            (
                "POST",
                format!("/api/v1/agents/{}/disable", n.agent_b.id()),
                json!({}),
            ),
            (
                "PUT",
                "/api/v1/settings/alerts".to_string(),
                json!({"webhook_url": ""}),
            ),
        ] {
            let (status, answer) = send(&admin, &c, method, &path, body).await;
            assert_eq!(status, 403, "{method} {path}: {answer}");
            assert_eq!(
                answer["code"], "needs_all_networks",
                "{method} {path}: {answer}"
            );
        }
        // Fleet-wide lists are empty for it.
        for path in [
            "/api/v1/install-tokens",
            "/api/v1/revoked-keys",
            "/api/v1/enrollments",
        ] {
            let (status, body) = get(&admin, &c, path).await;
            assert_eq!((status, body.as_str()), (200, "[]"), "{path}");
        }
    }
);

on_both_databases!(
    a_persons_networks_are_checked_changed_and_followed_at_once,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let alpha = c.created_network(json!({"name": "Alpha"})).await;
        let bravo = c.created_network(json!({"name": "Bravo"})).await;

        // What an invitation's networks must be.
        let unknown = protocol::NetworkId::from_random_bytes([7; 32]).to_string();
        for (role, networks, code) in [
            ("operator", json!(["kn_nonsense"]), "invalid_network_id"),
            ("operator", json!([unknown]), "unknown_network"),
            ("owner", json!([alpha]), "owner_sees_all"),
        ] {
            let r = c
                .post_json(
                    "/api/v1/users/invites",
                    json!({"role": role, "networks": networks}),
                )
                .await;
            assert_eq!(r.status(), 400, "{role} {networks}");
            let body: Value = r.json().await.unwrap();
            assert_eq!(
                (body["code"].as_str(), body["field"].as_str()),
                (Some(code), Some("networks")),
                "{body}"
            );
        }

        let ops = join_limited(&c, "operator", "ops", std::slice::from_ref(&alpha)).await;
        let users: Vec<Value> = c.get_json("/api/v1/users").await;
        let person = users.iter().find(|u| u["name"] == "ops").unwrap();
        assert_eq!(person["networks"], json!([alpha]));
        let id = person["id"].as_str().unwrap().to_string();
        let sees = |path: String| {
            let ops = ops.clone();
            let c = &c;
            async move { get(&ops, c, &path).await.0 }
        };
        assert_eq!(sees(format!("/api/v1/networks/{alpha}")).await, 200);
        assert_eq!(sees(format!("/api/v1/networks/{bravo}")).await, 404);

        // Moved to Bravo: at the very next request, in the open session.
        let (status, changed) = send(
            &c.client,
            &c,
            "PATCH",
            &format!("/api/v1/users/{id}"),
            json!({"networks": [bravo]}),
        )
        .await;
        assert_eq!(status, 200, "{changed}");
        assert_eq!(changed["networks"], json!([bravo]));
        assert_eq!(sees(format!("/api/v1/networks/{alpha}")).await, 404);
        assert_eq!(sees(format!("/api/v1/networks/{bravo}")).await, 200);

        // Deleting their only network leaves them seeing nothing, not everything.
        assert_eq!(
            c.delete(&format!("/api/v1/networks/{bravo}"))
                .await
                .status(),
            204
        );
        let (status, listed) = get(&ops, &c, "/api/v1/networks").await;
        assert_eq!((status, listed.as_str()), (200, "[]"));

        // Every network again; and becoming owner lifts any limit.
        let (status, changed) = send(
            &c.client,
            &c,
            "PATCH",
            &format!("/api/v1/users/{id}"),
            json!({"networks": []}),
        )
        .await;
        assert_eq!((status, &changed["networks"]), (200, &json!([])));
        assert_eq!(sees(format!("/api/v1/networks/{alpha}")).await, 200);
        send(
            &c.client,
            &c,
            "PATCH",
            &format!("/api/v1/users/{id}"),
            json!({"networks": [alpha]}),
        )
        .await;
        let (status, changed) = send(
            &c.client,
            &c,
            "PATCH",
            &format!("/api/v1/users/{id}"),
            json!({"role": "owner"}),
        )
        .await;
        assert_eq!(
            (status, &changed["networks"]),
            (200, &json!([])),
            "{changed}"
        );

        // The audit log says who changed what.
        let audit: Vec<Value> = c.get_json("/api/v1/audit?action=user.changed").await;
        let said: Vec<&str> = audit
            .iter()
            .map(|e| e["detail"].as_str().unwrap())
            .collect();
        assert!(
            said.iter()
                .any(|d| d.contains(&format!("networks {alpha} → {bravo}"))),
            "{said:?}"
        );
    }
);

/// One of the two people limited to Alpha the walk calls as.
struct Limited {
    label: &'static str,
    role: Role,
    client: reqwest::Client,
}

/// What a limited person's call must answer, once the role allows it and
/// it concerns only some networks. `names_bravo`: the call carries one of
/// Bravo's IDs.
fn expect_for_limited(what: &str, status: u16, body: &str, names_bravo: bool, secrets: &[String]) {
    if names_bravo {
        assert_eq!(status, 404, "{what} names Bravo: {body}");
    } else {
        assert_eq!(status, 200, "{what}: {body}");
        for secret in secrets {
            assert!(
                !body.contains(secret.as_str()),
                "{what} shows {secret}: {body}"
            );
        }
    }
}

/// Whether `action` is refused to a person limited to some networks, and
/// so checked as such before anything else.
fn refused_first(caller: &Limited, rule: Rule) -> Option<&'static str> {
    match rule {
        Rule::Act(action) if !caller.role.allows(action) => Some("forbidden"),
        Rule::Act(action) if fleet_wide(action) => Some("needs_all_networks"),
        _ => None,
    }
}

on_both_databases!(
    every_route_and_server_function_keeps_another_network_out_of_sight,
    |backend| async move {
        // Alerts are kept while a webhook is set: Bravo's job fails, so
        // the alerts every reader may list hold one about Bravo.
        let (c, _) = common::signed_in_with_webhook(backend).await;
        let n = two_networks(&c).await;
        let failed = n.agent_b.next_job().await;
        assert_eq!(failed["id"], n.job_b.as_str());
        n.agent_b.finish(&n.job_b, "failed", "pull denied").await;
        let alerts: Value = c.get_json("/api/v1/settings/alerts").await;
        assert!(alerts.to_string().contains(&n.job_b), "{alerts}");
        let bravo = Ids {
            agent: n.agent_b.id(),
            network: n.bravo.clone(),
            job: n.job_b.clone(),
            invite: n.invite_b.clone(),
            ..Ids::made_up()
        };
        let secrets = vec![
            bravo.agent.clone(),
            bravo.network.clone(),
            bravo.job.clone(),
            bravo.invite.clone(),
        ];
        let alpha = std::slice::from_ref(&n.alpha);
        let limited = [
            Limited {
                label: "operator in Alpha",
                role: Role::Operator,
                client: join_limited(&c, "operator", "walk-ops", alpha).await,
            },
            Limited {
                label: "admin in Alpha",
                role: Role::Admin,
                client: join_limited(&c, "admin", "walk-adm", alpha).await,
            },
        ];
        // Seeing every network, the same links work: the 404s are the scope.
        let everywhere = join(&c, "operator", "walk-all").await;

        let doc: Value = reqwest::get(c.url("/api/v1/openapi.json"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let mut routes = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            let agent_protocol = path.starts_with("/api/v1/agents/") && !path.contains('{');
            if agent_protocol || path == "/api/v1/session" {
                continue;
            }
            for method in item.as_object().unwrap().keys() {
                routes += 1;
                let mut url = concrete(path, &bravo);
                if path.ends_with("/onboarding") {
                    url.push_str("?platform=android");
                }
                // Bodies that name Bravo where a route takes one.
                let body = match path.as_str() {
                    "/api/v1/jobs" => json!({"agent_id": bravo.agent, "kind": "restart_component",
                        "payload": {"component_id": "beacon-edge-b"}}),
                    "/api/v1/beacons" | "/api/v1/beacons/check" => {
                        json!({"network_id": bravo.network, "url": "https://edge-b.example.net"})
                    }
                    "/api/v1/invites" => json!({"network_id": bravo.network}),
                    "/api/v1/networks/{id}/setup" => json!({"step": "monitoring", "skipped": true}),
                    "/api/v1/networks/{id}/probe" => {
                        json!({"service": "web", "agent_id": bravo.agent})
                    }
                    _ => json!({"name": "walk"}),
                };
                let sent = format!(
                    "{url} {}",
                    if method == "get" {
                        Value::Null
                    } else {
                        body.clone()
                    }
                );
                let names_bravo = secrets.iter().any(|s| sent.contains(s.as_str()));
                let rule = rule(method, path);
                let verb = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
                if method == "get" && names_bravo && matches!(rule, Rule::Read) {
                    let status = everywhere.get(c.url(&url)).send().await.unwrap().status();
                    assert_eq!(status, 200, "GET {url} seeing every network");
                }
                for caller in &limited {
                    let what = format!("{method} {path} as {}", caller.label);
                    let answer = caller
                        .client
                        .request(verb.clone(), c.url(&url))
                        .json(&body)
                        .send()
                        .await
                        .unwrap();
                    let status = answer.status().as_u16();
                    let text = answer.text().await.unwrap();
                    if let Some(code) = refused_first(caller, rule) {
                        assert_eq!(status, 403, "{what}: {text}");
                        let refusal: Value = serde_json::from_str(&text).unwrap();
                        assert_eq!(refusal["code"], code, "{what}");
                        continue;
                    }
                    match (method.as_str(), path.as_str()) {
                        // A new network would be outside the scope.
                        ("post", "/api/v1/networks") => {
                            assert_eq!(status, 403, "{what}: {text}");
                            assert!(text.contains("needs_all_networks"), "{what}: {text}");
                        }
                        // As for a network that does not exist: the form's field.
                        ("post", "/api/v1/invites") => {
                            assert_eq!(status, 400, "{what}: {text}");
                            assert!(text.contains("network_id"), "{what}: {text}");
                        }
                        // The person's own tokens: no network in them.
                        (_, p) if p.starts_with("/api/v1/tokens") => assert!(
                            status < 500 && ![401, 403].contains(&status),
                            "{what}: {status} {text}"
                        ),
                        _ => expect_for_limited(&what, status, &text, names_bravo, &secrets),
                    }
                }
            }
        }
        assert!(routes >= 40, "only {routes} admin routes");

        let mut registered: Vec<(&str, http::Method)> =
            leptos::server_fn::axum::server_fn_paths().collect();
        registered.sort_by_key(|(path, _)| *path);
        let mut checked = 0;
        for (path, method) in registered {
            let endpoint = path.strip_prefix("/ui/").unwrap();
            let Some((rule, args)) = ui_rule(endpoint, &bravo) else {
                continue;
            };
            checked += 1;
            let carried = match &args {
                Args::Form(body) => body.clone(),
                Args::Json(body) => body.to_string(),
            };
            let names_bravo = secrets.iter().any(|s| carried.contains(s.as_str()));
            for caller in &limited {
                let what = format!("{path} as {}", caller.label);
                let request = caller.client.request(method.clone(), c.url(path));
                let request = match &args {
                    Args::Form(body) => request
                        .header("content-type", "application/x-www-form-urlencoded")
                        .body(body.clone()),
                    Args::Json(body) => request.json(body),
                };
                let answer = request.send().await.unwrap();
                let status = answer.status().as_u16();
                let text = answer.text().await.unwrap();
                if let Some(code) = refused_first(caller, rule) {
                    assert_eq!(status, 403, "{what}: {text}");
                    assert!(text.contains(code) || code == "forbidden", "{what}: {text}");
                    continue;
                }
                match endpoint {
                    "create_network" => {
                        assert_eq!(status, 403, "{what}: {text}");
                        assert!(text.contains("needs_all_networks"), "{what}: {text}");
                    }
                    "create_invite" => assert_eq!(status, 400, "{what}: {text}"),
                    // The person's own tokens and second factor: no network in them.
                    "create_api_token"
                    | "revoke_api_token"
                    | "begin_two_step"
                    | "confirm_two_step"
                    | "renew_recovery_codes"
                    | "turn_off_two_step" => assert!(
                        status < 500 && ![401, 403].contains(&status),
                        "{what}: {status} {text}"
                    ),
                    _ => expect_for_limited(&what, status, &text, names_bravo, &secrets),
                }
            }
        }
        assert!(checked >= 40, "only {checked} server functions");
    }
);
