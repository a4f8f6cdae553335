//! New Agents wait for approval: one enrolled with the shared token is
//! pending (its heartbeats recorded, no job, no network) until an admin who
//! sees every network approves it, after comparing its key fingerprint; a
//! rejected key stays refused. An install token is the approval, unless it
//! was made to need one; the setting turns the waiting off. On both
//! databases, over real HTTP.

mod common;

use common::people::join_limited;
use common::two_networks::send;
use serde_json::{json, Value};

async fn agent(c: &common::Control, id: &str) -> Value {
    c.get_json(&format!("/api/v1/agents/{id}")).await
}

on_both_databases!(
    a_shared_token_agent_waits_takes_no_job_until_approved,
    |backend| async move {
        let (c, received) = common::signed_in_with_webhook(backend).await;
        let alpha = c
            .created_network(json!({"name": "Alpha", "beacons": ["https://edge-a.example.net"]}))
            .await;
        let newcomer = common::SimAgent::new(&c, 11);
        assert_eq!(
            newcomer.enroll(common::ENROLL, "edge-new").await.status(),
            201
        );
        // Its heartbeats are recorded: the admin sees host, version and key.
        newcomer
            .report(json!({"name": "edge-new", "hostname": "edge-host", "version": "1.4.0",
                "docker_available": true, "docker_version": "28.2.2",
                "components": [{"id": "beacon-x", "kind": "beacon", "name": "x", "status": "running",
                    "labels": {"io.knotroute.network-id": alpha}}]}))
            .await;
        let shown = agent(&c, &newcomer.id()).await;
        assert_eq!(shown["status"], "pending", "{shown}");
        assert_eq!(shown["reason"], "awaiting_approval");
        assert_eq!(
            (shown["hostname"].as_str(), shown["version"].as_str()),
            (Some("edge-host"), Some("1.4.0"))
        );
        assert_eq!(
            shown["key_fingerprint"],
            json!(newcomer.key.public_key().fingerprint()),
            "the fingerprint the Agent logs"
        );
        let counts: Value = c
            .client
            .post(c.url("/ui/overview"))
            .header("content-type", "application/x-www-form-urlencoded")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(counts["agents_pending"], 1, "{counts}");
        // No job for it, nor from it.
        let job = json!({"agent_id": newcomer.id(), "kind": "deploy_beacon", "payload": {
            "name": "edge", "network_id": alpha, "beacon_url": "https://edge-a.example.net",
            "advertise": "203.0.113.7:7000"}});
        let r = c.post_json("/api/v1/jobs", job.clone()).await;
        assert_eq!(r.status(), 409);
        let refused: Value = r.json().await.unwrap();
        assert_eq!(refused["code"], "agent_pending", "{refused}");
        assert!(newcomer.claim().await.is_none());
        // It belongs to no network: Alpha's operator does not see it.
        let ops = join_limited(&c, "operator", "ops-a", std::slice::from_ref(&alpha)).await;
        let (status, _) =
            common::two_networks::get(&ops, &c, &format!("/api/v1/agents/{}", newcomer.id())).await;
        assert_eq!(status, 404);
        // Whoever gets alerts is told.
        c.state
            .alerts
            .deliver_due(chrono::Utc::now())
            .await
            .unwrap();
        let told = received.lock().unwrap().clone();
        assert!(
            told.iter()
                .any(|b| b.contains("agent.pending") && b.contains(&newcomer.id())),
            "{told:?}"
        );

        // Approving is the fleet's business: refused to a limited admin.
        let admin = join_limited(&c, "admin", "adm-a", std::slice::from_ref(&alpha)).await;
        let path = format!("/api/v1/agents/{}/approve", newcomer.id());
        let (status, answer) = send(&admin, &c, "POST", &path, json!({})).await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (403, Some("needs_all_networks")),
            "{answer}"
        );

        let r = c.post_empty(&path).await;
        assert_eq!(r.status(), 200);
        let approved: Value = r.json().await.unwrap();
        assert_ne!(approved["status"], "pending", "{approved}");
        // Approved twice: nothing to do.
        let r = c.post_empty(&path).await;
        assert_eq!(r.status(), 409);
        assert_eq!(
            r.json::<Value>().await.unwrap()["code"],
            "agent_not_pending"
        );
        // Now it takes jobs, and the audit log says who let it in.
        let queued = c.queued_job(job).await;
        assert_eq!(newcomer.next_job().await["id"], queued["id"]);
        let audit: Vec<Value> = c.get_json("/api/v1/audit?action=agent.approved").await;
        assert_eq!(audit.len(), 1, "{audit:?}");
        assert_eq!(audit[0]["subject"], json!(newcomer.id()));
    }
);

on_both_databases!(a_rejected_key_stays_refused, |backend| async move {
    let c = common::signed_in(backend).await;
    let intruder = common::SimAgent::new(&c, 12);
    assert_eq!(
        intruder.enroll(common::ENROLL, "who-knows").await.status(),
        201
    );
    let path = format!("/api/v1/agents/{}/reject", intruder.id());
    let r = c.post_empty(&path).await;
    assert_eq!(r.status(), 204);
    // Gone from the list, kept among the refused keys, marked rejected.
    let r = c.get(&format!("/api/v1/agents/{}", intruder.id())).await;
    assert_eq!(r.status(), 404);
    let refused: Vec<Value> = c.get_json("/api/v1/revoked-keys").await;
    assert_eq!(refused.len(), 1);
    assert_eq!(
        (
            refused[0]["agent_id"].as_str(),
            refused[0]["rejected"].as_bool()
        ),
        (Some(intruder.id().as_str()), Some(true))
    );
    // Its key is refused, whichever token it brings, and signs nothing.
    let r = intruder.enroll(common::ENROLL, "again").await;
    assert_eq!(r.status(), 403);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "agent_revoked");
    let r = intruder
        .post("/api/v1/agents/heartbeat", json!({"name": "again"}))
        .await;
    assert_eq!(r.status(), 401);
    // Rejecting what does not wait: refused, and nothing changes.
    let approved = common::SimAgent::with_docker(&c, 13).await;
    let r = c
        .post_empty(&format!("/api/v1/agents/{}/reject", approved.id()))
        .await;
    assert_eq!(r.status(), 409);
    assert_eq!(agent(&c, &approved.id()).await["status"], "online");
    // Made-up and malformed IDs name nothing.
    for id in [
        "ka_doesnotexistdoesnotexistdoesnotexist",
        "not-an-id",
        "ka_%2e%2e",
        "' OR 1=1 --",
    ] {
        for action in ["approve", "reject"] {
            let r = c
                .client
                .post(format!("{}/api/v1/agents/{}/{action}", c.base, id))
                .send()
                .await
                .unwrap();
            assert!(
                [400, 404].contains(&r.status().as_u16()),
                "{action} {id}: {}",
                r.status()
            );
        }
    }
});

on_both_databases!(
    an_install_token_is_the_approval_unless_made_to_need_one,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let token = |body: Value| {
            let c = &c;
            async move {
                let r = c.post_json("/api/v1/install-tokens", body).await;
                assert_eq!(r.status(), 201);
                let created: Value = r.json().await.unwrap();
                created["token"].as_str().unwrap().to_string()
            }
        };
        let approved = common::SimAgent::new(&c, 21);
        let plain = token(json!({"name": "edge-1"})).await;
        assert_eq!(approved.enroll(&plain, "x").await.status(), 201);
        assert_ne!(agent(&c, &approved.id()).await["status"], "pending");

        let waiting = common::SimAgent::new(&c, 22);
        let careful = token(json!({"name": "edge-2", "needs_approval": true})).await;
        assert_eq!(waiting.enroll(&careful, "x").await.status(), 201);
        assert_eq!(agent(&c, &waiting.id()).await["status"], "pending");
        let listed: Vec<Value> = c.get_json("/api/v1/install-tokens").await;
        assert!(
            listed.iter().any(|t| t["needs_approval"] == true),
            "{listed:?}"
        );

        // A host waiting after the shared token, approved by an install token.
        let later = common::SimAgent::new(&c, 23);
        assert_eq!(later.enroll(common::ENROLL, "x").await.status(), 201);
        assert_eq!(agent(&c, &later.id()).await["status"], "pending");
        let plain = token(json!({})).await;
        assert_eq!(later.enroll(&plain, "x").await.status(), 201);
        assert_ne!(agent(&c, &later.id()).await["status"], "pending");
    }
);

on_both_databases!(
    the_setting_turns_the_waiting_off_for_those_who_may_change_settings,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let settings: Value = c.get_json("/api/v1/settings/agents").await;
        assert_eq!(settings, json!({"required": true}), "on by default");
        let alpha = c.created_network(json!({"name": "Alpha"})).await;
        let admin = join_limited(&c, "admin", "adm-a", std::slice::from_ref(&alpha)).await;
        let (status, answer) = send(
            &admin,
            &c,
            "PUT",
            "/api/v1/settings/agents",
            json!({"required": false}),
        )
        .await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (403, Some("needs_all_networks"))
        );
        for body in [
            r#"{"required":"no"}"#,
            r#"{}"#,
            "required=false",
            r#"{"required":null}"#,
        ] {
            let r = c
                .client
                .put(c.url("/api/v1/settings/agents"))
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .unwrap();
            assert!(
                [400, 415, 422].contains(&r.status().as_u16()),
                "{body}: {}",
                r.status()
            );
        }
        let r = c
            .client
            .put(c.url("/api/v1/settings/agents"))
            .json(&json!({"required": false}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let a = common::SimAgent::new(&c, 31);
        assert_eq!(a.enroll(common::ENROLL, "x").await.status(), 201);
        assert_ne!(agent(&c, &a.id()).await["status"], "pending");
        let audit: Vec<Value> = c
            .get_json("/api/v1/audit?action=settings.agent_approval")
            .await;
        assert_eq!(audit.len(), 1);
    }
);
