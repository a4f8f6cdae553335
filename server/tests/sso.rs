//! Single sign-on through a real OpenID provider (`test_kit::oidc`: the npm
//! package `oidc-provider`, run with Node.js), on both databases: mapped
//! roles, a network-scoped operator, a person waiting for approval, a group
//! taken away at the provider, groups that only userinfo holds, one-time
//! callbacks, and a callback finished by another replica.

mod common;

use common::{browser_like_client, start_with, Backend, Control, Options};
use serde_json::{json, Value};
use test_kit::oidc::{ClaimsIn, TestProvider, CLIENT_ID, CLIENT_SECRET};

const NAMESPACED: &str = "\"https://knotroute.example/claims\".groups";

fn users() -> Value {
    json!({
        "alice": {"password": "alice-pw", "name": "Alice Admin", "email": "alice@example.test", "groups": ["knotroute-admins"]},
        "bob": {"password": "bob-pw", "name": "Bob Operator", "email": "bob@example.test", "groups": ["knotroute-operators"]},
        "carol": {"password": "carol-pw", "name": "Carol", "email": "carol@example.test", "groups": ["visitors"]},
    })
}

/// A Control with single sign-on through a fresh provider, reached at
/// `public` (this Control's own address unless a test gives another).
struct Sso {
    control: Control,
    provider: TestProvider,
}

async fn listener() -> (std::net::TcpListener, String) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", l.local_addr().unwrap());
    (l, base)
}

fn sso_args(provider: &TestProvider, role_map: &str) -> Vec<String> {
    [
        "--oidc-issuer",
        &provider.issuer,
        "--oidc-client-id",
        CLIENT_ID,
        "--oidc-client-secret",
        CLIENT_SECRET,
        "--oidc-scopes",
        "profile email groups",
        "--oidc-groups-claim",
        NAMESPACED,
        "--oidc-role-map",
        role_map,
        "--oidc-provider-name",
        "Test IdP",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

async fn sso_control(backend: Backend, role_map: &str) -> Sso {
    sso_control_with(backend, role_map, &[]).await
}

/// As [`sso_control`], with more settings (`--oidc-default-role`, …).
async fn sso_control_with(backend: Backend, role_map: &str, more: &[&str]) -> Sso {
    sso_control_where(backend, role_map, more, ClaimsIn::IdToken).await
}

/// As [`sso_control_with`], with a provider that puts people's claims where
/// `claims` says.
async fn sso_control_where(
    backend: Backend,
    role_map: &str,
    more: &[&str],
    claims: ClaimsIn,
) -> Sso {
    let (l, public) = listener().await;
    let callback = format!("{public}/auth/oidc/callback");
    let provider = TestProvider::start_with(&callback, &users(), claims).await;
    let mut extra_args = sso_args(&provider, role_map);
    extra_args.extend(more.iter().map(|s| s.to_string()));
    let control = start_with(
        backend,
        Options {
            public_url: Some(public),
            listener: Some(l),
            extra_args,
            ..Default::default()
        },
    )
    .await;
    control.sign_in().await;
    Sso { control, provider }
}

/// Where a sign-in through the provider ended for `login`: the callback's
/// answer, with the browser (its cookies) that made it.
async fn sso_sign_in(
    start_at: &Control,
    provider: &TestProvider,
    login: &str,
    password: &str,
) -> (reqwest::Client, reqwest::Response) {
    let browser = browser_like_client(&start_at.base);
    let r = browser
        .get(start_at.url("/auth/oidc/start?next=%2Fjobs"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        303,
        "the start sends the browser to the provider"
    );
    let to_provider = r.headers()["location"].to_str().unwrap().to_string();
    assert!(to_provider.starts_with(&provider.issuer), "{to_provider}");
    assert!(
        to_provider.contains("code_challenge_method=S256") && to_provider.contains("nonce="),
        "PKCE and a nonce: {to_provider}"
    );
    let callback = provider
        .sign_in(&to_provider, login, password)
        .await
        .expect("the provider signs the person in");
    let answer = browser.get(&callback).send().await.unwrap();
    (browser, answer)
}

/// `/login?sso=<why>` when the callback sent the browser back there.
fn sent_back_because(r: &reqwest::Response) -> Option<String> {
    let location = r.headers().get("location")?.to_str().ok()?;
    location.strip_prefix("/login?sso=").map(str::to_string)
}

/// A page as someone not signed in gets it (the owner's client would be
/// sent on from the sign-in screen).
async fn page_signed_out(c: &Control, path: &str) -> String {
    let r = reqwest::get(c.url(path)).await.unwrap();
    assert_eq!(r.status(), 200, "{path}");
    r.text().await.unwrap()
}

/// `browser` may create a network there (an admin's right).
async fn creates_a_network(c: &Control, browser: &reqwest::Client) {
    let r = browser
        .post(c.url("/api/v1/networks"))
        .json(&json!({"name": "Made by SSO", "beacons": ["https://beacon.example:8080"]}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
}

async fn person(c: &Control, name: &str) -> Value {
    let list: Value = c.get_json("/api/v1/users").await;
    list.as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == name)
        .unwrap_or_else(|| panic!("{name} among {list}"))
        .clone()
}

async fn actors_of(c: &Control, action: &str) -> Vec<String> {
    let entries: Value = c.get_json(&format!("/api/v1/audit?action={action}")).await;
    entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["actor"].as_str().unwrap().to_string())
        .collect()
}

on_both_databases!(
    a_mapped_admin_signs_in_and_is_named_by_the_provider_account,
    |backend| async move {
        let Sso {
            control: c,
            provider,
        } = sso_control(
            backend,
            "knotroute-admins=admin,knotroute-operators=operator",
        )
        .await;
        // The sign-in screen offers the provider beside the password.
        let login = page_signed_out(&c, "/login").await;
        assert!(login.contains("Sign in with Test IdP"), "{login}");
        assert!(
            login.contains("href=\"/auth/oidc/start?next=/\""),
            "{login}"
        );

        let (alice, answer) = sso_sign_in(&c, &provider, "alice", "alice-pw").await;
        assert_eq!(answer.status(), 200, "{:?}", answer.headers());
        assert!(answer
            .headers()
            .get_all("set-cookie")
            .iter()
            .any(|v| v.to_str().unwrap().starts_with("kr_session=")));
        let page = answer.text().await.unwrap();
        assert!(
            page.contains("url=/jobs"),
            "goes on to where she started: {page}"
        );

        // An admin: may create a network, may not manage people.
        creates_a_network(&c, &alice).await;
        let r = alice.get(c.url("/api/v1/users")).send().await.unwrap();
        assert_eq!(r.status(), 403);

        let who = person(&c, "alice").await;
        assert_eq!(who["role"], "admin");
        assert_eq!(who["single_sign_on"], true);
        assert_eq!(who["pending"], false);
        assert_eq!(who["open_sessions"], 1);
        let me = format!("sso:{}/alice", provider.issuer);
        assert_eq!(actors_of(&c, "network.created").await, vec![me.clone()]);
        assert_eq!(actors_of(&c, "user.joined").await, vec![me.clone()]);
        let filtered: Value = c
            .get_json(&format!(
                "/api/v1/audit?person={}",
                me.replace(':', "%3A").replace('/', "%2F")
            ))
            .await;
        assert_eq!(filtered.as_array().unwrap().len(), 2, "{filtered}");

        // A second sign-in is the same person, not a new one.
        let (_, again) = sso_sign_in(&c, &provider, "alice", "alice-pw").await;
        assert_eq!(again.status(), 200);
        let list: Value = c.get_json("/api/v1/users").await;
        assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
        assert_eq!(person(&c, "alice").await["open_sessions"], 2);
    }
);

on_both_databases!(
    groups_that_only_userinfo_holds_are_read_from_there,
    |backend| async move {
        // The provider's ID token names the subject alone, as many do in
        // the code flow; groups, name and email come from userinfo.
        let Sso {
            control: c,
            provider,
        } = sso_control_where(
            backend,
            "knotroute-admins=admin,knotroute-operators=operator",
            &[],
            ClaimsIn::UserinfoOnly,
        )
        .await;
        let (alice, answer) = sso_sign_in(&c, &provider, "alice", "alice-pw").await;
        assert_eq!(answer.status(), 200, "{:?}", answer.headers());
        creates_a_network(&c, &alice).await;
        let who = person(&c, "alice").await;
        assert_eq!(
            (who["role"].as_str(), who["pending"].as_bool()),
            (Some("admin"), Some(false))
        );

        // Userinfo's groups decide for someone in none that maps, too: she waits.
        let (_, answer) = sso_sign_in(&c, &provider, "carol", "carol-pw").await;
        assert_eq!(sent_back_because(&answer).as_deref(), Some("pending"));
        assert_eq!(person(&c, "carol").await["pending"], true);
    }
);

on_both_databases!(
    an_operator_mapped_to_one_network_sees_only_that_one,
    |backend| async move {
        let Sso {
            control: c,
            provider,
        } = sso_control(
            backend,
            "knotroute-admins=admin,knotroute-operators=operator:Production",
        )
        .await;
        let production = c
            .created_network(json!({"name": "Production", "beacons": ["https://a.example:8080"]}))
            .await;
        let staging = c
            .created_network(json!({"name": "Staging", "beacons": ["https://b.example:8080"]}))
            .await;
        let (bob, answer) = sso_sign_in(&c, &provider, "bob", "bob-pw").await;
        assert_eq!(answer.status(), 200);
        let seen: Value = bob
            .get(c.url("/api/v1/networks"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let ids: Vec<&str> = seen
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [production.as_str()]);
        let r = bob
            .get(c.url(&format!("/api/v1/networks/{staging}")))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 404, "another network is not there for him");
        let who = person(&c, "bob").await;
        assert_eq!(
            (who["role"].as_str(), who["networks"].clone()),
            (Some("operator"), json!([production]))
        );
    }
);

on_both_databases!(
    a_person_no_group_maps_waits_until_the_owner_approves,
    |backend| async move {
        let Sso {
            control: c,
            provider,
        } = sso_control(backend, "knotroute-admins=admin").await;
        let (carol, answer) = sso_sign_in(&c, &provider, "carol", "carol-pw").await;
        assert_eq!(sent_back_because(&answer).as_deref(), Some("pending"));
        assert!(answer.headers().get("set-cookie").is_none(), "no session");
        let page = page_signed_out(&c, "/login?sso=pending").await;
        assert!(
            page.contains("approve"),
            "the sign-in screen says she waits: {page}"
        );
        assert_eq!(
            carol
                .get(c.url("/api/v1/networks"))
                .send()
                .await
                .unwrap()
                .status(),
            401
        );
        let waiting = person(&c, "carol").await;
        assert_eq!(waiting["pending"], true);
        assert_eq!(actors_of(&c, "user.pending").await.len(), 1);
        // Still waiting at the next sign-in.
        let (_, again) = sso_sign_in(&c, &provider, "carol", "carol-pw").await;
        assert_eq!(sent_back_because(&again).as_deref(), Some("pending"));

        // The owner chooses a role: that approves her.
        let id = waiting["id"].as_str().unwrap();
        let r = c
            .client
            .patch(c.url(&format!("/api/v1/users/{id}")))
            .json(&json!({"role": "viewer"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let (carol, answer) = sso_sign_in(&c, &provider, "carol", "carol-pw").await;
        assert_eq!(answer.status(), 200);
        assert_eq!(
            carol
                .get(c.url("/api/v1/networks"))
                .send()
                .await
                .unwrap()
                .status(),
            200
        );
        // The owner's choice stays though no group maps.
        let (_, again) = sso_sign_in(&c, &provider, "carol", "carol-pw").await;
        assert_eq!(again.status(), 200);
        assert_eq!(person(&c, "carol").await["role"], "viewer");

        // Disabled, she is refused at the callback.
        let r = c
            .client
            .patch(c.url(&format!("/api/v1/users/{id}")))
            .json(&json!({"disabled": true}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let (_, refused) = sso_sign_in(&c, &provider, "carol", "carol-pw").await;
        assert_eq!(sent_back_because(&refused).as_deref(), Some("disabled"));
    }
);

on_both_databases!(
    a_default_role_lets_people_in_but_never_undoes_the_owners_choice,
    |backend| async move {
        let Sso {
            control: c,
            provider,
        } = sso_control_with(
            backend,
            "knotroute-admins=admin",
            &["--oidc-default-role", "viewer"],
        )
        .await;
        let (carol, answer) = sso_sign_in(&c, &provider, "carol", "carol-pw").await;
        assert_eq!(answer.status(), 200, "the default role lets her in");
        assert_eq!(
            carol
                .get(c.url("/api/v1/networks"))
                .send()
                .await
                .unwrap()
                .status(),
            200
        );
        let who = person(&c, "carol").await;
        assert_eq!(
            (who["role"].clone(), who["pending"].clone()),
            (json!("viewer"), json!(false))
        );
        // The owner makes her an operator: her next sign-in keeps that.
        let id = who["id"].as_str().unwrap();
        let r = c
            .client
            .patch(c.url(&format!("/api/v1/users/{id}")))
            .json(&json!({"role": "operator"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let (_, again) = sso_sign_in(&c, &provider, "carol", "carol-pw").await;
        assert_eq!(again.status(), 200);
        assert_eq!(person(&c, "carol").await["role"], "operator");
    }
);

on_both_databases!(
    a_group_taken_away_at_the_provider_takes_the_role_at_the_next_sign_in,
    |backend| async move {
        let Sso {
            control: c,
            provider,
        } = sso_control(backend, "knotroute-admins=admin").await;
        let (first, answer) = sso_sign_in(&c, &provider, "alice", "alice-pw").await;
        assert_eq!(answer.status(), 200);
        assert_eq!(
            first
                .get(c.url("/api/v1/networks"))
                .send()
                .await
                .unwrap()
                .status(),
            200
        );
        let mut changed = users();
        changed["alice"]["groups"] = json!(["knotroute-users"]);
        provider.set_users(&changed).await;
        let (_, again) = sso_sign_in(&c, &provider, "alice", "alice-pw").await;
        assert_eq!(sent_back_because(&again).as_deref(), Some("pending"));
        assert_eq!(
            first
                .get(c.url("/api/v1/networks"))
                .send()
                .await
                .unwrap()
                .status(),
            401,
            "the session she had ends with the role"
        );
        let who = person(&c, "alice").await;
        assert_eq!(
            (who["pending"].clone(), who["open_sessions"].clone()),
            (json!(true), json!(0))
        );
        let entries: Value = c.get_json("/api/v1/audit?action=user.role_removed").await;
        assert!(
            entries[0]["detail"]
                .as_str()
                .unwrap()
                .contains("role admin taken away"),
            "{entries}"
        );
        // Back in the group, back in the role.
        provider.set_users(&users()).await;
        let (_, back) = sso_sign_in(&c, &provider, "alice", "alice-pw").await;
        assert_eq!(back.status(), 200);
        assert_eq!(person(&c, "alice").await["role"], "admin");
    }
);

on_both_databases!(
    a_callback_works_once_and_only_with_the_state_it_was_given,
    |backend| async move {
        let Sso {
            control: c,
            provider,
        } = sso_control(backend, "knotroute-admins=admin").await;
        let browser = browser_like_client(&c.base);
        let r = browser.get(c.url("/auth/oidc/start")).send().await.unwrap();
        let to_provider = r.headers()["location"].to_str().unwrap().to_string();
        let callback = provider
            .sign_in(&to_provider, "alice", "alice-pw")
            .await
            .unwrap();
        let forged = callback.replace("state=", "state=x");
        let r = browser.get(&forged).send().await.unwrap();
        assert_eq!(sent_back_because(&r).as_deref(), Some("expired"));
        // Another browser opening the callback link (someone sent it to a
        // victim) is not signed in with it: the flow belongs to the browser
        // that began it.
        let victim = browser_like_client(&c.base);
        let r = victim.get(&callback).send().await.unwrap();
        assert_eq!(sent_back_because(&r).as_deref(), Some("expired"));
        assert!(r.headers().get("set-cookie").is_none());
        let r = browser.get(&callback).send().await.unwrap();
        assert_eq!(r.status(), 200, "the real one still works");
        let r = browser.get(&callback).send().await.unwrap();
        assert_eq!(
            sent_back_because(&r).as_deref(),
            Some("expired"),
            "but once"
        );
        for hostile in [
            "/auth/oidc/callback",
            "/auth/oidc/callback?code=abc",
            "/auth/oidc/callback?state=abc&code=",
            "/auth/oidc/callback?error=access_denied&state=abc",
            "/auth/oidc/callback?error=%3Cscript%3E&state=abc",
        ] {
            let r = browser.get(c.url(hostile)).send().await.unwrap();
            assert_eq!(r.status(), 303, "{hostile}");
            let why = sent_back_because(&r).unwrap_or_default();
            assert!(
                ["expired", "refused"].contains(&why.as_str()),
                "{hostile}: {why}"
            );
        }
        // With no provider configured the endpoints are not there.
        let plain = common::start(backend).await;
        assert_eq!(plain.get("/auth/oidc/start").await.status(), 404);
        assert!(!page_signed_out(&plain, "/login")
            .await
            .contains("sso-sign-in"));
    }
);

/// Replicas share the database: the sign-in begun at one is finished at
/// the other (the provider returns to the public URL, which is replica B).
#[tokio::test]
async fn another_replica_finishes_the_callback_on_postgres() {
    let (la, _a_base) = listener().await;
    let (lb, b_base) = listener().await;
    let provider = TestProvider::start(&format!("{b_base}/auth/oidc/callback"), &users()).await;
    let a = start_with(
        Backend::Postgres,
        Options {
            public_url: Some(b_base.clone()),
            listener: Some(la),
            extra_args: sso_args(&provider, "knotroute-admins=admin"),
            ..Default::default()
        },
    )
    .await;
    let b = start_with(
        Backend::Postgres,
        Options {
            public_url: Some(b_base.clone()),
            listener: Some(lb),
            database_url: a.database_url.clone(),
            extra_args: sso_args(&provider, "knotroute-admins=admin"),
            ..Default::default()
        },
    )
    .await;
    let browser = browser_like_client(&a.base);
    let r = browser.get(a.url("/auth/oidc/start")).send().await.unwrap();
    let to_provider = r.headers()["location"].to_str().unwrap().to_string();
    let callback = provider
        .sign_in(&to_provider, "alice", "alice-pw")
        .await
        .unwrap();
    assert!(callback.starts_with(&b.base), "{callback}");
    let r = browser.get(&callback).send().await.unwrap();
    assert_eq!(r.status(), 200, "replica B finished what A began");
    let cookie = r
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_string())
        .find(|c| c.starts_with("kr_session="))
        .unwrap();
    let on_a = reqwest::Client::new()
        .get(a.url("/api/v1/networks"))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(on_a.status(), 200, "and the session works on A");
}
