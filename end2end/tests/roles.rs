//! Each role sees the controls it may use, and only those: an
//! operator and a viewer, invited by the owner and signed in in browsers of
//! their own, walk the screens. Hiding is a courtesy; the server refuses all
//! the same (server/tests/role_matrix.rs).

mod common;

use playwright_rs::expect;

/// Invites a person in `role` through the API and has them accept in a
/// browser of their own, which ends signed in on the Overview.
async fn person(control: &common::Control, role: &str) -> common::Browsing {
    let api = common::admin_client(&control.base).await;
    let r = api
        .post_json("/api/v1/users/invites", serde_json::json!({ "role": role }))
        .await;
    assert_eq!(r.status(), 201);
    let link = r.json::<serde_json::Value>().await.unwrap()["link"]
        .as_str()
        .unwrap()
        .to_string();
    let path = &link[link.find("/welcome/").expect("a welcome link")..];
    let b = common::open_browser(&format!("roles-{role}"), 1280, 900, "en-US").await;
    common::accept_welcome(&b, &control.base, path, role).await;
    b
}

async fn absent(b: &common::Browsing, selector: &str, why: &str) {
    assert_eq!(b.page.locator(selector).count().await.unwrap(), 0, "{why}");
}

#[tokio::test]
async fn an_operator_and_a_viewer_see_only_the_controls_their_role_allows() {
    let control = common::start_control().await;
    let network = common::create_network(&control.base, "Office", &[]).await;
    let network_page = format!("{}/networks/{network}", control.base);

    // An operator runs the network: jobs, Beacon checks, Diagnose, invites;
    // not profiles, Agents' lifecycle, install tokens or settings.
    let operator = person(&control, "operator").await;
    operator.goto(&format!("{}/jobs", control.base)).await;
    operator.wait_visible("#open-new-job").await;
    operator.goto(&format!("{}/networks", control.base)).await;
    operator.wait_visible("#networks-table").await;
    absent(&operator, "#new-network", "an operator creates no profiles").await;
    operator.goto(&network_page).await;
    operator.wait_visible("#diagnose-run").await;
    expect(operator.page.locator("#network-name"))
        .to_be_disabled()
        .await
        .unwrap();
    expect(operator.page.locator("#network-name"))
        .to_have_value("Office")
        .await
        .unwrap();
    absent(
        &operator,
        "#save-network:visible",
        "the profile is read-only",
    )
    .await;
    absent(&operator, "#delete-network", "nor deleted by an operator").await;
    operator.screenshot("operator-network").await;
    operator
        .goto(&format!("{}/networks/new", control.base))
        .await;
    operator
        .expect_text("#not-for-role", "Your role does not allow this")
        .await;
    absent(&operator, "#network-form", "no form to fill in for nothing").await;
    operator
        .goto(&format!("{}/infrastructure", control.base))
        .await;
    operator.wait_visible("#agents-empty").await;
    absent(
        &operator,
        "#add-agent",
        "an operator issues no install tokens",
    )
    .await;
    operator.goto(&format!("{}/onboarding", control.base)).await;
    operator.wait_visible("#open-new-invite").await;
    operator.goto(&format!("{}/settings", control.base)).await;
    operator.wait_visible("#webhook-current").await;
    operator
        .wait_visible("#settings-tabs a[href=\"/settings/tokens\"]")
        .await;
    absent(
        &operator,
        "#webhook-form",
        "an operator changes no settings",
    )
    .await;
    absent(&operator, "#send-test-alert", "nor sends test alerts").await;
    absent(
        &operator,
        "#settings-tabs a[href=\"/settings/people\"]",
        "nor manages people",
    )
    .await;
    operator.screenshot("operator-settings").await;
    operator.close().await;

    // A viewer reads and changes nothing.
    let viewer = person(&control, "viewer").await;
    viewer.goto(&format!("{}/jobs", control.base)).await;
    viewer.wait_visible("#jobs-empty").await;
    absent(&viewer, "#new-job", "a viewer queues no jobs").await;
    viewer.goto(&network_page).await;
    viewer.wait_visible("#onboard-users").await;
    absent(&viewer, "#diagnose", "a viewer runs no Diagnose").await;
    expect(viewer.page.locator("#network-name"))
        .to_be_disabled()
        .await
        .unwrap();
    viewer.goto(&format!("{}/onboarding", control.base)).await;
    viewer.wait_visible("#invites").await;
    absent(&viewer, "#create-invite", "a viewer creates no invites").await;
    viewer
        .goto(&format!("{}/infrastructure/beacons", control.base))
        .await;
    viewer.wait_visible("#beacons-empty").await;
    absent(&viewer, "#add-beacon", "a viewer adds no Beacons").await;
    absent(&viewer, "#deploy-beacon", "nor deploys them").await;
    viewer.screenshot("viewer-beacons").await;
    viewer.close().await;

    // The owner still has every control.
    let owner = common::open_browser("roles-owner", 1280, 900, "en-US").await;
    owner.sign_in(&control.base).await;
    owner.goto(&network_page).await;
    owner.wait_visible("#delete-network").await;
    expect(owner.page.locator("#network-name"))
        .to_be_enabled()
        .await
        .unwrap();
    owner
        .goto(&format!("{}/infrastructure", control.base))
        .await;
    owner.wait_visible("#add-agent").await;
    owner.close().await;
}
