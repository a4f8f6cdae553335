//! A refusal only the server can make (a Network ID already in use) shows next
//! to its field, and the interface switches to Russian and remembers it.

mod common;

use playwright_rs::expect;
use std::time::Duration;

#[tokio::test]
async fn a_taken_network_id_is_refused_beside_the_field_and_russian_is_remembered() {
    let control = common::start_control().await;
    let b = common::open_browser("refusal-and-language", 1280, 800, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);

    b.sign_in(&control.base).await;
    b.expect_text("#count-networks", "0").await;

    // The first profile, with a generated ID.
    b.goto(&format!("{}/networks/new", control.base)).await;
    b.fill("#network-name", "First").await;
    page.locator("#save-network").click(None).await.unwrap();
    page.wait_for_url(&format!("{}/networks/kn_*", control.base), None)
        .await
        .unwrap();
    let id = b.network_page_id().await;

    // The same ID pasted into a second profile: valid in form, refused by the server.
    b.goto(&format!("{}/networks/new", control.base)).await;
    b.fill("#network-name", "Second").await;
    b.fill("#network-id", &id.to_uppercase()).await;
    expect(page.locator("#network-id-error"))
        .with_timeout(wait)
        .to_be_hidden()
        .await
        .unwrap();
    page.locator("#save-network").click(None).await.unwrap();
    b.expect_text(
        "#network-id-error",
        "A network profile with this ID already exists.",
    )
    .await;
    assert!(page.url().ends_with("/networks/new"));
    b.screenshot("1-id-taken").await;

    // The Overview counts the one profile that exists.
    b.goto(&format!("{}/", control.base)).await;
    b.expect_text("#count-networks", "1").await;

    // Switch to Russian; the choice survives a new page load.
    page.locator(".lang-switch").click(None).await.unwrap();
    b.hydrated().await;
    b.expect_text(".mainnav", "Сети").await;
    b.goto(&format!("{}/networks", control.base)).await;
    expect(page.locator("h1"))
        .with_timeout(wait)
        .to_have_text("Сети")
        .await
        .unwrap();
    let lang: String = page
        .evaluate::<(), String>("() => document.documentElement.lang", None)
        .await
        .unwrap();
    assert_eq!(lang, "ru");
    b.screenshot("2-russian").await;
    b.close().await;
}

/// A refusal from the catalogue (a job for a disabled Agent) reads in the
/// interface's language: the server sends its code, the page says it.
#[tokio::test]
async fn a_refused_job_says_why_in_russian() {
    let control = common::start_control().await;
    let agent = common::SimAgent::enrolled(&control, 42, "edge-1").await;
    let admin = common::admin_client(&control.base).await;
    let r = admin
        .post_empty(&format!("/api/v1/agents/{}/disable", agent.id()))
        .await;
    assert_eq!(r.status(), 200);

    let b = common::open_browser("refusal-in-russian", 1280, 800, "ru-RU").await;
    let page = &b.page;
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/jobs", control.base)).await;
    b.open_form("#open-new-job", "#job-agent").await;
    b.select("#job-agent", agent.id().as_str()).await;
    b.select("#job-kind", "restart_component").await;
    b.fill("#job-component", "sidecar-web").await;
    page.locator("#queue-job").click(None).await.unwrap();
    expect(page.locator("#job-error"))
        .with_timeout(Duration::from_secs(10))
        .to_contain_text("Agent отключён; он не получает задачи, пока его снова не включат.")
        .await
        .unwrap();
    b.screenshot("1-refused-in-russian").await;
    b.close().await;
}
