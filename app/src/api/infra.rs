//! Server functions of the Infrastructure screens: Agents and their lifecycle,
//! revoked keys, install tokens and the enrollment log.

use crate::error::UiError;
use leptos::prelude::*;
use protocol::api::{
    AgentChoice, AgentView, Choices, CreatedInstallToken, EnrollmentAttempt, InstallTokenView,
    NewInstallToken, RevokedKeyView,
};
use protocol::{AgentId, InstallTokenId};
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::backend::granted;
#[cfg(feature = "ssr")]
use crate::{
    api::{with_reader, with_services, UI_PAGE_SIZE},
    error::ui_error,
};
#[cfg(feature = "ssr")]
use domain::access::roles::{ManageAgents, ManageInstallTokens};

/// What an admin can do to an Agent from its page (moving has its own call:
/// it answers with the new install token).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentAction {
    Disable,
    Enable,
    Revoke,
    Delete,
    /// An Agent waiting for approval (`domain::agents::approval`).
    Approve,
    Reject,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentListPage {
    pub items: Vec<AgentView>,
    /// Cursor of the next page, when there is one.
    pub next: Option<String>,
}

/// Everything the Agents tab lists, read in one call: on a phone every
/// request is a round trip, and the tab has four lists.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentsTab {
    pub agents: AgentListPage,
    /// The latest install tokens.
    pub install_tokens: Vec<InstallTokenView>,
    pub revoked_keys: Vec<RevokedKeyView>,
    /// The latest enrollment attempts, in the page's language.
    pub enrollment_log: Vec<EnrollmentAttempt>,
}

/// The Agents tab: one page of Agents by name (from after the Agent
/// `after`), the install tokens, the revoked keys and the enrollment log.
#[server(name = AgentsTabCall, prefix = "/ui", endpoint = "agents_tab")]
pub async fn agents_tab(after: Option<String>) -> Result<AgentsTab, UiError> {
    let lang = use_context::<crate::i18n::Lang>().unwrap_or_default();
    let after = after.filter(|a| !a.trim().is_empty());
    with_reader(|s, who| async move {
        let scope = who.networks();
        let (items, next) = s
            .inventory
            .list_page(scope, after.as_deref(), UI_PAGE_SIZE)
            .await
            .map_err(ui_error)?;
        let (install_tokens, _) = s
            .install_tokens
            .list(scope, None, UI_PAGE_SIZE)
            .await
            .map_err(ui_error)?;
        let (revoked_keys, _) = s
            .revoked_keys
            .list(scope, None, UI_PAGE_SIZE)
            .await
            .map_err(ui_error)?;
        let (enrollment_log, _) = s
            .enrollment
            .log(scope, None, UI_PAGE_SIZE, lang)
            .await
            .map_err(ui_error)?;
        Ok(AgentsTab {
            agents: AgentListPage { items, next },
            install_tokens,
            revoked_keys,
            enrollment_log,
        })
    })
    .await
}

/// One page of published services, by service name.
/// How many Agents a form's choice list offers at once; past that, the form
/// offers a search box (`pages::choice_search`). Profiles come 50 at a time
/// (`api::list_networks`).
pub const CHOICES_MAX: u64 = 200;

/// The Agents a form offers: with `deployable`, only those a Beacon or
/// sidecar can be deployed on now (online, with Docker).
#[server(prefix = "/ui", endpoint = "agent_choices")]
pub async fn agent_choices(
    search: Option<String>,
    deployable: bool,
) -> Result<Choices<AgentChoice>, UiError> {
    with_reader(|s, who| async move {
        let (items, more) = s
            .inventory
            .choices(who.networks(), search.as_deref(), deployable, CHOICES_MAX)
            .await
            .map_err(ui_error)?;
        Ok(Choices { items, more })
    })
    .await
}

#[server(prefix = "/ui", endpoint = "get_agent")]
pub async fn get_agent(id: AgentId) -> Result<AgentView, UiError> {
    with_reader(
        |s, who| async move { s.inventory.get(who.networks(), &id).await.map_err(ui_error) },
    )
    .await
}

/// An Agent's lifecycle action, sent by the Agent page's plain forms: done,
/// the page is drawn again (a deleted Agent's page leads to the list).
#[server(name = AgentActionCall, prefix = "/ui", endpoint = "agent_action")]
pub async fn agent_action(id: AgentId, action: AgentAction) -> Result<(), UiError> {
    let then = match action {
        AgentAction::Delete | AgentAction::Reject => "/infrastructure".to_string(),
        _ => format!("/infrastructure/agents/{id}#agent-actions"),
    };
    let done = with_services(|s| async move {
        let by = granted::<ManageAgents>()?;
        let inventory = &s.inventory;
        match action {
            AgentAction::Disable => inventory.set_disabled(&by, &id, true).await.map(drop),
            AgentAction::Enable => inventory.set_disabled(&by, &id, false).await.map(drop),
            AgentAction::Revoke => inventory.revoke(&by, &id).await.map(drop),
            AgentAction::Delete => inventory.delete(&by, &id).await,
            AgentAction::Approve => s.approval.approve(&by, &id).await.map(drop),
            AgentAction::Reject => s.approval.reject(&by, &id).await,
        }
        .map_err(ui_error)
    })
    .await;
    crate::api::answer_plain_form(done, &then)
}

/// Queues the removal of an unmanaged leftover (the Agent page's plain
/// form, after its confirmation); done, the page shows the job among the
/// Agent's latest.
#[server(name = RemoveLeftoverCall, prefix = "/ui", endpoint = "remove_leftover")]
pub async fn remove_leftover(agent_id: String, component_id: String) -> Result<(), UiError> {
    let payload = serde_json::json!({ "component_id": component_id });
    crate::api::jobs::queue_from_form(agent_id, "remove_component", payload, |agent| {
        format!("/infrastructure/agents/{agent}#agent-jobs")
    })
    .await
}

#[server(prefix = "/ui", endpoint = "move_agent")]
pub async fn move_agent(id: AgentId) -> Result<CreatedInstallToken, UiError> {
    with_services(|s| async move {
        let by = granted::<ManageAgents>()?;
        s.inventory
            .move_to_new_host(&by, &id)
            .await
            .map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "create_install_token", input = leptos::server_fn::codec::Json)]
pub async fn create_install_token(input: NewInstallToken) -> Result<CreatedInstallToken, UiError> {
    with_services(|s| async move {
        let by = granted::<ManageInstallTokens>()?;
        s.install_tokens.create(&by, &input).await.map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "revoke_install_token")]
pub async fn revoke_install_token(id: InstallTokenId) -> Result<(), UiError> {
    with_services(|s| async move {
        let by = granted::<ManageInstallTokens>()?;
        s.install_tokens
            .revoke(&by, &id)
            .await
            .map(drop)
            .map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "allow_revoked_key")]
pub async fn allow_revoked_key(agent_id: AgentId) -> Result<(), UiError> {
    with_services(|s| async move {
        let by = granted::<ManageAgents>()?;
        s.revoked_keys.allow(&by, &agent_id).await.map_err(ui_error)
    })
    .await
}
