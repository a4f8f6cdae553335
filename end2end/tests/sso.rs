//! Single sign-on in a real browser, desktop and phone, against a real
//! OpenID provider (`oidc-provider` from npm, run with Node.js): a mapped
//! admin, an operator mapped to one network, a person no group maps who
//! waits until the owner approves them in Settings → Users, and a person
//! whose group the provider took away, who loses the role at the next
//! sign-in.

mod common;

use common::Browsing;
use serde_json::{json, Value};
use test_kit::oidc::{TestProvider, CLIENT_ID, CLIENT_SECRET};

fn users() -> Value {
    json!({
        "alice": {"password": "alice-pw", "name": "Alice Admin", "email": "alice@example.test", "groups": ["knot-admins"]},
        "bob": {"password": "bob-pw", "name": "Bob Operator", "email": "bob@example.test", "groups": ["knot-ops"]},
        "carol": {"password": "carol-pw", "name": "Carol", "email": "carol@example.test", "groups": []},
    })
}

/// Clicks "Sign in with Test IdP" on the sign-in screen and, when the
/// provider asks, signs in there as `login`.
async fn through_provider(b: &Browsing, base: &str, login: &str, password: &str, issuer: &str) {
    b.goto(&format!("{base}/login")).await;
    b.expect_text("#sso-sign-in", "Sign in with Test IdP").await;
    b.page.locator("#sso-sign-in").click(None).await.unwrap();
    b.wait_visible("input[name=login]").await;
    assert!(
        b.page.url().starts_with(issuer),
        "at the provider: {}",
        b.page.url()
    );
    b.fill("input[name=login]", login).await;
    b.fill("input[name=password]", password).await;
    b.page
        .locator("button[type=submit]")
        .click(None)
        .await
        .unwrap();
}

async fn wait_for_role(base: &str, name: &str, role: &str) {
    let api = common::admin_client(base).await;
    for _ in 0..50 {
        let list: Value = api.get_json("/api/v1/users").await;
        let found = list
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["name"] == name)
            .cloned();
        if found.is_some_and(|u| u["role"] == role && u["pending"] == false) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{name} did not become {role}");
}

async fn sso(width: u32, height: u32, name: &str) {
    let port = common::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let provider = TestProvider::start(&format!("{base}/auth/oidc/callback"), &users()).await;
    let issuer = provider.issuer.clone();
    let control = common::start_control_at(
        port,
        &[
            ("KNOTROUTE_CONTROL_PUBLIC_URL", base.as_str()),
            ("KNOTROUTE_CONTROL_OIDC_ISSUER", issuer.as_str()),
            ("KNOTROUTE_CONTROL_OIDC_CLIENT_ID", CLIENT_ID),
            ("KNOTROUTE_CONTROL_OIDC_CLIENT_SECRET", CLIENT_SECRET),
            ("KNOTROUTE_CONTROL_OIDC_SCOPES", "profile email groups"),
            (
                "KNOTROUTE_CONTROL_OIDC_ROLE_MAP",
                "knot-admins=admin,knot-ops=operator:Production",
            ),
            ("KNOTROUTE_CONTROL_OIDC_PROVIDER_NAME", "Test IdP"),
        ],
    )
    .await;
    common::create_network(&control.base, "Production", &["https://a.example:8080"]).await;
    common::create_network(&control.base, "Staging", &["https://b.example:8080"]).await;

    // A mapped admin: in at once, on the Overview.
    let alice = common::open_browser(&format!("{name}-alice"), width, height, "en-US").await;
    alice.goto(&format!("{base}/login")).await;
    alice.screenshot("1-sign-in-screen").await;
    through_provider(&alice, &base, "alice", "alice-pw", &issuer).await;
    alice
        .page
        .wait_for_url(&format!("{base}/"), None)
        .await
        .unwrap();
    alice.hydrated().await;
    alice.screenshot("2-admin-signed-in").await;
    wait_for_role(&base, "alice", "admin").await;

    // An operator mapped to Production sees Production only.
    let bob = common::open_browser(&format!("{name}-bob"), width, height, "en-US").await;
    through_provider(&bob, &base, "bob", "bob-pw", &issuer).await;
    bob.page
        .wait_for_url(&format!("{base}/"), None)
        .await
        .unwrap();
    bob.goto(&format!("{base}/networks")).await;
    bob.expect_text("main", "Production").await;
    assert!(
        !bob.page
            .locator("main")
            .text_content()
            .await
            .unwrap()
            .unwrap_or_default()
            .contains("Staging"),
        "Staging is not his network"
    );
    bob.screenshot("3-operator-one-network").await;

    // No group maps for Carol: she waits, and the sign-in screen says so.
    let carol = common::open_browser(&format!("{name}-carol"), width, height, "en-US").await;
    through_provider(&carol, &base, "carol", "carol-pw", &issuer).await;
    carol
        .page
        .wait_for_url(&format!("{base}/login?sso=pending"), None)
        .await
        .unwrap();
    carol.hydrated().await;
    carol.expect_text("#sso-notice", "approve").await;
    carol.screenshot("4-waiting").await;

    // The owner approves her in Settings → Users by saving a role.
    let owner = common::open_browser(&format!("{name}-owner"), width, height, "en-US").await;
    owner.sign_in(&base).await;
    owner.goto(&format!("{base}/settings/people")).await;
    // Waiting people come first.
    owner
        .expect_text("#users-table .user-row >> nth=0", "carol")
        .await;
    owner
        .expect_text(
            "#users-table .user-row:has-text(\"carol\")",
            "waiting for approval",
        )
        .await;
    owner.screenshot("5-owner-sees-waiting").await;
    owner
        .select(
            "#users-table .user-row:has-text(\"carol\") select",
            "viewer",
        )
        .await;
    owner
        .page
        .locator("#users-table .user-row:has-text(\"carol\") .role-form button[type=submit]")
        .click(None)
        .await
        .unwrap();
    wait_for_role(&base, "carol", "viewer").await;
    // Her next sign-in opens Control (the provider remembers her).
    carol
        .page
        .locator("#sso-sign-in")
        .click(None)
        .await
        .unwrap();
    carol
        .page
        .wait_for_url(&format!("{base}/"), None)
        .await
        .unwrap();
    carol.hydrated().await;
    carol.screenshot("6-approved").await;

    // The provider takes Alice out of her group: her next sign-in takes the
    // role away, and the session she had ends.
    let mut changed = users();
    changed["alice"]["groups"] = json!([]);
    provider.set_users(&changed).await;
    // Still signed in, the sign-in screen would send her on: she begins a
    // sign-in directly, as a bookmark to it would (the provider remembers her).
    alice
        .page
        .goto(&format!("{base}/auth/oidc/start"), None)
        .await
        .unwrap();
    alice
        .page
        .wait_for_url(&format!("{base}/login?sso=pending"), None)
        .await
        .unwrap();
    alice.hydrated().await;
    alice.expect_text("#sso-notice", "approve").await;
    alice
        .page
        .goto(&format!("{base}/settings"), None)
        .await
        .unwrap();
    alice
        .page
        .wait_for_url(&format!("{base}/login?next=%2Fsettings"), None)
        .await
        .unwrap();
    alice.screenshot("7-group-removed").await;

    for b in [alice, bob, carol, owner] {
        b.close().await;
    }
    drop(control);
}

crate::on_desktop_and_phone!(sso, "sso");
