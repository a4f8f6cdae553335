//! Control's identity in a real browser: Settings shows the key Agents pin
//! and its fingerprint (the same the API gives), and an Agent that reported
//! refusing an answer not signed by that key shows, on its page and in the
//! list, that a server pretending to be Control reached it, and when. Phone
//! size, where the long key must wrap instead of widening the page.

mod common;

use playwright_rs::expect;
use serde_json::{json, Value};
use std::time::Duration;

#[tokio::test]
async fn settings_show_the_key_and_an_agent_shows_the_impostor_it_refused() {
    let control = common::start_control().await;
    let admin = common::admin_client(&control.base).await;
    let identity: Value = admin.get_json("/api/v1/settings/identity").await;
    let key = identity["current"]["public_key"]
        .as_str()
        .unwrap()
        .to_string();
    let fingerprint = identity["current"]["fingerprint"]
        .as_str()
        .unwrap()
        .to_string();
    let agent = common::SimAgent::enrolled(&control, 42, "edge-1").await;
    let at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - 60;
    let r = agent
        .post(
            "/api/v1/agents/heartbeat",
            json!({"name": "edge", "control_key": key, "refused_answers": [{"at": at,
                "path": "/api/v1/agents/jobs/next", "reason": "other_key",
                "detail": "the answer is signed by SHA256:x, not by the pinned Control key",
                "job_kind": "deploy_sidecar"}]}),
        )
        .await;
    assert_eq!(r.status(), 200);

    let b = common::open_browser("control-identity", 390, 844, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/settings", control.base)).await;
    expect(page.locator("#control-key-current .fingerprint"))
        .with_timeout(wait)
        .to_have_text(fingerprint.as_str())
        .await
        .unwrap();
    expect(page.locator("#control-key-current .key"))
        .to_have_text(key.as_str())
        .await
        .unwrap();
    let overflow: String = page
        .evaluate_value("String(document.documentElement.scrollWidth > window.innerWidth)")
        .await
        .unwrap();
    assert_eq!(overflow, "false", "the key wraps on a phone");
    b.screenshot("1-settings").await;

    b.goto(&format!(
        "{}/infrastructure/agents/{}",
        control.base,
        agent.id()
    ))
    .await;
    expect(page.locator("#agent-status"))
        .with_timeout(wait)
        .to_have_text("degraded")
        .await
        .unwrap();
    expect(page.locator("#agent-reason"))
        .to_contain_text("A server pretending to be Control reached this Agent")
        .await
        .unwrap();
    expect(page.locator("#agent-control-pin"))
        .to_contain_text(fingerprint.as_str())
        .await
        .unwrap();
    expect(page.locator("#agent-control-refused"))
        .to_contain_text("deploy_sidecar")
        .await
        .unwrap();
    b.screenshot("2-agent-refused").await;
    b.close().await;
}
