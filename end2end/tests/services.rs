//! Services in a real browser, with a simulated Agent speaking the real agent
//! API: the publish form stops on a network without a Beacon and says why;
//! with one, it refuses a missing Docker network beside the field, then queues
//! a deploy that the Agent takes; the service shows "not yet" with the reason,
//! then its .knot address; removing it asks first. Desktop and phone sizes.
//! A name Compose would refuse is explained at its field; a service
//! published with a catalog title is listed by it, and "Change" redeploys a
//! new title under the same name. Its identity backup is taken and
//! verified from the list ("no backup", then "not verified", "verified").

mod common;

use playwright_rs::expect;
use serde_json::{json, Value};
use std::time::Duration;

fn sidecar(service: &str) -> Value {
    json!([{"id": "sidecar-web", "kind": "sidecar", "name": "web",
        "container": "kr-sidecar-web-knotroute-1", "image": "ghcr.io/localzet/knotroute-sidecar:1.0.0",
        "status": "running", "version": "1.0.0", "address": "", "service": service,
        "target": "app:8080", "labels": {"io.knotroute.managed": "true"}}])
}

/// The job a click queued, once the Agent can claim it; else what the page
/// said (console errors, failed requests), to tell a lost click from a refusal.
async fn queued_by_the_page(
    b: &common::Browsing,
    agent: &common::SimAgent,
    wait: Duration,
) -> Value {
    let deadline = std::time::Instant::now() + wait;
    loop {
        if let Some(job) = agent.claim().await {
            return job;
        }
        if std::time::Instant::now() > deadline {
            b.fail("no job was queued").await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn an_admin_publishes_a_service_and_sees_its_knot_address() {
    let control = common::start_control().await;
    let bare = common::create_network(&control.base, "Bare", &[]).await;
    let office =
        common::create_network(&control.base, "Office", &["https://beacon.example.net"]).await;
    let agent = common::SimAgent::enrolled(&control, 42, "edge-1").await;

    let b = common::open_browser("services", 1280, 900, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/services", control.base)).await;
    b.wait_visible("#services-empty").await;
    b.open_form("#open-publish", "#service-agent").await;

    // A network without a Beacon stops the form, saying why and where to fix it.
    b.select("#service-agent", agent.id().as_str()).await;
    b.select("#service-network", bare.as_str()).await;
    b.expect_text("#service-no-beacon", "no Beacon URL").await;
    b.wait_visible(&format!("#service-no-beacon a[href='/networks/{bare}']"))
        .await;
    b.wait_visible("#publish-submit:disabled").await;
    b.screenshot("1-no-beacon").await;

    // With a Beacon: a missing Docker network is refused at its field, then it is queued.
    b.select("#service-network", office.as_str()).await;
    b.expect_text("#service-beacons", "https://beacon.example.net")
        .await;
    b.fill("#service-name", "web").await;
    b.fill("#service-target", "app:8080").await;
    page.locator("#publish-submit").click(None).await.unwrap();
    b.expect_text("#service-docker-network-error", "required")
        .await;
    b.fill("#service-docker-network", "apps").await;
    page.locator("#publish-submit").click(None).await.unwrap();
    b.wait_visible("#service-queued").await;
    b.expect_text(
        ".service-row[data-service='web'] .service-address",
        "not yet",
    )
    .await;

    // The Agent takes the deploy, reports the sidecar running, then its address.
    let job = agent.next_job().await;
    assert_eq!(job["kind"], "deploy_sidecar");
    assert_eq!(
        job["payload"]["beacons"],
        json!(["https://beacon.example.net"])
    );
    assert_eq!(job["payload"]["docker_network"], "apps");
    agent
        .finish(job["id"].as_str().unwrap(), "succeeded", "verified")
        .await;
    agent.report_components(sidecar("")).await;
    b.goto(&format!("{}/services", control.base)).await;
    b.expect_text(
        ".service-row[data-service='web'] .pending-reason",
        "has not announced its address yet",
    )
    .await;
    agent
        .report_components(sidecar(
            "shtoxk2kzjmu6gcfel27xaspuhao6qeo5yvfk4suga225izx4vj6rqpc.knot",
        ))
        .await;
    b.goto(&format!("{}/services", control.base)).await;
    expect(page.locator(".service-row[data-service='web'] .knot-address"))
        .with_timeout(wait)
        .to_have_text("shtoxk2kzjmu6gcfel27xaspuhao6qeo5yvfk4suga225izx4vj6rqpc.knot")
        .await
        .unwrap();
    b.expect_text(".service-row[data-service='web']", "Office")
        .await;
    b.screenshot("2-published").await;

    // Its identity backup: none yet; "Back up" queues one for the Agent,
    // whose report shows; "Verify" proves it.
    b.expect_text(
        ".service-row[data-service='web'] .service-backup",
        "no backup",
    )
    .await;
    let address = "shtoxk2kzjmu6gcfel27xaspuhao6qeo5yvfk4suga225izx4vj6rqpc.knot";
    let mut report = json!({"component_id": "sidecar-web", "archive": "20261204T120000Z.tar",
        "directory": "/data/backups/sidecar-web", "size_bytes": 10240,
        "sha256": "ab".repeat(32), "taken_at": "2026-12-04T12:00:00Z", "address": address,
        "verified": false, "kept": 1});
    // "Back up" asks how many to keep and how often, under the list; a bad
    // number is refused by the server's rule, and the question stays.
    page.locator(".service-row[data-service='web'] .backup-service")
        .click(None)
        .await
        .unwrap();
    b.fill("#service-question .backup-keep", "0").await;
    page.locator("#confirm-backup").click(None).await.unwrap();
    b.expect_text("#services-error", "from 1 to 100").await;
    b.fill("#service-question .backup-keep", "3").await;
    b.select("#service-question .backup-every", "week").await;
    b.screenshot("2a-backup-question").await;
    page.locator("#confirm-backup").click(None).await.unwrap();
    let job = queued_by_the_page(&b, &agent, wait).await;
    assert_eq!(job["kind"], "backup_volume");
    assert_eq!(
        job["payload"],
        json!({"component_id": "sidecar-web", "keep": 3, "every": "week"})
    );
    b.expect_text(".service-row[data-service='web'] .backup-queued", "Queued")
        .await;
    for (job, verified, badge, shown) in [
        (job, false, ".badge.warn", "not verified"),
        (Value::Null, true, ".badge.ok", "verified"),
    ] {
        let job = if job.is_null() {
            page.locator(".service-row[data-service='web'] .verify-backup")
                .click(None)
                .await
                .unwrap();
            let job = queued_by_the_page(&b, &agent, wait).await;
            assert_eq!(job["kind"], "verify_backup");
            job
        } else {
            job
        };
        assert_eq!(job["payload"]["component_id"], "sidecar-web");
        report["verified"] = json!(verified);
        let r = agent
            .post(
                "/api/v1/agents/jobs/result",
                json!({"job_id": job["id"], "status": "succeeded", "result": "ok", "backup": report}),
            )
            .await;
        assert_eq!(r.status(), 200);
        b.goto(&format!("{}/services", control.base)).await;
        expect(page.locator(format!(
            ".service-row[data-service='web'] .service-backup {badge}"
        )))
        .with_timeout(wait)
        .to_have_text(shown)
        .await
        .unwrap();
    }
    b.expect_text(
        ".service-row[data-service='web'] .backup-plan",
        "every week, keeps 3",
    )
    .await;
    b.expect_text(
        ".service-row[data-service='web'] .backup-detail",
        "20261204T120000Z.tar",
    )
    .await;
    b.screenshot("2b-backed-up").await;

    // A verification that fails: the row follows its job through the live
    // stream, queued while the Agent has it, then a link to the failed job.
    b.wait_visible("#live-status[data-live='on']").await;
    page.locator(".service-row[data-service='web'] .verify-backup")
        .click(None)
        .await
        .unwrap();
    let failing = queued_by_the_page(&b, &agent, wait).await;
    b.expect_text(".service-row[data-service='web'] .backup-queued", "Queued")
        .await;
    let r = agent
        .post(
            "/api/v1/agents/jobs/result",
            json!({"job_id": failing["id"], "status": "failed", "result": "docker: no space left on device"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    b.expect_text(
        ".service-row[data-service='web'] .backup-job-failed",
        "The job did not succeed.",
    )
    .await;
    let href = page
        .locator(".service-row[data-service='web'] .backup-job-failed a")
        .get_attribute("href")
        .await
        .unwrap();
    assert_eq!(
        href.as_deref(),
        Some(format!("/jobs/{}", failing["id"].as_str().unwrap()).as_str())
    );
    assert_eq!(
        page.locator(".service-row[data-service='web'] .backup-queued")
            .count()
            .await
            .unwrap(),
        0
    );

    // Removing asks first, then queues the removal for the Agent.
    page.locator(".service-row[data-service='web'] .remove-service")
        .click(None)
        .await
        .unwrap();
    b.expect_text("#service-question-explain", "data volume")
        .await;
    page.locator("#confirm-remove-service")
        .click(None)
        .await
        .unwrap();
    let removal = queued_by_the_page(&b, &agent, wait).await;
    assert_eq!(removal["kind"], "remove_component");
    assert_eq!(removal["payload"]["component_id"], "sidecar-web");

    let phone = common::open_browser("services-phone", 390, 844, "en-US").await;
    phone.sign_in(&control.base).await;
    phone.goto(&format!("{}/services", control.base)).await;
    phone.wait_visible(".service-row").await;
    phone.screenshot("3-services-phone").await;
    phone.close().await;
    b.close().await;
}

#[tokio::test]
async fn a_service_published_with_a_title_is_listed_by_it_and_a_refused_name_is_explained() {
    let control = common::start_control().await;
    let office =
        common::create_network(&control.base, "Office", &["https://beacon.example.net"]).await;
    let agent = common::SimAgent::enrolled(&control, 42, "edge-1").await;

    let b = common::open_browser("services-catalog", 1280, 900, "en-US").await;
    let page = &b.page;
    let wait = Duration::from_secs(10);
    b.sign_in(&control.base).await;
    b.goto(&format!("{}/services", control.base)).await;
    b.open_form("#open-publish", "#service-agent").await;
    b.select("#service-agent", agent.id().as_str()).await;
    b.select("#service-network", office.as_str()).await;
    b.wait_visible("#service-beacons").await;
    for (field, value) in [
        ("#service-name", "my.app"),
        ("#service-target", "photos:2342"),
        ("#service-docker-network", "apps"),
        ("#service-title", "Family photos"),
        ("#service-tags", "Photos, home-lab"),
    ] {
        b.fill(field, value).await;
    }
    b.select("#service-scheme", "https").await;

    // A dot would break the Compose project name: refused at the field, with the rule.
    page.locator("#publish-submit").click(None).await.unwrap();
    b.expect_text(
        "#service-name-error",
        "1–63 lowercase letters, digits, - or _",
    )
    .await;
    b.screenshot("1-name-refused").await;
    b.fill("#service-name", "photos").await;
    page.locator("#publish-submit").click(None).await.unwrap();
    b.wait_visible("#service-queued").await;
    expect(page.locator(".service-row[data-service='photos'] .service-title"))
        .with_timeout(wait)
        .to_have_text("Family photos")
        .await
        .unwrap();
    expect(page.locator(".service-row[data-service='photos'] .service-name"))
        .with_timeout(wait)
        .to_have_text("photos")
        .await
        .unwrap();
    b.screenshot("2-listed-by-title").await;

    let job = agent.next_job().await;
    assert_eq!(job["payload"]["name"], "photos");
    assert_eq!(job["payload"]["title"], "Family photos");
    assert_eq!(job["payload"]["tags"], json!(["photos", "home-lab"]));
    assert_eq!(job["payload"]["scheme"], "https");
    agent
        .finish(job["id"].as_str().unwrap(), "succeeded", "verified")
        .await;

    // "Change" keeps the name (and so the address) and redeploys the new
    // title: its link opens the form filled in.
    b.goto(&format!("{}/services", control.base)).await;
    page.locator(".service-row[data-service='photos'] .change-service")
        .click(None)
        .await
        .unwrap();
    b.wait_visible("#service-title").await;
    expect(page.locator("#service-title"))
        .with_timeout(wait)
        .to_have_value("Family photos")
        .await
        .unwrap();
    b.fill("#service-title", "Photos").await;
    page.locator("#publish-submit").click(None).await.unwrap();
    b.wait_visible("#service-queued").await;
    let redeploy = agent.next_job().await;
    assert_eq!(redeploy["kind"], "deploy_sidecar");
    assert_eq!(redeploy["payload"]["name"], "photos", "same component");
    assert_eq!(redeploy["payload"]["title"], "Photos");
    expect(page.locator(".service-row[data-service='photos'] .service-title"))
        .with_timeout(wait)
        .to_have_text("Photos")
        .await
        .unwrap();
    b.close().await;
}
