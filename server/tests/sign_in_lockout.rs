//! Sign-in throttling must never lock the admin out for good: guesses from
//! the admin's own address (every visitor behind a proxy that is not trusted
//! shares one) cannot block a browser the admin signed in with before, and
//! refused attempts do not stretch a lock-out, while guessing stays at 8
//! checked passwords per 10 minutes.

mod common;

use common::PASSWORD;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::json;
use server::entities::{login_failure, signin_device};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

async fn attempt(client: &reqwest::Client, c: &common::Control, password: &str) -> u16 {
    client
        .post(c.url("/api/v1/session"))
        .json(&json!({ "password": password }))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

on_both_databases!(
    guessing_from_the_admins_address_cannot_lock_out_a_browser_that_signed_in_before,
    |backend| async move {
        // No proxy is trusted: every client is 127.0.0.1, as behind a proxy
        // that is not trusted.
        let c = Arc::new(common::start(backend).await);
        // The admin signed in with this browser before, and signed out.
        c.sign_in().await;
        let out = c.delete("/api/v1/session").await;
        assert_eq!(out.status(), 200);

        // Someone at the same address keeps guessing, four at a time.
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Vec::<u16>::new()));
        let guessers: Vec<_> = (0..4)
            .map(|n| {
                let (c, stop, seen) = (c.clone(), stop.clone(), seen.clone());
                tokio::spawn(async move {
                    let attacker = common::browser_like_client(&c.base);
                    while !stop.load(Ordering::Relaxed) {
                        let status = attempt(&attacker, &c, &format!("guess-{n}")).await;
                        seen.lock().unwrap().push(status);
                    }
                })
            })
            .collect();
        let deadline = Instant::now() + Duration::from_secs(20);
        // Until its 8 guesses were checked and it is being refused.
        let locked = |s: &[u16]| s.iter().filter(|s| **s == 401).count() == 8 && s.contains(&429);
        while !locked(&seen.lock().unwrap()) {
            assert!(Instant::now() < deadline, "the guesser was never throttled");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }

        // The admin's browser is let in at once, the guessing going on.
        let started = Instant::now();
        assert_eq!(attempt(&c.client, &c, PASSWORD).await, 200);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
        // A browser Control has never seen is not told apart from the guesser.
        let fresh = common::browser_like_client(&c.base);
        assert_eq!(attempt(&fresh, &c, PASSWORD).await, 429);

        // Let the guessing go on a little more while signed in, then stop it.
        tokio::time::sleep(Duration::from_millis(300)).await;
        stop.store(true, Ordering::Relaxed);
        for g in guessers {
            g.await.unwrap();
        }
        let statuses = seen.lock().unwrap().clone();
        let checked = statuses.iter().filter(|s| **s == 401).count();
        assert_eq!(checked, 8, "only 8 guesses were checked");
        assert!(statuses.iter().all(|s| *s == 401 || *s == 429));
        assert!(
            statuses.len() > 20,
            "the guesser kept at it: {}",
            statuses.len()
        );
        // Refused attempts leave no rows behind (they would fill the table).
        let rows = login_failure::Entity::find()
            .filter(login_failure::Column::Client.eq("127.0.0.1"))
            .all(&c.state.db)
            .await
            .unwrap();
        assert_eq!(rows.len(), 8);

        // The known browser's own budget is bounded too: a stolen mark buys
        // 8 guesses, not unlimited ones.
        for _ in 0..8 {
            assert_eq!(attempt(&c.client, &c, "wrong").await, 401);
        }
        assert_eq!(attempt(&c.client, &c, PASSWORD).await, 429);
    }
);

on_both_databases!(
    refused_attempts_do_not_prolong_a_lock_out,
    |backend| async move {
        let c = common::start(backend).await;
        let guesser = common::browser_like_client(&c.base);
        for _ in 0..8 {
            assert_eq!(attempt(&guesser, &c, "guess").await, 401);
        }
        let checked = login_failure::Entity::find()
            .all(&c.state.db)
            .await
            .unwrap();
        let last_checked = checked.iter().map(|r| r.id).max().unwrap();
        for _ in 0..30 {
            assert_eq!(attempt(&guesser, &c, "guess").await, 429);
        }
        // The 8 checked failures leave the 10-minute window (moved back in time).
        login_failure::Entity::update_many()
            .col_expr(
                login_failure::Column::FailedAt,
                sea_orm::sea_query::Expr::value(chrono::Utc::now() - chrono::Duration::minutes(11)),
            )
            .filter(login_failure::Column::Id.lte(last_checked))
            .exec(&c.state.db)
            .await
            .unwrap();
        let admin = common::browser_like_client(&c.base);
        assert_eq!(
            attempt(&admin, &c, PASSWORD).await,
            200,
            "the 30 refused attempts did not extend the lock-out"
        );
    }
);

on_both_databases!(
    scripts_that_sign_in_without_keeping_cookies_do_not_push_out_the_admins_browser,
    |backend| async move {
        let c = common::start(backend).await;
        // The admin's browser gets its mark.
        c.sign_in().await;
        // A script signs in many times without a cookie jar: each sign-in is
        // handed a mark it throws away.
        for _ in 0..30 {
            let script = reqwest::Client::new();
            let r = script
                .post(c.url("/api/v1/session"))
                .header("origin", &c.base)
                .json(&json!({ "password": PASSWORD }))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
        }
        // Guessing from the shared address uses up its budget...
        let guesser = common::browser_like_client(&c.base);
        for _ in 0..8 {
            assert_eq!(attempt(&guesser, &c, "wrong-guess").await, 401);
        }
        assert_eq!(attempt(&guesser, &c, PASSWORD).await, 429);
        // ...but the admin's browser is still known and gets in.
        assert_eq!(attempt(&c.client, &c, PASSWORD).await, 200);
    }
);

/// The one line of `knotroute-control trust-browser` that holds the link (a
/// path, as this test Control has no public URL).
fn trust_browser_link(c: &common::Control) -> String {
    let out = common::Store::of(c).run(&["trust-browser"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let path = stdout
        .split_whitespace()
        .find(|w| w.starts_with("/trust-browser/"))
        .unwrap_or_else(|| panic!("no link in {stdout}"));
    c.url(path)
}

on_both_databases!(
    a_link_from_the_server_lets_a_new_browser_in_while_its_address_is_locked,
    |backend| async move {
        let c = common::start(backend).await;
        // Someone at the admin's address (no proxy is trusted) used up its budget.
        let guesser = common::browser_like_client(&c.base);
        for _ in 0..8 {
            assert_eq!(attempt(&guesser, &c, "guess").await, 401);
        }
        // A browser Control has never seen is held up with the guesser, and
        // told how to get past the wait.
        let admin = common::browser_like_client(&c.base);
        let held = admin
            .post(c.url("/api/v1/session"))
            .json(&json!({ "password": PASSWORD }))
            .send()
            .await
            .unwrap();
        assert_eq!(held.status(), 429);
        let body: serde_json::Value = held.json().await.unwrap();
        assert!(
            body["hint"].as_str().unwrap().contains("trust-browser"),
            "{body}"
        );

        let link = trust_browser_link(&c);
        // Opening the link (as a chat app's preview would) changes nothing.
        let shown = admin.get(&link).send().await.unwrap();
        assert_eq!(shown.status(), 200);
        let page = shown.text().await.unwrap();
        assert!(page.contains("<form method=\"post\">"), "{page}");
        assert_eq!(attempt(&admin, &c, PASSWORD).await, 429);
        // The link's own token is no known-browser mark.
        let token = link.rsplit('/').next().unwrap();
        let forged = reqwest::Client::new()
            .post(c.url("/api/v1/session"))
            .header("origin", &c.base)
            .header("cookie", format!("kr_device={token}"))
            .json(&json!({ "password": PASSWORD }))
            .send()
            .await
            .unwrap();
        assert_eq!(forged.status(), 429);

        // Pressing the button makes this browser known: it signs in at once,
        // while the guesser stays locked out.
        let trusted = admin.post(&link).send().await.unwrap();
        assert_eq!(trusted.status(), 303);
        assert_eq!(trusted.headers()["location"], "/login");
        assert!(trusted.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .starts_with("kr_device="));
        assert_eq!(attempt(&admin, &c, PASSWORD).await, 200);
        assert_eq!(attempt(&guesser, &c, PASSWORD).await, 429);

        // The link works once, for anyone.
        let again = common::browser_like_client(&c.base);
        let used = again.post(&link).send().await.unwrap();
        assert_eq!(used.status(), 410);
        assert!(used.text().await.unwrap().contains("trust-browser"));
        assert_eq!(attempt(&again, &c, PASSWORD).await, 429);

        // An unused link stops working after 15 minutes.
        let late = trust_browser_link(&c);
        signin_device::Entity::update_many()
            .col_expr(
                signin_device::Column::ExpiresAt,
                sea_orm::sea_query::Expr::value(chrono::Utc::now() - chrono::Duration::seconds(1)),
            )
            .filter(
                signin_device::Column::CreatedAt
                    .gt(chrono::Utc::now() - chrono::Duration::seconds(30)),
            )
            .exec(&c.state.db)
            .await
            .unwrap();
        let expired = common::browser_like_client(&c.base);
        assert_eq!(expired.post(&late).send().await.unwrap().status(), 410);
        // Tampered or foreign paths below the prefix are no links either.
        for path in [
            "/trust-browser/short",
            "/trust-browser/x/y",
            "/trust-browser/",
        ] {
            let answer = expired.post(c.url(path)).send().await.unwrap();
            assert!(!answer.status().is_success(), "{path}: {}", answer.status());
            assert!(!answer.headers().contains_key("set-cookie"), "{path}");
        }
    }
);
