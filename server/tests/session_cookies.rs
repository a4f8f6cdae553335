//! Control's cookies over HTTPS carry the `__Host-` prefix, which a browser
//! accepts only from this very origin (no sibling subdomain, no plain-HTTP
//! page can set one in their place); each transport reads only its own
//! name; and a request carrying the session cookie twice (one of them
//! planted) opens nothing. Over plain HTTP, a local trial and these tests,
//! signing in keeps working with the bare names. Cookie headers are sent
//! raw, as a hostile page could make a browser send them. Both databases.

mod common;

use common::{raw_http, PASSWORD};

const PUBLIC: &str = "https://control.example";

/// `Set-Cookie` values of a sign-in with the owner's password.
async fn sign_in_cookies(c: &common::Control, origin: &str) -> Vec<String> {
    let body = format!(r#"{{"password":"{PASSWORD}"}}"#);
    let request = format!(
        "POST /api/v1/session HTTP/1.1\r\nHost: {}\r\nOrigin: {origin}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        c.addr,
        body.len()
    );
    let answer = raw_http(c.addr, request.as_bytes()).await;
    assert_eq!(answer.status, 200, "{}", answer.head);
    answer.header("set-cookie")
}

/// Whether `GET /api/v1/session` with exactly this Cookie header is signed in.
async fn signed_in_with(c: &common::Control, cookie: &str) -> bool {
    let request = format!(
        "GET /api/v1/session HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n",
        c.addr
    );
    let answer = raw_http(c.addr, request.as_bytes()).await;
    assert_eq!(answer.status, 200, "{}", answer.head);
    answer.body.contains(r#""authenticated":true"#)
}

/// The `name=value` of the cookie named `name` among `set`.
fn value_of(set: &[String], name: &str) -> String {
    set.iter()
        .find(|c| c.starts_with(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no {name} among {set:?}"))
        .split(';')
        .next()
        .unwrap()
        .to_string()
}

on_both_databases!(
    over_https_the_session_is_host_bound_and_read_only_when_alone,
    |backend| async move {
        let c = common::start_with(
            backend,
            common::Options {
                public_url: Some(PUBLIC.into()),
                ..Default::default()
            },
        )
        .await;
        let set = sign_in_cookies(&c, PUBLIC).await;
        for name in ["__Host-kr_session", "__Host-kr_device"] {
            let cookie = set
                .iter()
                .find(|s| s.starts_with(&format!("{name}=")))
                .unwrap_or_else(|| panic!("no {name}: {set:?}"));
            for flag in ["Secure", "Path=/", "HttpOnly", "SameSite=Strict"] {
                assert!(cookie.contains(flag), "{cookie}");
            }
            assert!(!cookie.contains("Domain"), "{cookie}");
        }
        let session = value_of(&set, "__Host-kr_session");
        let token = session.split_once('=').unwrap().1.to_string();
        assert!(signed_in_with(&c, &session).await);
        assert!(signed_in_with(&c, &format!("kr_lang=ru; {session}")).await);
        for (cookie, why) in [
            (
                format!("kr_session={token}"),
                "the plain-HTTP name over HTTPS",
            ),
            (format!("__Secure-kr_session={token}"), "another prefix"),
            (
                format!("__host-kr_session={token}"),
                "the prefix in another case",
            ),
            (
                format!("__Host-kr_session=planted; {session}"),
                "planted first",
            ),
            (
                format!("{session}; __Host-kr_session=planted"),
                "planted after",
            ),
            (format!("{session}; {session}"), "the same twice"),
            (format!("{session}; __Host-kr_session="), "an empty second"),
            ("__Host-kr_session=".to_string(), "empty"),
            (format!("__Host-kr_session={}", "a".repeat(200)), "too long"),
        ] {
            assert!(!signed_in_with(&c, &cookie).await, "{why}: {cookie}");
        }
        // Two Cookie headers are one list: planted in one, real in the other.
        let request = format!(
            "GET /api/v1/session HTTP/1.1\r\nHost: {}\r\nCookie: __Host-kr_session=planted\r\n\
             Cookie: {session}\r\nConnection: close\r\n\r\n",
            c.addr
        );
        let answer = raw_http(c.addr, request.as_bytes()).await;
        assert!(
            answer.body.contains(r#""authenticated":false"#),
            "{}",
            answer.body
        );
        // Signing out clears the prefixed cookie.
        let request = format!(
            "DELETE /api/v1/session HTTP/1.1\r\nHost: {}\r\nOrigin: {PUBLIC}\r\nCookie: {session}\r\n\
             Connection: close\r\n\r\n",
            c.addr
        );
        let answer = raw_http(c.addr, request.as_bytes()).await;
        assert!(
            answer
                .header("set-cookie")
                .iter()
                .any(|c| c.starts_with("__Host-kr_session=;")),
            "{}",
            answer.head
        );
        assert!(!signed_in_with(&c, &session).await);
    }
);

on_both_databases!(
    over_plain_http_the_session_keeps_its_bare_name,
    |backend| async move {
        let c = common::start(backend).await;
        let set = sign_in_cookies(&c, &c.base).await;
        assert!(
            set.iter()
                .all(|s| !s.contains("Secure") && !s.starts_with("__Host-")),
            "{set:?}"
        );
        let session = value_of(&set, "kr_session");
        let token = session.split_once('=').unwrap().1.to_string();
        assert!(signed_in_with(&c, &session).await);
        for cookie in [
            format!("__Host-kr_session={token}"),
            format!("kr_session=planted; {session}"),
            format!("{session}; kr_session=planted"),
        ] {
            assert!(!signed_in_with(&c, &cookie).await, "{cookie}");
        }
        // And the browser of these tests signs in as always.
        c.sign_in().await;
        let status: serde_json::Value = c.get_json("/api/v1/session").await;
        assert_eq!(status["authenticated"], true);
    }
);
