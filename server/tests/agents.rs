//! The agent API as an Agent in the field uses it: enrollment, then signed
//! heartbeats, with the refusals a hostile or broken client meets.

mod common;

use sea_orm::EntityTrait;
use serde_json::{json, Value};
use server::entities::{agent, component, enrollment_log};

fn heartbeat_body(nonce: &str) -> Value {
    json!({"name": "prod-01", "hostname": "host-a", "version": "1.2.3", "docker_available": true,
        "docker_version": "27.1.1/27.1.1", "tags": ["production"], "nonce": nonce,
        "components": [{"id": "sidecar-web", "kind": "sidecar", "name": "web", "container": "kr-sidecar-web-knotroute-1",
            "image": "ghcr.io/localzet/knotroute-sidecar:1.2.3", "status": "running", "version": "1.2.3",
            "address": "", "service": "qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot", "target": "app:8080",
            "labels": {"io.knotroute.managed": "true"}}]})
}

on_both_databases!(
    an_agent_enrolls_with_the_shared_token_and_keeps_its_id,
    |backend| async move {
        let c = common::start(backend).await;
        let a = common::SimAgent::new(&c, 1);
        let r = a.enroll(common::ENROLL, "first-name").await;
        assert_eq!(r.status(), 201);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["agent_id"], a.id(), "the ID the Agent derives itself");
        // Same key again: same ID, name refreshed, still one agent.
        let again: Value = a
            .enroll(common::ENROLL, "second-name")
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(again["agent_id"], a.id());
        let agents = agent::Entity::find().all(&c.state.db).await.unwrap();
        assert_eq!(agents.len(), 1);
        assert_eq!(agents[0].name, "second-name");
        assert_eq!(agents[0].public_key, a.key.public_key().to_wire());
    }
);

on_both_databases!(
    refused_enrollments_say_why_and_are_logged,
    |backend| async move {
        let c = common::start(backend).await;
        let a = common::SimAgent::new(&c, 2);
        let r = a.enroll("wrong-token-wrong-token", "x").await;
        assert_eq!(r.status(), 401);
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "bad_token");
        let r = a
            .client
            .post(format!("{}/api/v1/agents/enroll", c.base))
            .json(&json!({"name": "x", "public_key": "not-a-key", "token": common::ENROLL}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
        assert_eq!(r.json::<Value>().await.unwrap()["field"], "public_key");
        a.enroll(common::ENROLL, "ok").await;
        let log = enrollment_log::Entity::find()
            .all(&c.state.db)
            .await
            .unwrap();
        let reasons: Vec<(&str, bool)> = log
            .iter()
            .map(|l| (l.reason.as_str(), l.accepted))
            .collect();
        assert_eq!(
            reasons,
            [
                ("bad_token", false),
                ("malformed_key", false),
                ("accepted", true)
            ]
        );
        assert!(log.iter().all(|l| l.client == "127.0.0.1"));
    }
);

on_both_databases!(
    a_signed_heartbeat_is_stored_and_counts_the_agent_online,
    |backend| async move {
        let c = common::start(backend).await;
        let a = common::SimAgent::new(&c, 3);
        a.enroll(common::ENROLL, "prod-01").await;
        a.approve().await;
        let r = a.heartbeat(heartbeat_body("n1")).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.json::<Value>().await.unwrap(), json!({"ok": true}));
        let row = agent::Entity::find_by_id(a.id())
            .one(&c.state.db)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (row.hostname.as_str(), row.docker_available),
            ("host-a", true)
        );
        assert!(row.last_heartbeat_at.is_some());
        let components = component::Entity::find().all(&c.state.db).await.unwrap();
        assert_eq!(components.len(), 1);
        assert_eq!(
            (
                components[0].status.as_str(),
                components[0].service.as_str()
            ),
            (
                "running",
                "qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot"
            )
        );
        c.sign_in().await;
        let counts: Value = c
            .client
            .post(c.url("/ui/overview"))
            .form(&[("", "")])
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            (
                counts["agents_online"].as_u64(),
                counts["agents_total"].as_u64()
            ),
            (Some(1), Some(1))
        );
    }
);

on_both_databases!(
    unknown_agents_bad_signatures_and_stale_times_look_the_same,
    |backend| async move {
        let c = common::start(backend).await;
        let a = common::SimAgent::new(&c, 4);
        a.enroll(common::ENROLL, "a").await;
        let body = serde_json::to_vec(&heartbeat_body("n2")).unwrap();
        let path = "/api/v1/agents/heartbeat";
        let stranger = common::SimAgent::new(&c, 5);
        // The enrolled Agent's ID, signed by another key.
        let ts = chrono::Utc::now().timestamp().to_string();
        let wrong_key = a
            .client
            .post(format!("{}{}", c.base, path))
            .header("content-type", "application/json")
            .header("x-knot-agent", a.id())
            .header("x-knot-timestamp", &ts)
            .header(
                "x-knot-signature",
                stranger.key.sign("POST", path, &ts, &body),
            )
            .body(body.clone());
        let answers = [
            stranger.signed(path, &body, 0).send().await.unwrap(),
            wrong_key.send().await.unwrap(),
            a.signed(path, &body, -181).send().await.unwrap(),
            a.signed(path, &body, 181).send().await.unwrap(),
        ];
        let mut bodies = Vec::new();
        for r in answers {
            assert_eq!(r.status(), 401);
            bodies.push(r.text().await.unwrap());
        }
        assert!(
            bodies.iter().all(|b| *b == bodies[0]),
            "no oracle: {bodies:?}"
        );
        assert!(bodies[0].contains("\"code\":\"unauthorized\""));
        // Within the window the same agent is accepted.
        assert_eq!(
            a.signed(path, &body, 170).send().await.unwrap().status(),
            200
        );
    }
);

on_both_databases!(
    an_identical_request_is_refused_the_second_time,
    |backend| async move {
        let c = common::start(backend).await;
        let a = common::SimAgent::new(&c, 6);
        a.enroll(common::ENROLL, "a").await;
        let body = serde_json::to_vec(&heartbeat_body("once")).unwrap();
        let first = a.signed("/api/v1/agents/heartbeat", &body, 0);
        let replay = first.try_clone().unwrap();
        assert_eq!(first.send().await.unwrap().status(), 200);
        let r = replay.send().await.unwrap();
        assert_eq!(r.status(), 401);
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "replayed");
    }
);

on_both_databases!(
    hostile_heartbeats_are_bounded_not_stored_whole,
    |backend| async move {
        let c = common::start(backend).await;
        let a = common::SimAgent::new(&c, 7);
        a.enroll(common::ENROLL, "a").await;
        let labels: serde_json::Map<String, Value> = (0..15_000)
            .map(|i| (format!("label-{i:05}"), json!("x".repeat(90))))
            .collect();
        let mut body = heartbeat_body("big");
        body["hostname"] = json!(format!("{}\u{0}evil", "h".repeat(10_000)));
        body["components"][0]["labels"] = Value::Object(labels);
        body["components"][0]["last_error"] = json!("e".repeat(100_000));
        body["components"][0]["warnings"] = json!(vec!["w".repeat(1000); 100]);
        let bytes = serde_json::to_vec(&body).unwrap();
        assert!(
            bytes.len() > 1_500_000 && bytes.len() < 2 * 1024 * 1024,
            "{}",
            bytes.len()
        );
        assert_eq!(
            a.signed("/api/v1/agents/heartbeat", &bytes, 0)
                .send()
                .await
                .unwrap()
                .status(),
            200
        );
        let row = agent::Entity::find_by_id(a.id())
            .one(&c.state.db)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(row.hostname.chars().count(), 80);
        assert!(!row.hostname.contains('\u{0}'));
        let comp = &component::Entity::find().all(&c.state.db).await.unwrap()[0];
        assert_eq!(comp.last_error.len(), 1024);
        let warnings: Vec<String> = serde_json::from_str(&comp.warnings).unwrap();
        assert_eq!((warnings.len(), warnings[0].len()), (16, 256));
        // Non-JSON and oversized bodies are refused before anything else.
        let r = a
            .signed_as("/api/v1/agents/heartbeat", b"{}", 0, "text/plain")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 415);
        let huge = vec![b' '; 2 * 1024 * 1024 + 1];
        let r = a
            .signed("/api/v1/agents/heartbeat", &huge, 0)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 413);
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "body_too_large");
    }
);

on_both_databases!(
    the_admin_sees_agents_with_status_and_components,
    |backend| async move {
        let c = common::start(backend).await;
        let a = common::SimAgent::new(&c, 8);
        a.enroll(common::ENROLL, "prod-01").await;
        // The agent listing is for admins only, though it shares the /api/v1/agents prefix.
        assert_eq!(c.get("/api/v1/agents").await.status(), 401);
        assert_eq!(
            c.get(&format!("/api/v1/agents/{}", a.id())).await.status(),
            401
        );
        c.sign_in().await;
        // Enrolled with the shared token, it waits for approval.
        let list: Vec<Value> = c.get_json("/api/v1/agents").await;
        assert_eq!(
            (list[0]["status"].as_str(), list[0]["reason"].as_str()),
            (Some("pending"), Some("awaiting_approval"))
        );
        a.approve().await;
        let list: Vec<Value> = c.get_json("/api/v1/agents").await;
        assert_eq!(
            (list[0]["status"].as_str(), list[0]["reason"].as_str()),
            (Some("offline"), Some("no_heartbeat_yet"))
        );
        let mut hb = heartbeat_body("s1");
        hb["components"][0]["status"] = json!("exited");
        a.heartbeat(hb).await;
        let one: Value = c.get_json(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(
            (one["status"].as_str(), one["reason"].as_str()),
            (Some("degraded"), Some("component_error"))
        );
        assert!(one["reason_text"].as_str().unwrap().contains("sidecar-web"));
        assert_eq!(
            one["components"][0]["service"],
            "qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot"
        );
        assert_eq!(c.get("/api/v1/agents/ka_nope").await.status(), 404);
    }
);
