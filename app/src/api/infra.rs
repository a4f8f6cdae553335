//! Server functions of the Infrastructure screens: Agents and their lifecycle,
//! revoked keys, install tokens and the enrollment log. Thin adapters over
//! the backend port.

use crate::error::UiError;
use leptos::prelude::*;
use protocol::api::{
    AgentChoice, AgentView, Choices, CreatedInstallToken, EnrollmentAttempt, InstallTokenView,
    NewInstallToken, RevokedKeyView,
};
use protocol::{AgentId, InstallTokenId};
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::api::with_backend;

/// What an admin can do to an Agent from its page (moving has its own call:
/// it answers with the new install token).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentAction {
    Disable,
    Enable,
    Revoke,
    Delete,
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
    with_backend(|backend| async move {
        Ok(AgentsTab {
            agents: backend.list_agents_page(after).await?,
            install_tokens: backend.list_install_tokens().await?,
            revoked_keys: backend.list_revoked_keys().await?,
            enrollment_log: backend.enrollment_log(lang).await?,
        })
    })
    .await
}

/// One page of published services, by service name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServiceListPage {
    pub items: Vec<protocol::services::PublishedService>,
    /// Cursor of the next page, when there is one.
    pub next: Option<String>,
}

/// Services per page on the Services screen.
pub const SERVICES_PAGE: u64 = 50;

#[server(prefix = "/ui", endpoint = "list_services_page")]
pub async fn list_services_page(after: Option<String>) -> Result<ServiceListPage, UiError> {
    let after = after.filter(|a| !a.trim().is_empty());
    with_backend(|backend| async move { backend.list_services_page(after).await }).await
}

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
    with_backend(|backend| async move { backend.agent_choices(search, deployable).await }).await
}

#[server(prefix = "/ui", endpoint = "get_agent")]
pub async fn get_agent(id: AgentId) -> Result<AgentView, UiError> {
    with_backend(|backend| async move { backend.get_agent(id).await }).await
}

#[server(name = AgentActionCall, prefix = "/ui", endpoint = "agent_action", input = leptos::server_fn::codec::Json)]
pub async fn agent_action(id: AgentId, action: AgentAction) -> Result<(), UiError> {
    with_backend(|backend| async move { backend.agent_action(id, action).await }).await
}

/// Queues the removal of an unmanaged leftover. A call of its own, answering
/// nothing, so the Agent page does not carry the job form's encoders.
#[server(name = RemoveLeftoverCall, prefix = "/ui", endpoint = "remove_leftover")]
pub async fn remove_leftover(agent_id: String, component_id: String) -> Result<(), UiError> {
    with_backend(|backend| async move {
        backend
            .create_job(protocol::api::NewJob {
                agent_id,
                kind: "remove_component".into(),
                payload: serde_json::json!({ "component_id": component_id }),
            })
            .await
            .map(drop)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "move_agent")]
pub async fn move_agent(id: AgentId) -> Result<CreatedInstallToken, UiError> {
    with_backend(|backend| async move { backend.move_agent(id).await }).await
}

#[server(prefix = "/ui", endpoint = "create_install_token", input = leptos::server_fn::codec::Json)]
pub async fn create_install_token(input: NewInstallToken) -> Result<CreatedInstallToken, UiError> {
    with_backend(|backend| async move { backend.create_install_token(input).await }).await
}

#[server(prefix = "/ui", endpoint = "revoke_install_token")]
pub async fn revoke_install_token(id: InstallTokenId) -> Result<(), UiError> {
    with_backend(|backend| async move { backend.revoke_install_token(id).await }).await
}

#[server(prefix = "/ui", endpoint = "allow_revoked_key")]
pub async fn allow_revoked_key(agent_id: AgentId) -> Result<(), UiError> {
    with_backend(|backend| async move { backend.allow_revoked_key(agent_id).await }).await
}
