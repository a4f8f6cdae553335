//! Per-address limits on what anyone can call without signing in.

mod common;

use common::{Backend, Options, SimAgent};

#[tokio::test]
async fn a_flood_on_the_machine_endpoints_gets_429_and_others_are_unaffected() {
    let c = common::start_with(
        Backend::Sqlite,
        Options {
            machine_rate_limit: Some(5),
            ..Options::default()
        },
    )
    .await;
    let client = reqwest::Client::new();
    let mut codes = Vec::new();
    for _ in 0..8 {
        codes.push(
            client
                .get(c.url("/healthz"))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16(),
        );
    }
    assert_eq!(&codes[..5], &[200; 5], "within the limit: {codes:?}");
    assert!(codes[5..].iter().all(|c| *c == 429), "{codes:?}");

    // The Agent API shares the budget of its address, and says when to retry.
    let agent = SimAgent::new(&c, 95);
    let r = agent.enroll(common::ENROLL, "flood").await;
    assert_eq!(r.status(), 429);
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "Retry-After {wait}");
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["code"], "rate_limited");
    assert!(body["hint"]
        .as_str()
        .unwrap()
        .contains("KNOTROUTE_CONTROL_MACHINE_RATE_LIMIT"));

    // Signed-in admin requests and pages are not counted here.
    c.sign_in().await;
    let networks = c.get("/api/v1/networks").await;
    assert_eq!(networks.status(), 200);
}

#[tokio::test]
async fn an_address_behind_a_trusted_proxy_is_limited_on_its_own() {
    let c = common::start_with(
        Backend::Sqlite,
        Options {
            machine_rate_limit: Some(2),
            trust_proxy: true,
            ..Options::default()
        },
    )
    .await;
    let client = reqwest::Client::new();
    let probe = |from: &'static str| {
        client
            .get(c.url("/readyz"))
            .header("x-forwarded-for", from)
            .send()
    };
    for _ in 0..2 {
        assert_eq!(probe("203.0.113.1").await.unwrap().status(), 200);
    }
    assert_eq!(probe("203.0.113.1").await.unwrap().status(), 429);
    assert_eq!(
        probe("203.0.113.2").await.unwrap().status(),
        200,
        "another client is not affected"
    );
}
