//! The admin API's routes and the web UI's server functions, each with the
//! action it needs (from the role list in docs/src/people.md) and IDs to call it with: the
//! tables the role matrix (role_matrix.rs) and the network-scope walk
//! (network_scope.rs) call every route by. A route or server function
//! without a rule panics, so none ships without one.

use serde_json::{json, Value};
use server::domain::access::roles::ActionKind;

/// What a route needs.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// Reading: every role.
    Read,
    /// This action (`Role::allows`).
    Act(ActionKind),
    /// Every person's own account (their second factor): every role may;
    /// the answer depends on the account's state, never a 401 or 403.
    Own,
}

/// The role list (docs/src/people.md, "Roles"), route by route.
pub fn rule(method: &str, path: &str) -> Rule {
    use ActionKind::*;
    use Rule::*;
    match (method, path) {
        ("get", _)
            if !matches!(
                path,
                "/api/v1/tokens"
                    | "/api/v1/users"
                    | "/api/v1/users/second-factor"
                    | "/api/v1/networks/{id}/diagnostics"
                    | "/api/v1/policy"
                    | "/api/v1/policy/markdown"
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
        ("put", "/api/v1/networks/{id}/setup") => Act(EditNetworks),
        ("put" | "delete", "/api/v1/networks/{id}/probe") => Act(EditNetworks),
        ("get" | "put", "/api/v1/policy" | "/api/v1/policy/markdown") => Act(ChangeSettings),
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
        ("put", "/api/v1/settings/agents") => Act(ChangeSettings),
        (_, "/api/v1/tokens" | "/api/v1/tokens/{id}/revoke") => Act(ManageOwnApiTokens),
        (_, p) if p.starts_with("/api/v1/users") => Act(ManageUsers),
        _ => panic!(
            "{method} {path} has no rule in the role matrix: add one from the role list in docs/src/people.md"
        ),
    }
}

/// The IDs a route or server function is called with, one per kind.
#[derive(Clone, Debug)]
pub struct Ids {
    pub agent: String,
    pub network: String,
    pub job: String,
    pub invite: String,
    pub install_token: String,
    pub api_token: String,
    pub user: String,
}

impl Ids {
    /// Made-up IDs of the right shape: no such record exists.
    pub fn made_up() -> Self {
        Self {
            agent: protocol::signing::AgentKey::from_seed([9; 32])
                .public_key()
                .agent_id()
                .to_string(),
            network: protocol::NetworkId::from_random_bytes([1; 32]).to_string(),
            job: protocol::JobId::from_random_bytes([2; 16]).to_string(),
            invite: protocol::InviteId::from_random_bytes([3; 8]).to_string(),
            install_token: protocol::InstallTokenId::from_random_bytes([4; 8]).to_string(),
            api_token: protocol::ApiTokenId::from_token_chars("abcdefghijklmnop").to_string(),
            user: protocol::UserId::from_random_bytes([5; 8]).to_string(),
        }
    }
}

/// `path` with its parameters filled from `ids`.
pub fn concrete(path: &str, ids: &Ids) -> String {
    let id = if path.starts_with("/api/v1/agents/") {
        &ids.agent
    } else if path.starts_with("/api/v1/networks/") {
        &ids.network
    } else if path.starts_with("/api/v1/jobs/") {
        &ids.job
    } else if path.starts_with("/api/v1/invites/") {
        &ids.invite
    } else if path.starts_with("/api/v1/install-tokens/") {
        &ids.install_token
    } else if path.starts_with("/api/v1/tokens/") {
        &ids.api_token
    } else {
        &ids.user
    };
    path.replace("{id}", id).replace("{agent_id}", &ids.agent)
}

/// A server function's arguments, in the encoding it takes.
pub enum Args {
    Form(String),
    Json(Value),
}

/// Each server function of the web UI: its rule and one argument set it
/// decodes (arguments are decoded before the role is asked, so a body it
/// cannot read would answer 400 to everyone). `None`: signing in and out,
/// which are not admin calls. Unknown names fail the test.
pub fn ui_rule(endpoint: &str, ids: &Ids) -> Option<(Rule, Args)> {
    use ActionKind::*;
    use Args::{Form, Json};
    use Rule::*;
    let none = || Form(String::new());
    let id = |id: String| Form(format!("id={id}"));
    let beacon = || json!({"beacon": {"network_id": ids.network.clone(), "url": "https://beacon.example.net"}});
    Some(match endpoint {
        "sign_in" | "sign_out" => return None,
        "overview" | "overview_lists" | "list_beacons" | "agents_tab" | "list_services_page"
        | "list_networks" | "list_invites" | "list_audit" | "settings_screen"
        | "list_api_tokens" => (Read, none()),
        "agent_choices" => (Read, Form("deployable=false".into())),
        "get_agent" => (Read, id(ids.agent.clone())),
        "get_job" => (Read, id(ids.job.clone())),
        "job_output" => (Read, Form(format!("id={}&after=0", ids.job.clone()))),
        "get_network" | "setup_checklist" | "probe" => (Read, id(ids.network.clone())),
        "save_probe" => (
            Act(EditNetworks),
            Form(format!(
                "id={}&service=web&agent_id={}&every_minutes=5",
                ids.network, ids.agent
            )),
        ),
        "remove_probe" => (Act(EditNetworks), id(ids.network.clone())),
        "skip_setup_step" => (
            Act(EditNetworks),
            Form(format!("id={}&step=monitoring&skipped=true", ids.network)),
        ),
        "policy" => (Act(ChangeSettings), none()),
        "save_policy" => (Act(ChangeSettings), Form("relays=&revocation=".into())),
        "list_jobs" => (Read, Json(json!({"query": {}}))),
        "load_onboarding_guide" => (
            Read,
            Json(json!({"network_id": ids.network.clone(), "platform": "android", "lang": "En"})),
        ),
        "check_beacon" => (
            Act(CheckBeacons),
            Form(format!("network_id={}&url=http%3A%2F%2F127.0.0.1%3A9", ids.network)),
        ),
        "diagnose_network" => (Act(CheckBeacons), id(ids.network.clone())),
        "add_existing_beacon" => (Act(EditNetworks), Json(beacon())),
        "create_network" => (Act(EditNetworks), Json(json!({"input": {"name": ""}}))),
        "update_network" => (
            Act(EditNetworks),
            Json(json!({"id": ids.network.clone(), "input": {"name": "Lab"}})),
        ),
        "delete_network" => (Act(EditNetworks), id(ids.network.clone())),
        "agent_action" => (
            Act(ManageAgents),
            Form(format!("id={}&action=disable", ids.agent)),
        ),
        "move_agent" => (Act(ManageAgents), id(ids.agent.clone())),
        "allow_revoked_key" => (
            Act(ManageAgents),
            Form(format!("agent_id={}", ids.agent.clone())),
        ),
        "remove_leftover" => (
            Act(RunJobs),
            Form(format!("agent_id={}&component_id=beacon-edge-b", ids.agent)),
        ),
        "service_action" => (
            Act(RunJobs),
            Form(format!(
                "agent_id={}&component_id=beacon-edge-b&action=restart",
                ids.agent
            )),
        ),
        "back_up_service" => (
            Act(RunJobs),
            Form(format!(
                "agent_id={}&component_id=sidecar-web&keep=3&every=week",
                ids.agent
            )),
        ),
        "create_job" => (
            Act(RunJobs),
            Json(json!({"job": {"agent_id": ids.agent, "kind": "restart_component",
                "payload": {"component_id": "beacon-edge-b"}}})),
        ),
        "cancel_job" | "retry_job" => (Act(RunJobs), id(ids.job.clone())),
        "create_install_token" => (
            Act(ManageInstallTokens),
            Json(json!({"input": {"name": ""}})),
        ),
        "revoke_install_token" => (Act(ManageInstallTokens), id(ids.install_token.clone())),
        "create_invite" => (
            Act(ManageInvites),
            Json(json!({"input": {"network_id": ids.network.clone()}})),
        ),
        "revoke_invite" => (Act(ManageInvites), id(ids.invite.clone())),
        "save_alert_webhook" => (Act(ChangeSettings), Form("turn_off=true".into())),
        "save_agent_approval" => (Act(ChangeSettings), Form("required=true".into())),
        "send_test_alert" => (Act(ChangeSettings), none()),
        "create_api_token" => (Act(ManageOwnApiTokens), Form("name=&scope=read".into())),
        "revoke_api_token" => (Act(ManageOwnApiTokens), id(ids.api_token.clone())),
        "invite_user" => (
            Act(ManageUsers),
            Json(json!({"role": "nobody", "networks": []})),
        ),
        "change_user" => (Act(ManageUsers), Form(format!("id={}&role=viewer", ids.user))),
        "set_user_networks" => (
            Act(ManageUsers),
            Form(format!("id={}&all_networks=true", ids.user)),
        ),
        "end_user_sessions" | "delete_user" | "reset_two_step" | "create_two_step_link" => {
            (Act(ManageUsers), id(ids.user.clone()))
        }
        "require_two_step" => (Act(ManageUsers), Form("required=false".into())),
        // The People tab's list: a read, but only for those who manage people.
        "people_screen" => (Act(ManageUsers), none()),
        // Every person's own, in their session: refused by the domain (409,
        // not by role) to the break-glass owner, who has no second factor.
        "begin_two_step" => (Own, none()),
        "confirm_two_step" | "renew_recovery_codes" | "turn_off_two_step" => {
            (Own, Form("code=".into()))
        }
        other => panic!(
            "the server function {other} has no rule in the role matrix: add one from the role list in docs/src/people.md"
        ),
    })
}
