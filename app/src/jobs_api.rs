//! Server functions of the Jobs screens: list (filtered, paged), one job,
//! queue, cancel, retry. Thin adapters over the backend port.

use crate::error::UiError;
use leptos::prelude::*;
use protocol::api::{JobView, NewJob};
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::api::with_status;
#[cfg(feature = "ssr")]
use crate::backend::backend;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobListPage {
    pub items: Vec<JobView>,
    /// Cursor for the next page, when there is one.
    pub next: Option<String>,
}

/// Empty filter fields (as a plain GET form sends them) mean "any".
#[cfg(feature = "ssr")]
fn any_if_blank(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

#[server(prefix = "/ui", endpoint = "list_jobs")]
pub async fn list_jobs(
    status: Option<String>,
    agent_id: Option<String>,
    kind: Option<String>,
    after: Option<String>,
) -> Result<JobListPage, UiError> {
    let (status, agent_id, kind, after) = (
        any_if_blank(status),
        any_if_blank(agent_id),
        any_if_blank(kind),
        any_if_blank(after),
    );
    with_status(async { backend()?.list_jobs(status, agent_id, kind, after).await }.await)
}

#[server(prefix = "/ui", endpoint = "get_job")]
pub async fn get_job(id: String) -> Result<JobView, UiError> {
    with_status(async { backend()?.get_job(id).await }.await)
}

#[server(prefix = "/ui", endpoint = "create_job", input = leptos::server_fn::codec::Json)]
pub async fn create_job(job: NewJob) -> Result<JobView, UiError> {
    with_status(async { backend()?.create_job(job).await }.await)
}

#[server(prefix = "/ui", endpoint = "cancel_job")]
pub async fn cancel_job(id: String) -> Result<(), UiError> {
    with_status(async { backend()?.cancel_job(id).await }.await)
}

#[server(prefix = "/ui", endpoint = "retry_job")]
pub async fn retry_job(id: String) -> Result<JobView, UiError> {
    with_status(async { backend()?.retry_job(id).await }.await)
}
