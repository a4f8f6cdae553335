//! A job's own page in a real browser: a job that failed on its Agent shows
//! its full output; Retry queues it again and links old and new; the list
//! filters by kind in the query string.

mod common;

use playwright_rs::expect;
use std::time::Duration;

#[tokio::test]
async fn a_failed_job_shows_its_output_and_is_retried_from_its_page() {
    let control = common::start_control().await;
    let agent = common::SimAgent::enrolled(&control, 42, "edge-1").await;
    common::queue_restart(&control.base, &agent.id(), "sidecar-web").await;
    let job = agent.next_job().await;
    let failed_id = job["id"].as_str().unwrap().to_string();
    agent
        .finish(
            &failed_id,
            "failed",
            "$ docker restart c-web\nError: container kr-sidecar-web-knotroute-1 exited with code 1",
        )
        .await;

    let b = common::open_browser("jobs", 1280, 900, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/jobs?kind=deploy_sidecar", control.base))
        .await;
    b.expect_text("#jobs-empty", "No jobs match").await;
    b.goto(&format!(
        "{}/jobs?status=failed&kind=restart_component",
        control.base
    ))
    .await;
    b.wait_visible(&format!(".job-row[data-job='{failed_id}'] .job-link"))
        .await;
    b.hydrated().await;
    page.locator(".job-link").first().click(None).await.unwrap();
    expect(page.locator("#job-status"))
        .with_timeout(wait)
        .to_have_text("failed")
        .await
        .unwrap();
    b.expect_text("#job-result", "exited with code 1").await;
    b.expect_text("#job-payload", "sidecar-web").await;
    b.screenshot("1-failed-job").await;

    // Retry leads on to the new job's page, which names the one it retries.
    page.locator("#retry-this-job").click(None).await.unwrap();
    expect(page.locator("#job-status"))
        .with_timeout(wait)
        .to_have_text("pending")
        .await
        .unwrap();
    b.wait_visible(&format!("dl.facts a[href='/jobs/{failed_id}']"))
        .await;
    b.screenshot("2-retried").await;
    b.close().await;
}
