//! Personal API tokens: created by a signed-in admin, shown once, stored
//! hashed, scoped, revocable, accepted as `Authorization: Bearer` on /api/v1.

mod common;

use sea_orm::EntityTrait;
use serde_json::{json, Value};

on_both_databases!(
    tokens_are_scoped_hashed_and_revocable,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let r = c
            .post_json("/api/v1/tokens", json!({"name": " ", "scope": "admin"}))
            .await;
        assert_eq!(r.status(), 400);
        let body: Value = r.json().await.unwrap();
        assert_eq!(
            body["field"], "name",
            "the first refused field is named: {body}"
        );

        let create = |name: &str, scope: &str| {
            c.post_json("/api/v1/tokens", json!({"name": name, "scope": scope}))
        };
        let r = create("reporting", "read").await;
        assert_eq!(r.status(), 201);
        let read: Value = r.json().await.unwrap();
        let read_token = read["token"].as_str().unwrap().to_string();
        assert!(read_token.starts_with("krt_") && read_token.len() > 40);
        let write: Value = create("automation", "write").await.json().await.unwrap();
        let write_token = write["token"].as_str().unwrap().to_string();
        let audit: Value = c.get_json("/api/v1/audit?action=token.created").await;
        assert_eq!(
            audit[0]["actor"], "owner (break-glass)",
            "the password's session acts as the owner: {audit}"
        );

        // Listed by name and prefix; the token itself is not kept anywhere.
        let list: Value = c.get_json("/api/v1/tokens").await;
        assert_eq!(list.as_array().unwrap().len(), 2);
        assert!(!list.to_string().contains(&read_token[12..]), "{list}");
        assert_eq!(list[1]["prefix"], &read_token[..12]);
        let rows = server::entities::api_token::Entity::find()
            .all(&c.state.db)
            .await
            .unwrap();
        for row in rows {
            assert_eq!(row.token_hash.len(), 64);
            assert!(
                !row.token_hash.contains(&read_token[4..])
                    && !row.token_hash.contains(&write_token[4..])
            );
        }

        // A script: no cookie, no Origin header.
        let script = reqwest::Client::new();
        let call = |method: reqwest::Method, path: &str, token: &str| {
            script
                .request(method, c.url(path))
                .bearer_auth(token)
                .json(&json!({"name": "From a script"}))
                .send()
        };
        let r = call(reqwest::Method::GET, "/api/v1/networks", &read_token)
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "a read token reads");
        let r = call(reqwest::Method::POST, "/api/v1/networks", &read_token)
            .await
            .unwrap();
        assert_eq!(r.status(), 403);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["code"], "read_only_token");
        let r = call(reqwest::Method::POST, "/api/v1/networks", &write_token)
            .await
            .unwrap();
        assert_eq!(
            r.status(),
            201,
            "a write token changes things, without an Origin header"
        );
        let created: Value = c.get_json("/api/v1/audit?action=network.created").await;
        assert_eq!(
            created[0]["actor"], "token:automation (owner)",
            "the audit log names the token and whose it is"
        );
        // Tokens cannot mint or revoke tokens.
        let r = call(reqwest::Method::GET, "/api/v1/tokens", &write_token)
            .await
            .unwrap();
        assert_eq!(r.status(), 403);
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "session_required");
        // Only the API: pages and the UI's server functions still need a session.
        let page = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap()
            .get(c.url("/networks"))
            .bearer_auth(&write_token)
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), 303, "pages redirect to sign-in");

        let list: Value = c.get_json("/api/v1/tokens").await;
        assert!(
            list[0]["last_used_at"].is_string(),
            "use is recorded: {list}"
        );

        // Revoked: refused at once; unknown tokens likewise.
        let id = read["id"].as_str().unwrap();
        let r = c
            .post_json(&format!("/api/v1/tokens/{id}/revoke"), json!({}))
            .await;
        assert_eq!(r.status(), 200);
        let r = call(reqwest::Method::GET, "/api/v1/networks", &read_token)
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "invalid_token");
        let r = call(reqwest::Method::GET, "/api/v1/networks", "krt_made-up")
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
        let audit: Value = c.get_json("/api/v1/audit?action=token.revoked").await;
        assert!(audit.to_string().contains(id), "{audit}");
    }
);
