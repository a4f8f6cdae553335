//! Forwarded headers count only from trusted proxies (every per-address limit
//! and the scheme), and an https public URL makes cookies Secure and sends HSTS
//! whatever the proxy says. Hostile headers are sent raw over TCP, so that no
//! HTTP client normalises them.

mod common;

use common::{Options, PASSWORD};
use std::net::SocketAddr;

/// Sends `request` as is and returns the status and the whole answer.
async fn raw(addr: SocketAddr, request: &str) -> (u16, String) {
    let answer = common::raw_http(addr, request.as_bytes()).await;
    (
        answer.status,
        format!("{}\r\n\r\n{}", answer.head, answer.body),
    )
}

/// A raw request with `extra` header lines (each ending in CRLF).
fn request(addr: SocketAddr, method: &str, path: &str, extra: &str, body: &str) -> String {
    format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{body}",
        body.len()
    )
}

fn sign_in(addr: SocketAddr, password: &str, extra: &str) -> String {
    let body = format!(r#"{{"password":"{password}"}}"#);
    request(addr, "POST", "/api/v1/session", extra, &body)
}

/// The same, as the person `name`.
fn sign_in_as(addr: SocketAddr, name: &str, password: &str, extra: &str) -> String {
    let body = format!(r#"{{"name":"{name}","password":"{password}"}}"#);
    request(addr, "POST", "/api/v1/session", extra, &body)
}

/// Headers with which a client that reaches the port directly might try to
/// pass for someone else; each line is its own attempt.
const SPOOFS: [&str; 13] = [
    "X-Forwarded-For: 198.51.100.1\r\n",
    "X-Forwarded-For: 127.0.0.1\r\n",
    "X-Forwarded-For: 192.0.2.1\r\n",
    "X-Forwarded-For: 198.51.100.2, 192.0.2.1\r\n",
    "X-Forwarded-For: 198.51.100.3\r\nX-Forwarded-For: 198.51.100.4\r\n",
    "x-forwarded-for: [2001:db8::1]:443\r\n",
    "X-FORWARDED-FOR: 2001:db8:1::1\r\n",
    "X-Forwarded-For: unknown\r\n",
    "X-Forwarded-For:    198.51.100.5   \r\n",
    "Forwarded: for=198.51.100.6\r\n",
    "X-Real-IP: 198.51.100.7\r\n",
    "X-Forwarded-For: 198.51.100.8\r\nX-Forwarded-Proto: https\r\n",
    "X-Forwarded-For: 198.51.100.9,\r\n",
];

on_both_databases!(
    a_client_that_reaches_the_port_directly_cannot_choose_its_address,
    |backend| async move {
        // Trust is on, but the proxy is 192.0.2.0/24: a loopback peer is a client
        // that went around it.
        let c = common::behind_proxy_in(backend, "192.0.2.0/24").await;
        let mut statuses = Vec::new();
        for spoof in SPOOFS {
            statuses.push(raw(c.addr, &sign_in(c.addr, "guess", spoof)).await.0);
        }
        assert_eq!(&statuses[..8], &[401; 8], "{statuses:?}");
        assert!(
            statuses[8..].iter().all(|s| *s == 429),
            "every spoof counted for the peer: {statuses:?}"
        );
        // The failures were all recorded against the real peer (and the
        // account they were guesses at).
        use sea_orm::EntityTrait;
        let rows = server::entities::login_failure::Entity::find()
            .all(&c.state.db)
            .await
            .unwrap();
        let (by_account, by_address): (Vec<_>, Vec<_>) =
            rows.iter().partition(|r| r.client.starts_with("account:"));
        assert_eq!((by_address.len(), by_account.len()), (8, 8), "{rows:?}");
        assert!(
            by_address.iter().all(|r| r.client == "127.0.0.1"),
            "{rows:?}"
        );
    }
);

on_both_databases!(
    behind_a_trusted_proxy_the_rightmost_untrusted_address_is_the_client,
    |backend| async move {
        // Loopback is trusted by default once trust is on.
        let c = common::behind_proxy(backend).await;
        // The client prepends whatever it likes; the proxy appends the truth
        // (and a second trusted hop may follow). Its guesses are at a name
        // nobody has, so only its address's budget is spent.
        for n in 0..8 {
            let chain = if n % 2 == 0 {
                format!("X-Forwarded-For: 203.0.113.{n}, 198.51.100.7\r\n")
            } else {
                format!("X-Forwarded-For: 198.51.100.{n}, 198.51.100.7, 127.0.0.1\r\n")
            };
            let (status, _) = raw(c.addr, &sign_in_as(c.addr, "nobody", "guess", &chain)).await;
            assert_eq!(status, 401);
        }
        let locked = "X-Forwarded-For: 203.0.113.99, 198.51.100.7\r\n";
        assert_eq!(raw(c.addr, &sign_in(c.addr, PASSWORD, locked)).await.0, 429);
        // Another real client behind the same proxy is not affected.
        let other = "X-Forwarded-For: 198.51.100.7, 198.51.100.8\r\n";
        assert_eq!(raw(c.addr, &sign_in(c.addr, PASSWORD, other)).await.0, 200);
    }
);

on_both_databases!(
    enrollment_and_invite_limits_ignore_forwarded_for_from_an_untrusted_peer,
    |backend| async move {
        let c = common::behind_proxy_in(backend, "192.0.2.0/24").await;
        let key = protocol::signing::AgentKey::from_seed([7; 32])
            .public_key()
            .to_wire();
        let body = format!(r#"{{"name":"x","public_key":"{key}","token":"wrong-token-0000000"}}"#);
        let mut last = 0;
        for n in 0..=server::domain::agents::enrollment::ENROLL_REFUSALS_MAX {
            let spoof = format!("X-Forwarded-For: 198.51.100.{}\r\n", n % 250);
            last = raw(
                c.addr,
                &request(c.addr, "POST", "/api/v1/agents/enroll", &spoof, &body),
            )
            .await
            .0;
        }
        assert_eq!(last, 429, "refused enrollments are counted for the peer");
        // 60 a minute per address (a GCRA: one more each second meanwhile).
        let mut codes = Vec::new();
        for n in 0..80 {
            let spoof = format!("X-Forwarded-For: 198.51.100.{}\r\n", n % 250);
            let page = request(c.addr, "GET", "/join/no-such-invite", &spoof, "");
            codes.push(raw(c.addr, &page).await.0);
        }
        assert!(codes[..60].iter().all(|s| *s == 404), "{codes:?}");
        let refused = codes.iter().filter(|s| **s == 429).count();
        assert!(
            refused >= 10,
            "invite pages are limited for the peer: {codes:?}"
        );
    }
);

#[tokio::test]
async fn the_machine_rate_limit_ignores_forwarded_for_from_an_untrusted_peer() {
    let c = common::start_with(
        common::Backend::Sqlite,
        Options {
            trust_proxy: true,
            trusted_proxies: Some("192.0.2.0/24".into()),
            machine_rate_limit: Some(3),
            ..Default::default()
        },
    )
    .await;
    let mut codes = Vec::new();
    for spoof in SPOOFS.iter().take(6) {
        codes.push(
            raw(c.addr, &request(c.addr, "GET", "/healthz", spoof, ""))
                .await
                .0,
        );
    }
    assert_eq!(codes, [200, 200, 200, 429, 429, 429]);
}

/// The header's value in a raw answer, if present (names case-insensitively).
fn header<'a>(answer: &'a str, name: &str) -> Vec<&'a str> {
    let head = answer.split("\r\n\r\n").next().unwrap_or("");
    head.lines()
        .filter_map(|l| l.split_once(':'))
        .filter(|(k, _)| k.trim().eq_ignore_ascii_case(name))
        .map(|(_, v)| v.trim())
        .collect()
}

on_both_databases!(
    an_https_public_url_makes_every_cookie_secure_and_sends_hsts_without_x_forwarded_proto,
    |backend| async move {
        let c = common::start_with(
            backend,
            Options {
                public_url: Some("https://control.example".into()),
                ..Default::default()
            },
        )
        .await;
        let origin = "Origin: https://control.example\r\n";
        let body = format!(r#"{{"password":"{PASSWORD}"}}"#);
        let sign_in = format!(
            "POST /api/v1/session HTTP/1.1\r\nHost: control.example\r\n{origin}\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let (status, answer) = raw(c.addr, &sign_in).await;
        assert_eq!(status, 200, "{answer}");
        let cookies = header(&answer, "set-cookie");
        assert!(
            cookies.iter().any(|c| c.starts_with("__Host-kr_session="))
                && cookies.iter().any(|c| c.starts_with("__Host-kr_device=")),
            "{cookies:?}"
        );
        for cookie in &cookies {
            assert!(cookie.contains("; Secure"), "{cookie}");
        }
        let get = |path: &str| {
            format!("GET {path} HTTP/1.1\r\nHost: control.example\r\nConnection: close\r\n\r\n")
        };
        let (_, lang) = raw(c.addr, &get("/lang/ru?next=/login")).await;
        let cookies = header(&lang, "set-cookie");
        assert!(
            cookies.len() == 1
                && cookies[0].starts_with("kr_lang=ru")
                && cookies[0].contains("Secure"),
            "{cookies:?}"
        );
        // HSTS on every answer: pages, probes, refusals, unknown paths, the sign-in.
        assert!(!header(&answer, "strict-transport-security").is_empty());
        for path in [
            "/healthz",
            "/login",
            "/api/v1/networks",
            "/no/such/page",
            "/lang/ru",
        ] {
            let (_, a) = raw(c.addr, &get(path)).await;
            assert_eq!(
                header(&a, "strict-transport-security"),
                ["max-age=31536000"],
                "{path}: {a}"
            );
        }
        let sign_out = format!(
            "DELETE /api/v1/session HTTP/1.1\r\nHost: control.example\r\n{origin}Connection: close\r\n\r\n"
        );
        let (_, out) = raw(c.addr, &sign_out).await;
        let cleared = header(&out, "set-cookie");
        assert!(
            cleared.len() == 1 && cleared[0].contains("Secure"),
            "{cleared:?}"
        );
    }
);

on_both_databases!(
    x_forwarded_proto_counts_only_from_a_trusted_proxy,
    |backend| async move {
        for (trusted, secure) in [(None, true), (Some("192.0.2.0/24"), false)] {
            let c = common::start_with(
                backend,
                Options {
                    trust_proxy: true,
                    trusted_proxies: trusted.map(str::to_string),
                    ..Default::default()
                },
            )
            .await;
            let proto = "X-Forwarded-Proto: https\r\n";
            let (status, answer) = raw(c.addr, &sign_in(c.addr, PASSWORD, proto)).await;
            assert_eq!(status, 200, "{answer}");
            let cookies = header(&answer, "set-cookie");
            assert_eq!(cookies.len(), 2, "{cookies:?}");
            assert!(
                cookies.iter().all(|c| c.contains("Secure") == secure),
                "{trusted:?}: {cookies:?}"
            );
            assert_eq!(
                !header(&answer, "strict-transport-security").is_empty(),
                secure,
                "{trusted:?}"
            );
            // Without the header, plain HTTP it is.
            let (_, plain) = raw(c.addr, &sign_in(c.addr, PASSWORD, "")).await;
            assert!(header(&plain, "set-cookie")
                .iter()
                .all(|c| !c.contains("Secure")));
            assert!(header(&plain, "strict-transport-security").is_empty());
        }
    }
);
