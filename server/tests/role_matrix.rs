//! The role matrix (issue 24): every admin route of the JSON API, as the
//! OpenAPI document lists them, called as every role (a person in each role,
//! the break-glass owner, the owner's read and write tokens, a person's
//! token). Each route's rule is written here from the role list; a
//! route without a rule fails the test, so no route ships without one.
//!
//! A refused call answers 403 before its body is read; an allowed one gets
//! past the gate (its answer to an empty body or a made-up ID does not matter
//! here, but it is never 401, 403 or a 5xx). Network scope is not built yet,
//! and the UI's server functions are not in this matrix yet.

mod common;

use common::people::join;
use serde_json::{json, Value};
use server::domain::access::roles::{ActionKind, Role, RoleRules};

/// What a route needs.
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// Reading: every role.
    Read,
    /// This action (`Role::allows`).
    Act(ActionKind),
}

/// The role list, route by route.
fn rule(method: &str, path: &str) -> Rule {
    use ActionKind::*;
    use Rule::*;
    match (method, path) {
        ("get", _)
            if !matches!(
                path,
                "/api/v1/tokens" | "/api/v1/users" | "/api/v1/networks/{id}/diagnostics"
            ) =>
        {
            Read
        }
        ("get", "/api/v1/networks/{id}/diagnostics") => Act(CheckBeacons),
        (
            "post" | "put" | "delete",
            "/api/v1/networks" | "/api/v1/networks/{id}" | "/api/v1/beacons",
        ) => Act(EditNetworks),
        ("post", "/api/v1/beacons/check") => Act(CheckBeacons),
        ("post", "/api/v1/jobs" | "/api/v1/jobs/{id}/cancel" | "/api/v1/jobs/{id}/retry") => {
            Act(RunJobs)
        }
        ("post" | "delete", "/api/v1/invites" | "/api/v1/invites/{id}") => Act(ManageInvites),
        ("post" | "delete", p) if p.starts_with("/api/v1/agents/{id}") => Act(ManageAgents),
        ("post", "/api/v1/revoked-keys/{agent_id}/allow") => Act(ManageAgents),
        ("post", "/api/v1/install-tokens" | "/api/v1/install-tokens/{id}/revoke") => {
            Act(ManageInstallTokens)
        }
        ("put" | "post", "/api/v1/settings/alerts" | "/api/v1/settings/alerts/test") => {
            Act(ChangeSettings)
        }
        (_, "/api/v1/tokens" | "/api/v1/tokens/{id}/revoke") => Act(ManageOwnApiTokens),
        (_, p) if p.starts_with("/api/v1/users") => Act(ManageUsers),
        _ => panic!(
            "{method} {path} has no rule in the role matrix: add one from the issue's role list"
        ),
    }
}

/// A made-up ID of the right shape for each path parameter.
fn concrete(path: &str) -> String {
    let agent = protocol::signing::AgentKey::from_seed([9; 32])
        .public_key()
        .agent_id()
        .to_string();
    let id = if path.starts_with("/api/v1/agents/") {
        agent.clone()
    } else if path.starts_with("/api/v1/networks/") {
        protocol::NetworkId::from_random_bytes([1; 32]).to_string()
    } else if path.starts_with("/api/v1/jobs/") {
        protocol::JobId::from_random_bytes([2; 16]).to_string()
    } else if path.starts_with("/api/v1/invites/") {
        protocol::InviteId::from_random_bytes([3; 8]).to_string()
    } else if path.starts_with("/api/v1/install-tokens/") {
        protocol::InstallTokenId::from_random_bytes([4; 8]).to_string()
    } else if path.starts_with("/api/v1/tokens/") {
        protocol::ApiTokenId::from_token_chars("abcdefghijklmnop").to_string()
    } else {
        protocol::UserId::from_random_bytes([5; 8]).to_string()
    };
    path.replace("{id}", &id).replace("{agent_id}", &agent)
}

/// One caller of the matrix: how it authenticates and what it may do.
struct Caller {
    label: &'static str,
    client: reqwest::Client,
    bearer: Option<String>,
    role: Role,
    /// A token: GET only when `read`, never the token routes.
    token: Option<protocol::tokens::TokenScope>,
}

async fn token(c: &common::Control, by: &reqwest::Client, scope: &str) -> String {
    let r = by
        .post(c.url("/api/v1/tokens"))
        .json(&json!({ "name": format!("matrix {scope}"), "scope": scope }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string()
}

fn expected_allowed(caller: &Caller, method: &str, path: &str) -> bool {
    use protocol::tokens::TokenScope;
    if let Some(scope) = caller.token {
        if path.starts_with("/api/v1/tokens") || (scope == TokenScope::Read && method != "get") {
            return false;
        }
    }
    match rule(method, path) {
        Rule::Read => true,
        Rule::Act(action) => caller.role.allows(action),
    }
}

on_both_databases!(
    every_route_answers_every_role_as_the_table_says,
    |backend| async move {
        use protocol::tokens::TokenScope;
        let c = common::signed_in(backend).await;
        let mut callers = vec![Caller {
            label: "owner (break-glass)",
            client: c.client.clone(),
            bearer: None,
            role: Role::Owner,
            token: None,
        }];
        for role in Role::ALL {
            let name = format!("m-{role}");
            callers.push(Caller {
                label: role.as_str(),
                client: join(&c, role.as_str(), &name).await,
                bearer: None,
                role,
                token: None,
            });
        }
        let script = reqwest::Client::new();
        for (scope, role) in [
            (TokenScope::Read, Role::Viewer),
            (TokenScope::Write, Role::Admin),
        ] {
            callers.push(Caller {
                label: if scope == TokenScope::Read {
                    "owner's read token"
                } else {
                    "owner's write token"
                },
                client: script.clone(),
                bearer: Some(token(&c, &c.client, scope.as_str()).await),
                role,
                token: Some(scope),
            });
        }
        let operator = callers
            .iter()
            .find(|k| k.label == "operator")
            .unwrap()
            .client
            .clone();
        callers.push(Caller {
            label: "operator's write token",
            client: script.clone(),
            bearer: Some(token(&c, &operator, "write").await),
            role: Role::Operator,
            token: Some(TokenScope::Write),
        });

        let doc: Value = reqwest::get(c.url("/api/v1/openapi.json"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let mut routes = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            // The Agent protocol (signed by Agents) and signing in are not admin routes.
            let agent_protocol = path.starts_with("/api/v1/agents/") && !path.contains('{');
            if agent_protocol || path == "/api/v1/session" {
                continue;
            }
            for method in item.as_object().unwrap().keys() {
                routes += 1;
                let url = c.url(&concrete(path));
                for caller in &callers {
                    let verb =
                        reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
                    let mut request = caller.client.request(verb, &url).json(&json!({}));
                    if let Some(bearer) = &caller.bearer {
                        request = request.bearer_auth(bearer);
                    }
                    let answer = request.send().await.unwrap();
                    let status = answer.status().as_u16();
                    let what = format!("{method} {path} as {}", caller.label);
                    assert!(status < 500 && status != 401, "{what}: {status}");
                    if expected_allowed(caller, method, path) {
                        assert_ne!(
                            status,
                            403,
                            "{what} is allowed: {}",
                            answer.text().await.unwrap()
                        );
                    } else {
                        assert_eq!(status, 403, "{what} is refused");
                        let body: Value = answer.json().await.unwrap();
                        if caller.token.is_none() {
                            assert_eq!(body["code"], "forbidden", "{what}: {body}");
                        }
                    }
                }
            }
        }
        assert!(
            routes >= 40,
            "only {routes} admin routes: the document lost some"
        );
    }
);
