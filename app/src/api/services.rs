//! Server functions of the Services screen: its list, and the jobs its rows
//! queue for a service's Agent (restart, remove, back up, verify), sent as
//! plain forms (`pages::plain_action`).

use crate::error::UiError;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::{api::with_reader, error::ui_error};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServiceListPage {
    pub items: Vec<protocol::services::PublishedService>,
    /// Cursor of the next page, when there is one.
    pub next: Option<String>,
}

/// Services per page on the Services screen.
pub const SERVICES_PAGE: u64 = 50;

/// Where the Services screen's plain forms lead once done: its list, which
/// shows the queued job in the row.
pub const SERVICES_DONE: &str = "/services#services-live";

#[server(prefix = "/ui", endpoint = "list_services_page")]
pub async fn list_services_page(after: Option<String>) -> Result<ServiceListPage, UiError> {
    let after = after.filter(|a| !a.trim().is_empty());
    with_reader(|s, who| async move {
        let (items, next) = s
            .inventory
            .sidecars_page(who.networks(), after.as_deref(), SERVICES_PAGE)
            .await
            .map_err(ui_error)?;
        Ok(ServiceListPage { items, next })
    })
    .await
}

/// What a service's row does with one press (after its confirmation, for
/// restart and remove). A backup has its own call: it also says how many
/// archives to keep and how often to repeat it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServiceAction {
    Restart,
    Remove,
    Verify,
}

impl ServiceAction {
    /// The job that does it, for the service's Agent.
    pub fn job_kind(self) -> &'static str {
        match self {
            ServiceAction::Restart => "restart_component",
            ServiceAction::Remove => "remove_component",
            ServiceAction::Verify => "verify_backup",
        }
    }
}

/// Queues the job for `action` on a service; done, the Services list.
#[server(name = ServiceActionCall, prefix = "/ui", endpoint = "service_action")]
pub async fn service_action(
    agent_id: String,
    component_id: String,
    action: ServiceAction,
) -> Result<(), UiError> {
    let payload = serde_json::json!({ "component_id": component_id });
    crate::api::jobs::queue_from_form(agent_id, action.job_kind(), payload, |_| {
        SERVICES_DONE.to_string()
    })
    .await
}

/// Queues a backup of a service's identity, keeping `keep` archives and
/// repeating it `every` day or week (or never); done, the Services list.
#[server(name = BackUpServiceCall, prefix = "/ui", endpoint = "back_up_service")]
pub async fn back_up_service(
    agent_id: String,
    component_id: String,
    keep: String,
    every: String,
) -> Result<(), UiError> {
    // A number is sent as one; anything else as typed, which the job's rule
    // (protocol::backups::BackupVolume) refuses at its field.
    let keep = keep
        .trim()
        .parse::<u64>()
        .map_or_else(|_| serde_json::json!(keep), |n| serde_json::json!(n));
    let payload = serde_json::json!({ "component_id": component_id, "keep": keep, "every": every });
    crate::api::jobs::queue_from_form(agent_id, "backup_volume", payload, |_| {
        SERVICES_DONE.to_string()
    })
    .await
}
