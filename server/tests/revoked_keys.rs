//! A revoked host stays out: its key is refused at enrollment after its Agent
//! record is deleted, with the shared token and with the install token it
//! used, until the admin allows the key again. And an install token's repeat
//! grace is for the key that used it, while the token lives and is not revoked.

mod common;

use chrono::{Duration, Utc};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use server::entities::install_token;

async fn refusal(r: reqwest::Response) -> (u16, Value) {
    (r.status().as_u16(), r.json().await.unwrap())
}

async fn create_token(c: &common::Control, body: Value) -> Value {
    let r = c.post_json("/api/v1/install-tokens", body).await;
    assert_eq!(r.status(), 201);
    r.json().await.unwrap()
}

/// The Infrastructure screen as the server renders it, in English.
async fn infrastructure_page(c: &common::Control) -> String {
    c.page_in("/infrastructure", "en").await
}

async fn delete_agent(c: &common::Control, id: &str) {
    let r = c.delete(&format!("/api/v1/agents/{id}")).await;
    assert_eq!(r.status(), 204);
}

on_both_databases!(
    a_revoked_and_deleted_host_stays_out_until_its_key_is_allowed_again,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let created = create_token(&c, json!({"name": "edge-9", "tags": ["edge"]})).await;
        let token = created["token"].as_str().unwrap();
        let a = common::SimAgent::new(&c, 71);
        assert_eq!(a.enroll(token, "own-name").await.status(), 201);
        let r = c
            .post_json(&format!("/api/v1/agents/{}/revoke", a.id()), json!({}))
            .await;
        assert_eq!(r.status(), 200);
        delete_agent(&c, &a.id()).await;

        // Neither the shared token nor its own used install token brings it back.
        for (how, with) in [
            ("shared token", common::ENROLL),
            ("used install token", token),
        ] {
            let (status, body) = refusal(a.enroll(with, "again").await).await;
            assert_eq!(status, 403, "{how}: {body}");
            assert_eq!(body["code"], "agent_revoked", "{how}");
            assert_eq!(body["field"], "public_key", "{how}");
            assert!(body["hint"].as_str().unwrap().contains("allows it again"));
        }
        let r = c.get(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(r.status(), 404, "no trusted host came back");
        let log: Value = c.get_json("/api/v1/enrollments").await;
        assert_eq!(log[0]["reason"], "agent_revoked");
        assert_eq!(log[0]["agent_id"], a.id());
        assert_eq!(log[0]["attempts"], 2, "both refusals, one line");
        assert!(log[0]["reason_text"]
            .as_str()
            .unwrap()
            .contains("Revoked keys"));

        // The admin sees the key, and allows it again.
        let keys: Value = c.get_json("/api/v1/revoked-keys").await;
        assert_eq!(keys.as_array().unwrap().len(), 1);
        assert_eq!(keys[0]["agent_id"], a.id());
        assert_eq!(keys[0]["name"], "edge-9");
        assert_eq!(keys[0]["public_key"], a.key.public_key().to_wire());
        assert_eq!(keys[0]["record_exists"], false);
        let html = infrastructure_page(&c).await;
        assert!(html.contains("Revoked keys"));
        assert!(
            html.contains(&format!(
                r#"href="/infrastructure?allow_key={}#confirm-allow""#,
                a.id()
            )),
            "an Allow again link for the key, to its confirmation"
        );
        let r = c
            .post_json(&format!("/api/v1/revoked-keys/{}/allow", a.id()), json!({}))
            .await;
        assert_eq!(r.status(), 204);
        let keys: Value = c.get_json("/api/v1/revoked-keys").await;
        assert_eq!(keys, json!([]));
        let audit: Value = c.get_json("/api/v1/audit?action=agent.key_allowed").await;
        assert_eq!(audit[0]["subject"], a.id());

        // Allowed: both ways in work again, as a new record.
        assert_eq!(a.enroll(token, "again").await.status(), 201);
        let back: Value = c.get_json(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(back["name"], "edge-9", "the token names it, as before");
        assert_eq!(back["components"], json!([]));
        assert_eq!(a.enroll(common::ENROLL, "again").await.status(), 201);
    }
);

on_both_databases!(
    a_key_is_allowed_again_only_once_its_revoked_record_is_deleted,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let a = common::SimAgent::new(&c, 72);
        assert_eq!(a.enroll(common::ENROLL, "kept").await.status(), 201);
        let r = c
            .post_json(&format!("/api/v1/agents/{}/revoke", a.id()), json!({}))
            .await;
        assert_eq!(r.status(), 200);
        let keys: Value = c.get_json("/api/v1/revoked-keys").await;
        assert_eq!(keys[0]["record_exists"], true);
        let html = infrastructure_page(&c).await;
        assert!(
            html.contains("Delete the Agent first"),
            "no Allow button yet"
        );
        assert!(!html.contains("allow-key"));
        let allow = format!("/api/v1/revoked-keys/{}/allow", a.id());
        let (status, body) = refusal(c.post_json(&allow, json!({})).await).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (409, Some("revoked_agent_exists"))
        );
        assert!(body["hint"].is_string());
        let (status, body) = refusal(
            c.post_json("/api/v1/revoked-keys/ka_nope/allow", json!({}))
                .await,
        )
        .await;
        assert_eq!((status, body["code"].as_str()), (404, Some("not_found")));
        // Still refused, under either reason's rule.
        let (status, body) = refusal(a.enroll(common::ENROLL, "kept").await).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (403, Some("agent_revoked"))
        );
        delete_agent(&c, &a.id()).await;
        assert_eq!(c.post_json(&allow, json!({})).await.status(), 204);
        assert_eq!(a.enroll(common::ENROLL, "kept").await.status(), 201);
        // Allowing is for admins only.
        let stranger = reqwest::Client::new();
        let r = stranger
            .get(c.url("/api/v1/revoked-keys"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
    }
);

on_both_databases!(
    an_install_tokens_repeat_grace_is_for_its_key_while_it_lives_and_is_not_revoked,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let created = create_token(&c, json!({"name": "grace"})).await;
        let token = created["token"].as_str().unwrap();
        let first = common::SimAgent::new(&c, 73);
        assert_eq!(first.enroll(token, "x").await.status(), 201);
        assert_eq!(first.enroll(token, "x").await.status(), 201, "a retry");
        // Another key with the used token: refused.
        let other = common::SimAgent::new(&c, 74);
        let (status, body) = refusal(other.enroll(token, "x").await).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (401, Some("install_token_used"))
        );
        // The same key once the token has expired: refused.
        install_token::Entity::update_many()
            .col_expr(
                install_token::Column::ExpiresAt,
                (Utc::now() - Duration::minutes(1)).into(),
            )
            .filter(install_token::Column::Id.eq(created["id"].as_str().unwrap()))
            .exec(&c.state.db)
            .await
            .unwrap();
        let (status, body) = refusal(first.enroll(token, "x").await).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (401, Some("install_token_expired"))
        );

        // The same key after the admin revoked its used token: refused.
        let created = create_token(&c, json!({})).await;
        let token = created["token"].as_str().unwrap();
        let third = common::SimAgent::new(&c, 75);
        assert_eq!(third.enroll(token, "x").await.status(), 201);
        let r = c
            .post_json(
                &format!(
                    "/api/v1/install-tokens/{}/revoke",
                    created["id"].as_str().unwrap()
                ),
                json!({}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let view: Value = r.json().await.unwrap();
        assert_eq!(view["state"], "revoked");
        assert_eq!(view["used_by"], third.id(), "who used it stays on record");
        let (status, body) = refusal(third.enroll(token, "x").await).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (401, Some("install_token_revoked"))
        );
        // The enrolled Agent itself is untouched by that.
        let r = third
            .post("/api/v1/agents/heartbeat", json!({"name": "x"}))
            .await;
        assert_eq!(r.status(), 200);
    }
);
