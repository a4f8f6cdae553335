//! Forms with a large fleet: 205 offline Agents sort before the one Agent
//! that can deploy. The deploy wizard still offers that Agent (the database
//! picks deployable ones), and the job form, which offers every Agent,
//! lists 200 and shows a search box that narrows the list by name.

mod common;

use playwright_rs::expect;
use std::time::{Duration, Instant};

/// How many `<option>`s `select` holds once it settles on `want`.
async fn wait_for_options(page: &playwright_rs::Page, select: &str, want: usize) {
    let started = Instant::now();
    loop {
        let have = page
            .locator(format!("{select} option"))
            .count()
            .await
            .unwrap();
        if have == want {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{select}: {have} options, expected {want}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The ID the SQL above gives bulk Agent `i`: digits spelled as letters, so
/// it parses as an Agent ID.
fn bulk_id(i: u32) -> String {
    let letter = |d: u32| char::from(b'a' + d as u8);
    format!(
        "ka_bulk{}{}{}{}",
        "a".repeat(25),
        letter(i / 100),
        letter(i / 10 % 10),
        letter(i % 10)
    )
}

#[tokio::test]
async fn a_search_narrows_agent_lists_past_200_and_deployable_agents_come_first() {
    let control = common::start_control().await;
    common::create_network(&control.base, "Office", &["https://beacon.example.net"]).await;
    let ready = common::SimAgent::enrolled(&control, 42, "edge-1").await;
    // 205 enrolled Agents that never sent a heartbeat, named "bulk-001"…,
    // with IDs of the real shape (`ka_` and 32 base32 letters, see bulk_id):
    // a view holding an ID no Agent could have would not even load.
    control
        .sql(&format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 205) \
             INSERT INTO agents (id, name, public_key, hostname, version, tags, disabled, \
             docker_available, docker_version, last_heartbeat_at, created_at, updated_at) \
             SELECT 'ka_bulk' || printf('%.25c', 'a') || char(97 + i / 100) \
             || char(97 + i / 10 % 10) || char(97 + i % 10), printf('bulk-%03d', i), 'key-' || i, '', '', '[]', false, \
             false, '', NULL, created_at, updated_at FROM n, agents WHERE agents.id = '{}'",
            ready.id()
        ))
        .await;

    let b = common::open_browser("choices", 1280, 900, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);
    b.sign_in(&control.base).await;

    // The deploy wizard offers the one Agent online with Docker, and no
    // search box: one Agent fits.
    b.goto(&format!("{}/infrastructure/beacons", control.base))
        .await;
    b.open_form("#open-deploy", "#deploy-agent").await;
    wait_for_options(page, "#deploy-agent", 2).await;
    expect(page.locator(format!("#deploy-agent option[value='{}']", ready.id())))
        .with_timeout(wait)
        .to_have_count(1)
        .await
        .unwrap();
    expect(page.locator("#deploy-agent-search"))
        .with_timeout(wait)
        .to_be_hidden()
        .await
        .unwrap();

    // The job form offers all 206: the first 200 by name, then a search.
    b.goto(&format!("{}/jobs", control.base)).await;
    b.open_form("#open-new-job", "#job-agent").await;
    wait_for_options(page, "#job-agent", 201).await;
    b.wait_visible("#job-agent-search").await;
    b.screenshot("1-search-offered").await;
    b.fill("#job-agent-search", "BULK-204").await;
    wait_for_options(page, "#job-agent", 2).await;
    expect(page.locator(format!("#job-agent option[value='{}']", bulk_id(204))))
        .with_timeout(wait)
        .to_have_count(1)
        .await
        .unwrap();
    // The one the first 200 left out is found too; a search that hides
    // it again unchooses it.
    b.fill("#job-agent-search", "edge").await;
    wait_for_options(page, "#job-agent", 2).await;
    b.select("#job-agent", ready.id().as_str()).await;
    b.fill("#job-agent-search", "no such agent").await;
    wait_for_options(page, "#job-agent", 1).await;
    b.expect_text("#new-job", "Nothing matches this search.")
        .await;
    b.screenshot("2-nothing-matches").await;
    b.close().await;
}
