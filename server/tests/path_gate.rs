//! The session gate and the renderer read the same path: no request without a
//! session gets admin data, however its path is spelled. Requests are written
//! to the socket byte for byte, because an HTTP client would resolve the very
//! dot segments and escapes under test before sending them.

mod common;

use serde_json::{json, Value};
use std::net::SocketAddr;

async fn raw_request(addr: SocketAddr, target: &str, extra: &str) -> common::RawAnswer {
    let request =
        format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}\r\n");
    common::raw_http(addr, request.as_bytes()).await
}

/// Every admin screen, as the router knows it.
fn screens(network_id: &str, agent_id: &str, job_id: &str) -> Vec<String> {
    [
        "",
        "networks",
        "infrastructure",
        "infrastructure/beacons",
        "services",
        "onboarding",
        "jobs",
        "audit",
        "settings",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        format!("networks/{network_id}"),
        format!("infrastructure/agents/{agent_id}"),
        format!("jobs/{job_id}"),
    ])
    .collect()
}

/// Ways to climb out of a public prefix to `screen`, as attackers write them:
/// plain, encoded, double-encoded and mixed-case dots, encoded slashes and
/// backslashes, `;` parameters, empty segments and absolute-form targets.
fn hostile_paths(screen: &str, host: &str) -> Vec<String> {
    const UP: [&str; 16] = [
        "../",
        "%2e%2e/",
        "%2E%2E/",
        "%2e%2E/",
        ".%2e/",
        "%2e./",
        "%252e%252e/",
        "..%2f",
        "..%2F",
        "%2e%2e%2f",
        "..\\",
        "..%5c",
        "..;/",
        "%2e%2e;/",
        "./../",
        ".//../",
    ];
    // Each prefix with how many segments it sits below the root.
    const PREFIXES: [(&str, usize); 3] = [("/pkg/", 1), ("/join/x/", 2), ("/lang/en/", 2)];
    let mut paths = Vec::new();
    for (prefix, depth) in PREFIXES {
        for up in UP {
            paths.push(format!("{prefix}{}{screen}", up.repeat(depth)));
        }
    }
    paths.extend([
        format!("//{screen}"),
        format!("/pkg//{screen}"),
        format!("/pkg/..//{screen}"),
        format!("/favicon.svg/../{screen}"),
        format!("/login/../{screen}"),
        format!("/healthz/%2e%2e/{screen}"),
        format!("/api/v1/session/../../../{screen}"),
        format!("/api/v1/agents/heartbeat/%2e%2e/%2e%2e/%2e%2e/%2e%2e/{screen}"),
        format!("/ui/sign_in/../../{screen}"),
        format!("http://{host}/pkg/../{screen}"),
        format!("http://{host}/join/x/%2e%2e/%2e%2e/{screen}"),
        format!("/join/x/y/z/../../../{screen}"),
        format!("/pkg/{screen}"),
        format!("/join/{screen}/x"),
        format!("/lang/en/{screen}"),
    ]);
    paths
}

on_both_databases!(
    no_spelling_of_a_path_serves_admin_data_without_a_session,
    |backend| async move {
        let c = common::signed_in(backend).await;
        // Admin data with names that would stand out in any body.
        let r = c
            .create_network(json!({"name": "Marker Net Q7", "description": "marker description q7", "beacons": ["https://beacon-q7.example.net"]}))
            .await;
        assert_eq!(r.status(), 201);
        let network: Value = r.json().await.unwrap();
        let network_id = network["id"].as_str().unwrap().to_string();
        let r = c
            .post_json(
                "/api/v1/install-tokens",
                json!({"name": "marker-install-q7"}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let agent = common::SimAgent::new(&c, 77);
        assert_eq!(
            agent
                .enroll(common::ENROLL, "marker-agent-q7")
                .await
                .status(),
            201
        );
        agent.approve().await;
        let r = agent
            .post(
                "/api/v1/agents/heartbeat",
                json!({"name": "marker-agent-q7", "docker_available": true}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let r = c
            .post_json(
                "/api/v1/jobs",
                json!({"agent_id": agent.id(), "kind": "restart_component", "payload": {"component_id": "sidecar-markerq7"}}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let job: Value = r.json().await.unwrap();
        let job_id = job["id"].as_str().unwrap().to_string();
        let markers = [
            "Marker Net Q7".to_string(),
            "marker description q7".to_string(),
            "beacon-q7.example.net".to_string(),
            "marker-install-q7".to_string(),
            "marker-agent-q7".to_string(),
            "markerq7".to_string(),
            network_id.clone(),
            agent.id(),
            job_id.clone(),
        ];

        // The markers do show where they should, so their absence below means something.
        let session_cookie = common::session_cookie(&c).await;
        let signed_in = raw_request(
            c.addr,
            "/infrastructure",
            &format!("Cookie: {session_cookie}\r\n"),
        )
        .await;
        assert_eq!(signed_in.status, 200);
        assert!(
            signed_in.body.contains("marker-agent-q7"),
            "a signed-in admin sees the Agent"
        );
        let signed_in =
            raw_request(c.addr, "/audit", &format!("Cookie: {session_cookie}\r\n")).await;
        assert!(
            signed_in.body.contains("Marker Net Q7"),
            "a signed-in admin sees the audit log"
        );

        let host = c.addr.to_string();
        let mut sent = 0;
        for screen in screens(&network_id, &agent.id(), &job_id) {
            for path in hostile_paths(&screen, &host) {
                let answer = raw_request(c.addr, &path, "").await;
                sent += 1;
                for marker in &markers {
                    assert!(
                        !answer.body.contains(marker.as_str()),
                        "GET {path} answered {} with admin data ({marker})",
                        answer.status
                    );
                }
                assert_ne!(answer.status, 200, "GET {path} must not render a page");
                assert!(
                    answer
                        .head
                        .to_ascii_lowercase()
                        .contains("cache-control: no-store"),
                    "GET {path} must not be cacheable:\n{}",
                    answer.head
                );
            }
        }
        assert!(sent >= 12 * 40, "sent {sent} hostile requests");

        // Generated spellings too, through the real router and renderer.
        const PARTS: [&str; 22] = [
            "..",
            ".",
            "",
            "%2e%2e",
            "%2E.",
            ".%2e",
            "%252e%252e",
            "..%2f",
            "..%5c",
            "..\\",
            "..;x",
            "pkg",
            "join",
            "x",
            "lang",
            "en",
            "api",
            "v1",
            "ui",
            "infrastructure",
            "audit",
            "jobs",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..400 {
            let segments = 1 + (next() % 6) as usize;
            let path: String = (0..segments)
                .map(|_| format!("/{}", PARTS[(next() % PARTS.len() as u64) as usize]))
                .collect();
            let answer = raw_request(c.addr, &path, "").await;
            for marker in &markers {
                assert!(
                    !answer.body.contains(marker.as_str()),
                    "GET {path} answered {} with admin data ({marker})",
                    answer.status
                );
            }
        }
    }
);

on_both_databases!(
    a_missing_file_under_pkg_is_a_bare_404_and_join_subpaths_render_nothing,
    |backend| async move {
        let c = common::signed_in(backend).await;
        // Even signed in, a path below a public prefix is never rendered as a screen.
        for path in [
            "/pkg/infrastructure",
            "/join/abc/infrastructure",
            "/lang/en/jobs",
        ] {
            let r = c.get(path).await;
            assert_eq!(r.status(), 404, "{path}");
            let body = r.text().await.unwrap();
            assert!(!body.contains("<html"), "{path} rendered a page: {body}");
        }
        // One trailing slash is only a redirect to the path without it.
        let r = c.get("/jobs/?status=failed").await;
        assert_eq!(r.status(), 308);
        assert_eq!(r.headers()["location"], "/jobs?status=failed");
    }
);

on_both_databases!(
    a_bearer_header_skips_the_origin_check_only_on_the_json_api,
    |backend| async move {
        let c = common::signed_in(backend).await;
        // The browser-like client holds a session cookie; a forged cross-site
        // request adds a Bearer header of its own making and another Origin.
        for path in ["/ui/sign_out", "/ui/overview", "/networks"] {
            let r = c
                .client
                .post(c.url(path))
                .header("origin", "https://evil.example")
                .header("authorization", "Bearer not-a-token")
                .form(&[("x", "")])
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 403, "{path}");
            let body: Value = r.json().await.unwrap();
            assert_eq!(body["code"], "cross_origin", "{path}");
        }
        // The session survived: the forged sign-out did not run.
        let r = c.get("/api/v1/session").await;
        let status: Value = r.json().await.unwrap();
        assert_eq!(status["authenticated"], true);
        // On /api/v1 the token itself is checked instead (and this one is refused).
        let r = c
            .client
            .post(c.url("/api/v1/networks"))
            .header("origin", "https://evil.example")
            .header("authorization", "Bearer not-a-token")
            .json(&json!({"name": "x"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
    }
);
