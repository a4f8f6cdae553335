//! No one-time token reaches Control's log. The routes that carry a secret
//! in their path are taken from the router itself (it registers them with
//! `RouteTable::secret_route`), and each is sent, with live tokens where
//! Control has them, through every refusal a request can meet before its
//! handler: a cross-origin write, a forwarded host from an untrusted peer,
//! ambiguous spellings of the path, a trailing slash, another case, a wrong
//! method and an oversized body, all written raw to the socket. The log,
//! at debug level, names each such path only without its secret.

mod common;

use common::raw_http;
use serde_json::{json, Value};
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

/// Everything this test binary's Controls log, at debug level.
fn captured() -> Arc<Mutex<Vec<u8>>> {
    static LOG: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOG.get_or_init(|| {
        let log: Arc<Mutex<Vec<u8>>> = Arc::default();
        let sink = log.clone();
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new("debug"))
            .with_ansi(false)
            .with_writer(move || Sink(sink.clone()))
            .init();
        log
    })
    .clone()
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The token in a link's path, after `prefix`.
fn token_after(link: &str, prefix: &str) -> String {
    link[link.find(prefix).unwrap() + prefix.len()..].to_string()
}

/// The requests that reach (or are refused before) the route at `path`:
/// what each one sends, byte for byte.
fn hostile_requests(c: &common::Control, path: &str) -> Vec<Vec<u8>> {
    let host = c.addr;
    let base = &c.base;
    let get = |target: &str| {
        format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").into_bytes()
    };
    let post = |target: &str, extra: &str, body: &str| {
        format!(
            "POST {target} HTTP/1.1\r\nHost: {host}\r\n{extra}Content-Type: application/x-www-form-urlencoded\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    };
    let (first, rest) = path[1..].split_once('/').unwrap();
    let mut requests = vec![
        get(path),
        get(&format!("{path}/")),
        get(&format!("{path}/../audit")),
        get(&format!("{path}/./x")),
        get(&format!("/{path}")),
        get(&format!("{path};jsessionid=1")),
        get(&format!("{path}%00")),
        get(&format!("/{first}/%2e%2e/{rest}")),
        get(&format!("/{first}%2F{rest}")),
        get(&path.to_uppercase()),
        get(&format!("/pkg/..{path}")),
        // A cross-origin write: no Origin at all, then another site's.
        post(path, "", "name=x"),
        post(path, "Origin: https://evil.example\r\n", "name=x"),
        // A forwarded host from a peer that is not a trusted proxy.
        post(
            path,
            "Origin: https://evil.example\r\nX-Forwarded-Host: evil.example\r\n",
            "name=x",
        ),
        // A method the route does not take, from Control's own origin.
        format!("PUT {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: {base}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .into_bytes(),
        format!("DELETE {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: {base}\r\nConnection: close\r\n\r\n")
            .into_bytes(),
    ];
    // An oversized body (the limit is 2 MiB).
    let big = "x".repeat(3 * 1024 * 1024);
    requests.push(post(path, &format!("Origin: {base}\r\n"), &big));
    requests
}

on_both_databases!(
    no_secret_of_a_path_reaches_the_log_whatever_refuses_it,
    |backend| async move {
        let log = captured();
        let c = common::signed_in(backend).await;
        // Live one-time tokens: an invite's, a person's invitation, a
        // second-factor setup link; a made-up one where Control has none.
        let network = c.created_network(json!({"name": "Home"})).await;
        let invite: Value = c
            .post_json("/api/v1/invites", json!({"network_id": network}))
            .await
            .json()
            .await
            .unwrap();
        let join = token_after(invite["url"].as_str().unwrap(), "/join/");
        let invited: Value = c
            .post_json("/api/v1/users/invites", json!({"role": "viewer"}))
            .await
            .json()
            .await
            .unwrap();
        let welcome = token_after(invited["link"].as_str().unwrap(), "/welcome/");
        common::people::join(&c, "operator", "anna").await;
        let users: Vec<Value> = c.get_json("/api/v1/users").await;
        let anna = users.iter().find(|u| u["name"] == "anna").unwrap();
        let link: Value = c
            .post_json(
                &format!(
                    "/api/v1/users/{}/second-factor/setup-link",
                    anna["id"].as_str().unwrap()
                ),
                json!({}),
            )
            .await
            .json()
            .await
            .unwrap();
        let setup = token_after(link["link"].as_str().unwrap(), "/two-step-setup/");
        let made_up = server::domain::access::secrets::new_token();

        let (_, secret_paths) = server::http::router_with_secret_paths(c.state.clone());
        let patterns = secret_paths.patterns().to_vec();
        assert!(patterns.len() >= 4, "{patterns:?}");
        let mut secrets = Vec::new();
        for pattern in &patterns {
            let secret = match pattern.split('/').nth(1) {
                Some("join") => join.clone(),
                Some("welcome") => welcome.clone(),
                Some("two-step-setup") => setup.clone(),
                _ => made_up.clone(),
            };
            let path = pattern
                .replace("{token}", &secret)
                .replace("{*rest}", "more/parts");
            for request in hostile_requests(&c, &path) {
                raw_http(c.addr, &request).await;
            }
            secrets.push((pattern, secret));
        }

        let text = String::from_utf8_lossy(&log.lock().unwrap()).to_string();
        for (pattern, secret) in &secrets {
            assert!(
                !text.contains(secret.as_str()),
                "{pattern}: its secret is in the log:\n{}",
                text.lines()
                    .filter(|l| l.contains(secret.as_str()))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            // The log did see these requests, with the secret cut.
            let prefix = &pattern[..pattern.find('{').unwrap()];
            assert!(
                text.contains(&format!("{prefix}…")),
                "{pattern}: no redacted line in the log"
            );
        }
        assert!(text.contains("refused a cross-origin state-changing request"));
        // The links still work: the log did not cost them.
        let r = c.get(&format!("/join/{join}")).await;
        assert_eq!(r.status(), 200);
    }
);
