//! Admin sign-in over the JSON API: password, cookie, throttling, sign-out, CSRF.

mod common;

use common::PASSWORD;
use serde_json::{json, Value};

on_both_databases!(
    health_and_readiness_answer_without_a_session,
    |backend| async move {
        let c = common::start(backend).await;
        let r = c.get("/healthz").await;
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["ok"], true);
        assert_eq!(body["version"], server::VERSION);
        let r = c.get("/readyz").await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.json::<Value>().await.unwrap()["database"], "ok");
    }
);

on_both_databases!(
    the_api_refuses_requests_without_a_session,
    |backend| async move {
        let c = common::start(backend).await;
        let r = c.get("/api/v1/networks").await;
        assert_eq!(r.status(), 401);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["code"], "unauthenticated");
        assert!(body["error"].is_string() && body["hint"].is_string());
        let status: Value = c.get_json("/api/v1/session").await;
        assert_eq!(status["authenticated"], false);
    }
);

on_both_databases!(
    signing_in_sets_a_strict_http_only_cookie_that_opens_the_api,
    |backend| async move {
        let c = common::start(backend).await;
        let wrong = c
            .post_json("/api/v1/session", json!({"password": "nope"}))
            .await;
        assert_eq!(wrong.status(), 401);
        assert_eq!(wrong.json::<Value>().await.unwrap()["field"], "password");

        let r = c
            .post_json("/api/v1/session", json!({"password": PASSWORD}))
            .await;
        assert_eq!(r.status(), 200);
        let cookie = r
            .headers()
            .get("set-cookie")
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        assert!(cookie.starts_with("kr_session="), "{cookie}");
        assert!(
            cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
            "{cookie}"
        );
        assert!(
            !cookie.contains("Secure"),
            "plain HTTP gets no Secure flag: {cookie}"
        );
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["authenticated"], true);

        assert_eq!(c.get("/api/v1/networks").await.status(), 200);

        // X-Forwarded-Proto from a peer that is not a trusted proxy proves nothing.
        let other = common::browser_like_client(&c.base);
        let r = other
            .post(c.url("/api/v1/session"))
            .header("x-forwarded-proto", "https")
            .json(&json!({"password": PASSWORD}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        assert!(set_cookies(&r).iter().all(|c| !c.contains("Secure")));
        assert!(r.headers().get("strict-transport-security").is_none());
    }
);

/// Every `Set-Cookie` of a response.
fn set_cookies(r: &reqwest::Response) -> Vec<String> {
    r.headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect()
}

on_both_databases!(
    the_session_token_is_stored_only_as_a_hash_and_sign_out_ends_it,
    |backend| async move {
        use sea_orm::EntityTrait;
        let c = common::start(backend).await;
        let r = c
            .post_json("/api/v1/session", json!({"password": PASSWORD}))
            .await;
        let cookie = r
            .headers()
            .get("set-cookie")
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let token = cookie
            .split(';')
            .next()
            .unwrap()
            .trim_start_matches("kr_session=")
            .to_string();
        let rows = server::entities::admin_session::Entity::find()
            .all(&c.state.db)
            .await
            .unwrap();
        assert_eq!(rows.len(), 1);
        assert_ne!(rows[0].token_hash, token);
        assert_eq!(
            rows[0].token_hash,
            server::domain::access::secrets::token_hash(&token)
        );

        let r = c.delete("/api/v1/session").await;
        assert_eq!(r.status(), 200);
        assert!(server::entities::admin_session::Entity::find()
            .all(&c.state.db)
            .await
            .unwrap()
            .is_empty());
        // The old token no longer opens anything, even if a client kept it.
        let replay = reqwest::Client::new()
            .get(c.url("/api/v1/networks"))
            .header("cookie", format!("kr_session={token}"))
            .send()
            .await
            .unwrap();
        assert_eq!(replay.status(), 401);
    }
);

on_both_databases!(
    the_frames_sign_out_form_ends_the_session_and_goes_to_sign_in,
    |backend| async move {
        let c = common::signed_in(backend).await;
        // What the frame's plain form sends (pages::layout): a same-origin
        // POST of no fields, from a page that takes HTML back.
        let send_form = || {
            c.client
                .post(c.url("/ui/sign_out"))
                .header("accept", "text/html,application/xhtml+xml")
                .form(&[] as &[(&str, &str)])
                .send()
        };
        let r = send_form().await.unwrap();
        assert_eq!(r.status(), 302);
        assert_eq!(r.headers()["location"], "/login");
        let cleared = r.headers()["set-cookie"].to_str().unwrap();
        assert!(cleared.starts_with("kr_session=;"), "{cleared}");
        let status: Value = c.get_json("/api/v1/session").await;
        assert_eq!(status["authenticated"], false);
        // Pressed again from a page left open, it still goes to sign-in,
        // not back to that page with an error in its address.
        let r = send_form().await.unwrap();
        assert!(r.status().is_redirection(), "{}", r.status());
        assert_eq!(r.headers()["location"], "/login");
        // A server function's own client still gets the refusal it decodes.
        let r = c.client.post(c.url("/ui/sign_out")).send().await.unwrap();
        assert_eq!(r.status(), 401);
    }
);

on_both_databases!(
    eight_failures_from_one_client_lock_it_out_for_ten_minutes,
    |backend| async move {
        let c = common::behind_proxy(backend).await;
        let attempt = |client_ip: &'static str, name: &'static str, password: &'static str| {
            let c = &c;
            async move {
                c.client
                    .post(c.url("/api/v1/session"))
                    .header("x-forwarded-for", client_ip)
                    .json(&json!({ "name": name, "password": password }))
                    .send()
                    .await
                    .unwrap()
            }
        };
        // Guesses at a name nobody has: they spend the client's budget (and
        // that name's), not the owner account's.
        for _ in 0..8 {
            assert_eq!(
                attempt("198.51.100.7", "nobody", "guess").await.status(),
                401
            );
        }
        // Even the right password is refused while locked out.
        let locked = attempt("198.51.100.7", "", PASSWORD).await;
        assert_eq!(locked.status(), 429);
        assert!(locked.headers().get("retry-after").is_some());
        let body: Value = locked.json().await.unwrap();
        assert_eq!(body["code"], "throttled");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .contains("Try again in 10 minutes"),
            "{body}"
        );
        // Another client is not affected.
        assert_eq!(attempt("198.51.100.8", "", PASSWORD).await.status(), 200);
    }
);

on_both_databases!(
    state_changes_from_another_origin_are_refused,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let body = json!({"name": "Lab"});
        let foreign = c
            .client
            .post(c.url("/api/v1/networks"))
            .header("origin", "https://evil.example")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(foreign.status(), 403);
        assert_eq!(
            foreign.json::<Value>().await.unwrap()["code"],
            "cross_origin"
        );
        // A request with neither Origin nor Referer is refused too (a cookie alone proves nothing).
        let jar_only = reqwest::Client::builder()
            .cookie_store(true)
            .build()
            .unwrap();
        jar_only
            .post(c.url("/api/v1/session"))
            .header("origin", &c.base)
            .json(&json!({"password": PASSWORD}))
            .send()
            .await
            .unwrap();
        assert_eq!(
            jar_only
                .post(c.url("/api/v1/networks"))
                .json(&body)
                .send()
                .await
                .unwrap()
                .status(),
            403
        );
        // Sign-in itself is checked as well (login CSRF).
        let r = reqwest::Client::new()
            .post(c.url("/api/v1/session"))
            .header("origin", "https://evil.example")
            .json(&json!({"password": PASSWORD}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403);
        // The same request from our own origin goes through.
        assert_eq!(c.create_network(body).await.status(), 201);
    }
);

on_both_databases!(
    bodies_over_two_mebibytes_get_413_and_bad_json_a_field_less_400,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let huge = json!({"name": "x".repeat(2 * 1024 * 1024 + 10)});
        let r = c.create_network(huge).await;
        assert_eq!(r.status(), 413);
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "body_too_large");
        let r = c
            .client
            .post(c.url("/api/v1/networks"))
            .header("content-type", "application/json")
            .body("{not json")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "malformed_json");
        let r = c
            .client
            .post(c.url("/api/v1/networks"))
            .header("content-type", "text/plain")
            .body("{}")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 415);
    }
);

on_both_databases!(
    parallel_guesses_cannot_slip_past_the_limit,
    |backend| async move {
        let c = common::behind_proxy(backend).await;
        let guesses = (0..24).map(|_| {
            c.client
                .post(c.url("/api/v1/session"))
                .header("x-forwarded-for", "203.0.113.50")
                .json(&json!({"password": "guess"}))
                .send()
        });
        let statuses: Vec<u16> = futures_util::future::join_all(guesses)
            .await
            .into_iter()
            .map(|r| r.unwrap().status().as_u16())
            .collect();
        let checked = statuses.iter().filter(|s| **s == 401).count();
        assert!(
            checked <= 8,
            "at most 8 passwords are checked, got {checked}: {statuses:?}"
        );
        assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 24 - checked);
    }
);
