//! The Agent lifecycle end to end: one-time install tokens, the enrollment
//! log, revoke, delete, move to another host, and enable re-sending the
//! desired state. Reconciliation itself is in `reconciliation.rs`.

mod common;

use chrono::{Duration, Utc};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use server::entities::install_token;

fn sidecar_job(agent_id: &str) -> Value {
    json!({"agent_id": agent_id, "kind": "deploy_sidecar", "payload": {
        "name": "web", "network_id": common::lab_network_id(),
        "target": "app:8080", "docker_network": "apps", "beacons": ["https://beacon.example.net"]}})
}

/// A heartbeat with Docker available, reporting `running` components.
fn report(running: &[&str]) -> Value {
    let components: Vec<Value> = running
        .iter()
        .map(|id| json!({"id": id, "kind": "sidecar", "name": id, "status": "running"}))
        .collect();
    json!({"name": "host", "docker_available": true, "components": components})
}

async fn create_token(c: &common::Control, body: Value) -> Value {
    let r = c.post_json("/api/v1/install-tokens", body).await;
    assert_eq!(r.status(), 201);
    r.json().await.unwrap()
}

async fn error_code(r: reqwest::Response) -> (u16, String) {
    let status = r.status().as_u16();
    let body: Value = r.json().await.unwrap();
    (status, body["code"].as_str().unwrap_or("").to_string())
}

/// Queues the sidecar deployment, has the Agent run it and report it running.
async fn deploy_sidecar(c: &common::Control, a: &common::SimAgent) -> String {
    let r = c.post_json("/api/v1/jobs", sidecar_job(&a.id())).await;
    assert_eq!(r.status(), 201);
    let job = a.claim().await.expect("the deployment");
    let id = job["id"].as_str().unwrap().to_string();
    a.finish(&id, "succeeded", "started").await;
    a.post("/api/v1/agents/heartbeat", report(&["sidecar-web"]))
        .await;
    id
}

on_both_databases!(
    an_install_token_enrolls_one_host_once_and_names_it,
    |backend| async move {
        let public = "https://control.example.org";
        let mut c = common::start_with(
            backend,
            common::Options {
                public_url: Some(public.into()),
                ..Default::default()
            },
        )
        .await;
        // With PUBLIC_URL set, only its origin may write.
        c.client = common::browser_like_client(public);
        c.sign_in().await;
        let created = create_token(&c, json!({"name": "edge-7", "tags": ["edge", "eu"]})).await;
        let token = created["token"].as_str().unwrap();
        assert!(token.starts_with("krit_"));
        assert_eq!(created["state"], "active");
        assert!(created["warning"].is_null());
        for snippet in [&created["docker_run"], &created["compose"]] {
            let text = snippet.as_str().unwrap();
            assert!(text.contains("https://control.example.org"), "{text}");
            assert!(text.contains(token), "{text}");
        }
        // Listed with its state, never with the token.
        let listed: Value = c.get_json("/api/v1/install-tokens").await;
        assert_eq!(listed[0]["id"], created["id"]);
        assert!(!listed.to_string().contains(token));

        let first = common::SimAgent::new(&c, 31);
        assert_eq!(first.enroll(token, "ignored").await.status(), 201);
        let agent: Value = c.get_json(&format!("/api/v1/agents/{}", first.id())).await;
        assert_eq!(agent["name"], "edge-7");
        assert_eq!(agent["tags"], json!(["edge", "eu"]));
        // The admin's name and tags outlive the Agent's own in its heartbeats.
        let r = first
            .post(
                "/api/v1/agents/heartbeat",
                json!({"name": "host-name", "tags": ["own"], "docker_available": true}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let agent: Value = c.get_json(&format!("/api/v1/agents/{}", first.id())).await;
        assert_eq!(
            (agent["name"].as_str(), &agent["tags"]),
            (Some("edge-7"), &json!(["edge", "eu"]))
        );
        assert_eq!(agent["status"], "online");
        // The same host may repeat (its answer may have been lost); another may not.
        assert_eq!(first.enroll(token, "ignored").await.status(), 201);
        let second = common::SimAgent::new(&c, 32);
        assert_eq!(
            error_code(second.enroll(token, "other").await).await,
            (401, "install_token_used".into())
        );
        let listed: Value = c.get_json("/api/v1/install-tokens").await;
        assert_eq!(listed[0]["state"], "used");
        assert_eq!(listed[0]["used_by"], first.id());
    }
);

on_both_databases!(
    revoked_and_expired_install_tokens_are_refused_and_the_log_says_why,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let revoked = create_token(&c, json!({})).await;
        assert!(revoked["warning"].as_str().unwrap().contains("PUBLIC_URL"));
        let r = c
            .post_json(
                &format!(
                    "/api/v1/install-tokens/{}/revoke",
                    revoked["id"].as_str().unwrap()
                ),
                json!({}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let expired = create_token(&c, json!({"expires_in_hours": 1})).await;
        install_token::Entity::update_many()
            .col_expr(
                install_token::Column::ExpiresAt,
                (Utc::now() - Duration::minutes(1)).into(),
            )
            .filter(install_token::Column::Id.eq(expired["id"].as_str().unwrap()))
            .exec(&c.state.db)
            .await
            .unwrap();

        let a = common::SimAgent::new(&c, 33);
        let token = |v: &Value| v["token"].as_str().unwrap().to_string();
        assert_eq!(
            error_code(a.enroll(&token(&revoked), "a").await).await,
            (401, "install_token_revoked".into())
        );
        assert_eq!(
            error_code(a.enroll(&token(&expired), "a").await).await,
            (401, "install_token_expired".into())
        );
        assert_eq!(
            error_code(a.enroll("krit_not-a-real-token", "a").await).await,
            (401, "bad_token".into())
        );
        assert_eq!(a.enroll(common::ENROLL, "a").await.status(), 201);

        let log: Value = c.get_json("/api/v1/enrollments").await;
        let reasons: Vec<&str> = log
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["reason"].as_str().unwrap())
            .collect();
        assert_eq!(
            reasons,
            [
                "accepted",
                "bad_token",
                "install_token_expired",
                "install_token_revoked"
            ]
        );
        assert_eq!(log[0]["client"], "127.0.0.1");
        assert_eq!(log[0]["agent_id"], a.id());
        assert!(log[2]["reason_text"].as_str().unwrap().contains("expired"));

        // Bad input names the field.
        let r = c
            .post_json("/api/v1/install-tokens", json!({"expires_in_hours": 0}))
            .await;
        assert_eq!(r.status(), 400);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["field"], "expires_in_hours");
    }
);

on_both_databases!(
    a_revoked_agent_is_refused_by_name_and_loses_its_queued_jobs,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 34).await;
        let job: Value = c
            .post_json("/api/v1/jobs", sidecar_job(&a.id()))
            .await
            .json()
            .await
            .unwrap();
        let r = c
            .post_json(&format!("/api/v1/agents/{}/revoke", a.id()), json!({}))
            .await;
        assert_eq!(r.status(), 200);
        let view: Value = r.json().await.unwrap();
        assert_eq!(view["status"], "revoked");
        let stored: Value = c
            .get_json(&format!("/api/v1/jobs/{}", job["id"].as_str().unwrap()))
            .await;
        assert_eq!(stored["status"], "cancelled");
        assert!(stored["result"].as_str().unwrap().contains("revoked"));

        let r = a.post("/api/v1/agents/heartbeat", report(&[])).await;
        assert_eq!(error_code(r).await, (401, "agent_revoked".into()));
        assert_eq!(
            error_code(a.enroll(common::ENROLL, "again").await).await,
            (403, "agent_revoked".into())
        );
        let r = c.post_json("/api/v1/jobs", sidecar_job(&a.id())).await;
        assert_eq!(error_code(r).await, (409, "agent_retired".into()));
        let r = c
            .post_json(&format!("/api/v1/agents/{}/enable", a.id()), json!({}))
            .await;
        assert_eq!(error_code(r).await, (409, "agent_retired".into()));

        // Deleting forgets the record, not the revoked key (see revoked_keys.rs).
        let r = c.delete(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(r.status(), 204);
        let r = c.get(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(r.status(), 404);
        assert_eq!(
            error_code(a.enroll(common::ENROLL, "again").await).await,
            (403, "agent_revoked".into())
        );
        let audit: Value = c.get_json("/api/v1/audit?action=agent.revoked").await;
        assert_eq!(audit[0]["subject"], a.id());
    }
);

on_both_databases!(
    a_moved_agent_hands_its_desired_components_to_the_new_host,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let old = common::SimAgent::with_docker(&c, 35).await;
        deploy_sidecar(&c, &old).await;
        // A restart queued but not taken is cancelled by the move.
        let restart = json!({"agent_id": old.id(), "kind": "restart_component",
            "payload": {"component_id": "sidecar-web"}});
        assert_eq!(c.post_json("/api/v1/jobs", restart).await.status(), 201);

        let r = c
            .post_json(&format!("/api/v1/agents/{}/move", old.id()), json!({}))
            .await;
        assert_eq!(r.status(), 201);
        let moved: Value = r.json().await.unwrap();
        assert_eq!(moved["replaces_agent"], old.id());
        let r = old.post("/api/v1/agents/heartbeat", report(&[])).await;
        assert_eq!(error_code(r).await, (401, "agent_moved".into()));
        let view: Value = c.get_json(&format!("/api/v1/agents/{}", old.id())).await;
        assert_eq!(view["reason"], "awaiting_new_host");

        // Asking again (say the first snippet leaked) makes the earlier token useless.
        let again: Value = c
            .post_json(&format!("/api/v1/agents/{}/move", old.id()), json!({}))
            .await
            .json()
            .await
            .unwrap();
        let new = common::SimAgent::new(&c, 36);
        let stale = moved["token"].as_str().unwrap();
        assert_eq!(
            error_code(new.enroll(stale, "fresh-host").await).await,
            (401, "install_token_revoked".into())
        );
        let token = again["token"].as_str().unwrap();
        assert_eq!(new.enroll(token, "fresh-host").await.status(), 201);
        let view: Value = c.get_json(&format!("/api/v1/agents/{}", old.id())).await;
        assert_eq!(
            (view["status"].as_str(), view["moved_to"].as_str()),
            (Some("moved"), Some(new.id().as_str()))
        );
        let taken: Value = c.get_json(&format!("/api/v1/agents/{}", new.id())).await;
        assert_eq!(taken["name"], "host", "the record's name carries over");
        assert_eq!(taken["components"][0]["id"], "sidecar-web");
        assert_eq!(taken["components"][0]["desired"], true);

        // Its first heartbeat (Docker available, nothing running) brings the
        // deployment, and does not rename the record.
        let first_report =
            json!({"name": "fresh-host", "docker_available": true, "components": []});
        new.post("/api/v1/agents/heartbeat", first_report).await;
        let taken: Value = c.get_json(&format!("/api/v1/agents/{}", new.id())).await;
        assert_eq!(taken["name"], "host");
        let job = new
            .claim()
            .await
            .expect("the desired sidecar is deployed on the new host");
        assert_eq!(job["kind"], "deploy_sidecar");
        assert_eq!(job["payload"]["name"], "web");
        assert!(
            new.claim().await.is_none(),
            "the cancelled restart is not delivered"
        );
    }
);

on_both_databases!(
    enabling_an_agent_resends_its_whole_desired_state,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 37).await;
        deploy_sidecar(&c, &a).await;
        let path = |action: &str| format!("/api/v1/agents/{}/{action}", a.id());
        let view: Value = c
            .post_json(&path("disable"), json!({}))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(view["status"], "disabled");
        let r = a
            .post("/api/v1/agents/heartbeat", report(&["sidecar-web"]))
            .await;
        assert_eq!(error_code(r).await, (401, "agent_disabled".into()));
        let view: Value = c
            .post_json(&path("enable"), json!({}))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(view["status"], "online");
        let job = a
            .claim()
            .await
            .expect("enable re-sends the desired sidecar");
        assert_eq!(
            (job["kind"].as_str(), job["payload"]["name"].as_str()),
            (Some("deploy_sidecar"), Some("web"))
        );
    }
);
