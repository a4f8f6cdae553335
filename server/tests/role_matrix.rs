//! The role matrix (issue 24): every admin route of the JSON API, as the
//! OpenAPI document lists them, called as every role (a person in each role,
//! the break-glass owner, the owner's read and write tokens, a person's
//! token), and every server function of the web UI, as the server's own
//! registry lists them, called by a person in each role and the owner. Each
//! route's rule is written here from the role list; a route without
//! a rule fails the test, so no route ships without one.
//!
//! A refused call answers 403 before its body is read; an allowed one gets
//! past the gate (its answer to an empty body or a made-up ID does not matter
//! here, but it is never 401, 403 or a 5xx). Network scope is not built yet.

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

/// Made-up IDs of the right shape: no such record exists.
mod made_up {
    pub fn agent() -> String {
        protocol::signing::AgentKey::from_seed([9; 32])
            .public_key()
            .agent_id()
            .to_string()
    }
    pub fn network() -> String {
        protocol::NetworkId::from_random_bytes([1; 32]).to_string()
    }
    pub fn job() -> String {
        protocol::JobId::from_random_bytes([2; 16]).to_string()
    }
    pub fn invite() -> String {
        protocol::InviteId::from_random_bytes([3; 8]).to_string()
    }
    pub fn install_token() -> String {
        protocol::InstallTokenId::from_random_bytes([4; 8]).to_string()
    }
    pub fn api_token() -> String {
        protocol::ApiTokenId::from_token_chars("abcdefghijklmnop").to_string()
    }
    pub fn user() -> String {
        protocol::UserId::from_random_bytes([5; 8]).to_string()
    }
}

/// A made-up ID of the right shape for each path parameter.
fn concrete(path: &str) -> String {
    let id = if path.starts_with("/api/v1/agents/") {
        made_up::agent()
    } else if path.starts_with("/api/v1/networks/") {
        made_up::network()
    } else if path.starts_with("/api/v1/jobs/") {
        made_up::job()
    } else if path.starts_with("/api/v1/invites/") {
        made_up::invite()
    } else if path.starts_with("/api/v1/install-tokens/") {
        made_up::install_token()
    } else if path.starts_with("/api/v1/tokens/") {
        made_up::api_token()
    } else {
        made_up::user()
    };
    path.replace("{id}", &id)
        .replace("{agent_id}", &made_up::agent())
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
        Rule::Read => true,
        Rule::Act(action) => caller.role.allows(action),
    }
}

on_both_databases!(
    every_route_answers_every_role_as_the_table_says,
    |backend| async move {
        use protocol::tokens::TokenScope;
        let c = common::signed_in(backend).await;
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

/// A server function's arguments, in the encoding it takes.
enum Args {
    Form(String),
    Json(Value),
}

/// Each server function of the web UI: its rule and one argument set it
/// decodes (arguments are decoded before the role is asked, so a body it
/// cannot read would answer 400 to everyone). `None`: signing in and out,
/// which are not admin calls. Unknown names fail the test.
fn ui_rule(endpoint: &str) -> Option<(Rule, Args)> {
    use ActionKind::*;
    use Args::{Form, Json};
    use Rule::*;
    let none = || Form(String::new());
    let id = |id: String| Form(format!("id={id}"));
    let beacon = || json!({"beacon": {"network_id": made_up::network(), "url": "https://beacon.example.net"}});
    Some(match endpoint {
        "sign_in" | "sign_out" => return None,
        "overview" | "overview_lists" | "list_beacons" | "agents_tab" | "list_services_page"
        | "list_networks" | "list_invites" | "list_audit" | "settings_screen"
        | "list_api_tokens" => (Read, none()),
        "agent_choices" => (Read, Form("deployable=false".into())),
        "get_agent" => (Read, id(made_up::agent())),
        "get_job" => (Read, id(made_up::job())),
        "job_log" => (Read, Form(format!("id={}&after=0", made_up::job()))),
        "get_network" => (Read, id(made_up::network())),
        "list_jobs" => (Read, Json(json!({"query": {}}))),
        "load_onboarding_guide" => (
            Read,
            Json(json!({"network_id": made_up::network(), "platform": "android", "lang": "En"})),
        ),
        "check_beacon" => (Act(CheckBeacons), Json(beacon())),
        "diagnose_network" => (Act(CheckBeacons), id(made_up::network())),
        "add_existing_beacon" => (Act(EditNetworks), Json(beacon())),
        "create_network" => (Act(EditNetworks), Json(json!({"input": {"name": ""}}))),
        "update_network" => (
            Act(EditNetworks),
            Json(json!({"id": made_up::network(), "input": {"name": "Lab"}})),
        ),
        "delete_network" => (Act(EditNetworks), id(made_up::network())),
        "agent_action" => (
            Act(ManageAgents),
            Json(json!({"id": made_up::agent(), "action": "disable"})),
        ),
        "move_agent" => (Act(ManageAgents), id(made_up::agent())),
        "allow_revoked_key" => (
            Act(ManageAgents),
            Form(format!("agent_id={}", made_up::agent())),
        ),
        "remove_leftover" => (
            Act(RunJobs),
            Form(format!("agent_id={}&component_id=web", made_up::agent())),
        ),
        "create_job" => (
            Act(RunJobs),
            Json(json!({"job": {"agent_id": made_up::agent(), "kind": "restart_component", "payload": {}}})),
        ),
        "cancel_job" | "retry_job" => (Act(RunJobs), id(made_up::job())),
        "create_install_token" => (
            Act(ManageInstallTokens),
            Json(json!({"input": {"name": ""}})),
        ),
        "revoke_install_token" => (Act(ManageInstallTokens), id(made_up::install_token())),
        "create_invite" => (
            Act(ManageInvites),
            Json(json!({"input": {"network_id": made_up::network()}})),
        ),
        "revoke_invite" => (Act(ManageInvites), id(made_up::invite())),
        "save_alert_webhook" => (Act(ChangeSettings), Form("webhook_url=".into())),
        "send_test_alert" => (Act(ChangeSettings), none()),
        "create_api_token" => (Act(ManageOwnApiTokens), Form("name=&scope=read".into())),
        "revoke_api_token" => (Act(ManageOwnApiTokens), id(made_up::api_token())),
        "invite_user" => (Act(ManageUsers), Form("role=nobody".into())),
        "change_user" => (
            Act(ManageUsers),
            Form(format!("id={}&role=viewer", made_up::user())),
        ),
        "end_user_sessions" | "delete_user" => (Act(ManageUsers), id(made_up::user())),
        other => panic!(
            "the server function {other} has no rule in the role matrix: add one from the issue's role list"
        ),
    })
}

on_both_databases!(
    every_server_function_answers_every_role_as_the_table_says,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let callers = people(&c).await;
        let mut registered: Vec<(&str, http::Method)> =
            leptos::server_fn::axum::server_fn_paths().collect();
        registered.sort_by_key(|(path, _)| *path);
        let mut checked = 0;
        for (path, method) in registered {
            let endpoint = path
                .strip_prefix("/ui/")
                .unwrap_or_else(|| panic!("{path}: every server function lives under /ui/"));
            let Some((rule, args)) = ui_rule(endpoint) else {
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
                    Rule::Read => true,
                    Rule::Act(action) => caller.role.allows(action),
                };
                match rule {
                    // A read answers, or does not find the made-up record.
                    Rule::Read => assert!(matches!(status, 200 | 404), "{what}: {status} {body}"),
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
