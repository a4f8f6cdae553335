//! People with accounts of their own: the owner invites
//! with a one-time link, the person chooses a name and password on the
//! welcome page, signs in by name and acts in their role; role changes and
//! disabling take effect at the next request; the last owner cannot be
//! removed. On SQLite and PostgreSQL, over real HTTP.

mod common;

use common::{browser_like_client, Control};
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use serde_json::{json, Value};

use common::people::{invite, join, welcome, PERSON_PASSWORD as ANNA_PASSWORD};

async fn sign_in(c: &Control, name: &str, password: &str) -> reqwest::Response {
    browser_like_client(&c.base)
        .post(c.url("/api/v1/session"))
        .json(&json!({ "name": name, "password": password }))
        .send()
        .await
        .unwrap()
}

async fn status_of(browser: &reqwest::Client, c: &Control, method: &str, path: &str) -> u16 {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    browser
        .request(method, c.url(path))
        .json(&json!({ "name": "Branch office" }))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

on_both_databases!(
    people_join_by_link_sign_in_by_name_and_act_in_their_role,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let r = c
            .post_json("/api/v1/users/invites", json!({ "role": "root" }))
            .await;
        assert_eq!(r.status(), 400);
        let body: Value = r.json().await.unwrap();
        assert_eq!(
            (body["field"].as_str(), body["code"].as_str()),
            (Some("role"), Some("unknown_role"))
        );

        let path = invite(&c, "operator").await;
        let anna = browser_like_client(&c.base);
        let page = anna.get(c.url(&path)).send().await.unwrap();
        assert_eq!(page.status(), 200);
        assert_eq!(page.headers()["cache-control"], "no-store");
        let html = page.text().await.unwrap();
        assert!(html.contains("id=\"welcome-role\">operator<"), "{html}");

        // Refused fields are named on the page; the link stays usable.
        let r = welcome(&anna, &c, &path, "<b>Anna</b>", "short", "short").await;
        assert_eq!(r.status(), 400);
        let html = r.text().await.unwrap();
        assert!(
            html.contains("id=\"name-error\"") && html.contains("id=\"password-error\""),
            "{html}"
        );
        assert!(html.contains("at least 12 characters"), "{html}");
        assert!(
            !html.contains("<b>Anna</b>"),
            "what was typed is escaped: {html}"
        );
        let r = welcome(&anna, &c, &path, "Anna", ANNA_PASSWORD, "something else").await;
        assert!(r
            .text()
            .await
            .unwrap()
            .contains("id=\"password_again-error\""));

        let r = welcome(&anna, &c, &path, "Anna", ANNA_PASSWORD, ANNA_PASSWORD).await;
        assert_eq!(r.status(), 303);
        assert_eq!(r.headers()["location"], "/");
        let session: Value = anna
            .get(c.url("/api/v1/session"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            session["authenticated"], true,
            "signed in as the new person"
        );
        // Once only.
        let again = browser_like_client(&c.base);
        let r = welcome(&again, &c, &path, "mallory", ANNA_PASSWORD, ANNA_PASSWORD).await;
        assert_eq!(r.status(), 410);
        assert_eq!(again.get(c.url(&path)).send().await.unwrap().status(), 410);

        // An operator reads, runs things, and does not change networks or people.
        assert_eq!(status_of(&anna, &c, "GET", "/api/v1/networks").await, 200);
        let r = anna
            .post(c.url("/api/v1/networks"))
            .json(&json!({"name": "Branch"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["code"], "forbidden", "{body}");
        assert_eq!(status_of(&anna, &c, "GET", "/api/v1/users").await, 403);
        let settings = anna.get(c.url("/settings")).send().await.unwrap();
        assert_eq!(settings.status(), 200, "Settings is hers to read");
        let html = settings.text().await.unwrap();
        assert!(
            html.contains("href=\"/settings/tokens\"")
                && !html.contains("href=\"/settings/people\""),
            "her tabs: API tokens, not People: {html}"
        );
        let tokens = anna.get(c.url("/settings/tokens")).send().await.unwrap();
        assert_eq!(tokens.status(), 200, "her API tokens are hers to manage");
        assert!(tokens.text().await.unwrap().contains("id=\"api-tokens\""));
        // As a browser asks for a page (taking HTML, as a plain form's post
        // does too): the page still answers with the refusal's status.
        let people = anna
            .get(c.url("/settings/people"))
            .header("accept", "text/html,application/xhtml+xml")
            .send()
            .await
            .unwrap();
        assert_eq!(people.status(), 403, "the People tab is the owner's");
        let html = people.text().await.unwrap();
        assert!(
            !html.contains("user-invite-form") && !html.contains("id=\"open-invite\""),
            "{html}"
        );
        let joined: Value = c.get_json("/api/v1/audit?action=user.joined").await;
        assert_eq!(joined[0]["actor"], "user:anna", "{joined}");

        // Her token: hers only, and never more than she can do.
        let r = anna
            .post(c.url("/api/v1/tokens"))
            .json(&json!({"name": "ci", "scope": "write"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        let token = r.json::<Value>().await.unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string();
        let owner_tokens: Value = c.get_json("/api/v1/tokens").await;
        assert_eq!(
            owner_tokens.as_array().unwrap().len(),
            0,
            "the owner's list holds the owner's tokens"
        );
        let script = reqwest::Client::new();
        let by_token = |method: reqwest::Method| {
            script
                .request(method, c.url("/api/v1/networks"))
                .bearer_auth(&token)
                .json(&json!({"name": "From anna's script"}))
                .send()
        };
        assert_eq!(by_token(reqwest::Method::GET).await.unwrap().status(), 200);
        assert_eq!(
            by_token(reqwest::Method::POST).await.unwrap().status(),
            403,
            "capped at operator"
        );

        // Signing in by name: an unknown name and a wrong password read the same.
        assert_eq!(sign_in(&c, " ANNA ", ANNA_PASSWORD).await.status(), 200);
        let wrong = sign_in(&c, "anna", "not her password").await;
        assert_eq!(wrong.status(), 401);
        let wrong: Value = wrong.json().await.unwrap();
        let unknown: Value = sign_in(&c, "nobody", ANNA_PASSWORD)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(wrong, unknown);
        assert_eq!(wrong["code"], "wrong_password");

        let users: Value = c.get_json("/api/v1/users").await;
        assert_eq!(users.as_array().unwrap().len(), 1, "{users}");
        assert_eq!(users[0]["name"], "anna");
        assert_eq!(users[0]["role"], "operator");
        assert_eq!(
            users[0]["open_sessions"], 2,
            "the welcome's and the API sign-in's"
        );
        assert!(users[0]["last_sign_in_at"].is_string());
        let id = users[0]["id"].as_str().unwrap().to_string();

        // A new role counts at her next request, in the session she has.
        let r = c
            .client
            .patch(c.url(&format!("/api/v1/users/{id}")))
            .json(&json!({"role": "admin"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(status_of(&anna, &c, "POST", "/api/v1/networks").await, 201);
        let created: Value = c.get_json("/api/v1/audit?action=network.created").await;
        assert_eq!(created[0]["actor"], "user:anna");
        assert_eq!(
            by_token(reqwest::Method::POST).await.unwrap().status(),
            201,
            "her token follows her role"
        );
        let created: Value = c.get_json("/api/v1/audit?action=network.created").await;
        assert_eq!(created[0]["actor"], "token:ci (user:anna)");

        // The log filed by person: hers and her tokens', the owner's, and
        // wildcards in the filter taken literally.
        let actors = |person: &'static str| {
            let c = &c;
            async move {
                let url = format!(
                    "/api/v1/audit?person={}",
                    person.replace('%', "%25").replace(':', "%3A")
                );
                let entries: Value = c.get_json(&url).await;
                let mut actors: Vec<String> = entries
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e["actor"].as_str().unwrap().to_string())
                    .collect();
                actors.sort();
                actors.dedup();
                actors
            }
        };
        assert_eq!(
            actors("user:anna").await,
            ["token:ci (user:anna)", "user:anna"]
        );
        assert_eq!(actors("owner").await, ["owner (break-glass)"]);
        assert!(actors("user:%").await.is_empty());
        assert!(actors("%").await.is_empty());

        // Disabled: her session, her token and her password stop at once.
        let r = c
            .client
            .patch(c.url(&format!("/api/v1/users/{id}")))
            .json(&json!({"disabled": true}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.json::<Value>().await.unwrap()["open_sessions"], 0);
        assert_eq!(status_of(&anna, &c, "GET", "/api/v1/networks").await, 401);
        assert_eq!(by_token(reqwest::Method::GET).await.unwrap().status(), 401);
        assert_eq!(sign_in(&c, "anna", ANNA_PASSWORD).await.status(), 401);
        let r = c
            .client
            .patch(c.url(&format!("/api/v1/users/{id}")))
            .json(&json!({"disabled": false}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(sign_in(&c, "anna", ANNA_PASSWORD).await.status(), 200);
        assert_eq!(
            by_token(reqwest::Method::GET).await.unwrap().status(),
            401,
            "revoked tokens stay revoked"
        );

        // An invitation past its expiry is refused like a used one.
        let path = invite(&c, "viewer").await;
        let db = &c.state.db;
        let sql = match db.get_database_backend() {
            DbBackend::Postgres => {
                "UPDATE user_invites SET expires_at = NOW() - INTERVAL '1 minute'"
            }
            _ => "UPDATE user_invites SET expires_at = '2020-01-01T00:00:00+00:00'",
        };
        db.execute(Statement::from_string(db.get_database_backend(), sql))
            .await
            .unwrap();
        let late = browser_like_client(&c.base);
        assert_eq!(late.get(c.url(&path)).send().await.unwrap().status(), 410);
        let r = welcome(&late, &c, &path, "late", ANNA_PASSWORD, ANNA_PASSWORD).await;
        assert_eq!(r.status(), 410);
    }
);

on_both_databases!(the_last_owner_cannot_be_removed, |backend| async move {
    let c = common::signed_in(backend).await;
    let bob = join(&c, "owner", "bob").await;
    let users: Value = c.get_json("/api/v1/users").await;
    let bob_id = users[0]["id"].as_str().unwrap().to_string();
    let change = |id: &str, body: Value| {
        c.client
            .patch(c.url(&format!("/api/v1/users/{id}")))
            .json(&body)
            .send()
    };
    for body in [json!({"role": "admin"}), json!({"disabled": true})] {
        let r = change(&bob_id, body).await.unwrap();
        assert_eq!(r.status(), 409);
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "last_owner");
    }
    let r = c.delete(&format!("/api/v1/users/{bob_id}")).await;
    assert_eq!(r.status(), 409);

    // With a second owner, bob can step down; then carol is the last one.
    let _carol = join(&c, "owner", "carol").await;
    assert_eq!(
        change(&bob_id, json!({"role": "admin"}))
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(
        status_of(&bob, &c, "GET", "/api/v1/users").await,
        403,
        "an admin manages no people"
    );
    let users: Value = c.get_json("/api/v1/users").await;
    let carol_id = users
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == "carol")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        c.delete(&format!("/api/v1/users/{carol_id}"))
            .await
            .status(),
        409
    );

    // Deleting a person ends their session; an unknown ID names nothing.
    assert_eq!(
        c.delete(&format!("/api/v1/users/{bob_id}")).await.status(),
        204
    );
    assert_eq!(status_of(&bob, &c, "GET", "/api/v1/networks").await, 401);
    assert_eq!(
        c.delete(&format!("/api/v1/users/{bob_id}")).await.status(),
        404
    );
    let deleted: Value = c.get_json("/api/v1/audit?action=user.deleted").await;
    assert_eq!(deleted[0]["actor"], "owner (break-glass)");
});

/// The welcome path, sent raw: no spelling of a token opens anything, reaches
/// the app, or fails with a 500; and its form cannot be posted cross-site.
#[tokio::test]
async fn hostile_welcome_requests_are_refused_plainly() {
    let c = common::signed_in(common::Backend::Sqlite).await;
    let path = invite(&c, "admin").await;
    let token = path.trim_start_matches("/welcome/").to_string();
    let long = "a".repeat(4000);
    let table: Vec<(String, &[u16])> = vec![
        ("/welcome/unknown-token-but-plausible-length".into(), &[410]),
        ("/welcome/%3Cscript%3E".into(), &[410, 400]),
        (format!("/welcome/{long}"), &[410, 414, 431]),
        (
            "/welcome/..%2f..%2fapi%2fv1%2fusers".into(),
            &[400, 404, 410],
        ),
        (
            format!("/welcome/{token}/../../api/v1/users"),
            &[400, 404, 303],
        ),
        (format!("/welcome/{token}%00"), &[400, 410]),
        (format!("/welcome/{token}/extra"), &[404, 303]),
    ];
    for (target, expected) in table {
        let request =
            format!("GET {target} HTTP/1.1\r\nHost: control.test\r\nConnection: close\r\n\r\n");
        let answer = common::raw_http(c.addr, request.as_bytes()).await;
        assert!(
            expected.contains(&answer.status),
            "{target}: {} {}",
            answer.status,
            answer.head
        );
        assert!(
            !answer.body.contains("users-table") && !answer.body.contains("\"role\""),
            "{target}"
        );
    }
    // A cross-site form post is refused before the link is looked at.
    let body = format!("name=eve&password={0}&password_again={0}", "x".repeat(20));
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: control.test\r\nOrigin: https://evil.example\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let answer = common::raw_http(c.addr, request.as_bytes()).await;
    assert_eq!(answer.status, 403, "{}", answer.head);
    let page = browser_like_client(&c.base)
        .get(c.url(&path))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200, "the refused post used nothing up");
}
