//! The role matrix: every admin route of the JSON API, as the
//! OpenAPI document lists them, called as every role (a person in each role,
//! the break-glass owner, the owner's read and write tokens, a person's
//! token), and every server function of the web UI, as the server's own
//! registry lists them, called by a person in each role and the owner. Each
//! route's rule is written in common/route_rules.rs from the role list
//! (docs/src/people.md, "Roles"); a route without a rule fails
//! the test, so no route ships without one.
//!
//! A refused call answers 403 before its body is read; an allowed one gets
//! past the gate (its answer to an empty body or a made-up ID does not matter
//! here, but it is never 401, 403 or a 5xx).
//! A person limited to some networks is walked through the same tables in
//! network_scope.rs.

mod common;

use common::people::join;
use common::route_rules::{concrete, rule, ui_rule, Args, Ids, Rule};
use serde_json::{json, Value};
use server::domain::access::roles::{Role, RoleRules};

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

/// The break-glass owner and a signed-in person in each role.
async fn people(c: &common::Control) -> Vec<Caller> {
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
            client: join(c, role.as_str(), &name).await,
            bearer: None,
            role,
            token: None,
        });
    }
    callers
}

fn expected_allowed(caller: &Caller, method: &str, path: &str) -> bool {
    use protocol::tokens::TokenScope;
    if let Some(scope) = caller.token {
        if path.starts_with("/api/v1/tokens") || (scope == TokenScope::Read && method != "get") {
            return false;
        }
    }
    match rule(method, path) {
        Rule::Read | Rule::Own => true,
        Rule::Act(action) => caller.role.allows(action),
    }
}

on_both_databases!(
    every_route_answers_every_role_as_the_table_says,
    |backend| async move {
        use protocol::tokens::TokenScope;
        let c = common::signed_in(backend).await;
        let ids = Ids::made_up();
        let mut callers = people(&c).await;
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
                let url = c.url(&concrete(path, &ids));
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

on_both_databases!(
    every_server_function_answers_every_role_as_the_table_says,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let ids = Ids::made_up();
        let callers = people(&c).await;
        let mut registered: Vec<(&str, http::Method)> =
            leptos::server_fn::axum::server_fn_paths().collect();
        registered.sort_by_key(|(path, _)| *path);
        let mut checked = 0;
        for (path, method) in registered {
            let endpoint = path
                .strip_prefix("/ui/")
                .unwrap_or_else(|| panic!("{path}: every server function lives under /ui/"));
            let Some((rule, args)) = ui_rule(endpoint, &ids) else {
                continue;
            };
            checked += 1;
            for caller in &callers {
                let request = caller.client.request(method.clone(), c.url(path));
                let request = match &args {
                    Args::Form(body) => request
                        .header("content-type", "application/x-www-form-urlencoded")
                        .body(body.clone()),
                    Args::Json(body) => request.json(body),
                };
                let answer = request.send().await.unwrap();
                let status = answer.status().as_u16();
                let body = answer.text().await.unwrap();
                let what = format!("{path} as {}", caller.label);
                let allowed = match rule {
                    Rule::Read | Rule::Own => true,
                    Rule::Act(action) => caller.role.allows(action),
                };
                match rule {
                    // A read answers, or does not find the made-up record.
                    Rule::Read => assert!(matches!(status, 200 | 404), "{what}: {status} {body}"),
                    Rule::Own => assert!(
                        status < 500 && status != 401 && status != 403,
                        "{what} is the caller's own: {status} {body}"
                    ),
                    Rule::Act(_) if allowed => assert!(
                        status < 500 && status != 401 && status != 403,
                        "{what} is allowed: {status} {body}"
                    ),
                    Rule::Act(_) => {
                        assert_eq!(status, 403, "{what} is refused: {body}");
                        let refusal: Value = serde_json::from_str(&body).unwrap();
                        assert_eq!(
                            refusal["Refused"]["not_allowed"]["role"],
                            caller.role.as_str(),
                            "{what}: the refusal names the role"
                        );
                    }
                }
            }
        }
        assert!(
            checked >= 40,
            "only {checked} server functions: the registry lost some"
        );
    }
);
