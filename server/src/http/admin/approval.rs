//! New Agents waiting for approval (`domain::agents::approval`): approve or
//! reject one, and the setting that makes shared-token Agents wait.

use crate::domain::access::roles::{ChangeSettings, ManageAgents};
use crate::http::error::ApiError;
use crate::http::extract::{Allowed, ApiJson, ApiPath};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use protocol::api::{AgentApprovalSettings, AgentView};
use protocol::AgentId;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(approve_agent))
        .routes(routes!(reject_agent))
        .routes(routes!(approval_settings, set_approval_settings))
}

#[utoipa::path(
    post,
    path = "/api/v1/agents/{id}/approve",
    tag = "agents",
    params(("id" = String, Path, description = "Agent ID")),
    responses(
        (status = 200, body = AgentView),
        (status = 409, description = "It does not wait for approval (code `agent_not_pending`)")
    )
)]
/// Approves an Agent waiting for approval: from now on it takes jobs.
async fn approve_agent(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageAgents>,
    ApiPath(id): ApiPath<AgentId>,
) -> Result<Json<AgentView>, ApiError> {
    Ok(Json(state.approval.approve(&by, &id).await?))
}

#[utoipa::path(
    post,
    path = "/api/v1/agents/{id}/reject",
    tag = "agents",
    params(("id" = String, Path, description = "Agent ID")),
    responses(
        (status = 204, description = "Rejected: its key stays refused (GET /api/v1/revoked-keys)"),
        (status = 409, description = "It does not wait for approval (code `agent_not_pending`)")
    )
)]
/// Rejects an Agent waiting for approval: its record goes and its key is
/// refused from now on, as a revoked one is.
async fn reject_agent(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageAgents>,
    ApiPath(id): ApiPath<AgentId>,
) -> Result<StatusCode, ApiError> {
    state.approval.reject(&by, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    get,
    path = "/api/v1/settings/agents",
    tag = "settings",
    responses((status = 200, body = AgentApprovalSettings))
)]
async fn approval_settings(
    State(state): State<AppState>,
) -> Result<Json<AgentApprovalSettings>, ApiError> {
    Ok(Json(state.approval.settings().await?))
}

#[utoipa::path(
    put,
    path = "/api/v1/settings/agents",
    tag = "settings",
    request_body = AgentApprovalSettings,
    responses((status = 200, body = AgentApprovalSettings))
)]
/// Whether Agents enrolled with the shared token from now on wait for
/// approval; those waiting already keep waiting for a decision.
async fn set_approval_settings(
    State(state): State<AppState>,
    Allowed(by): Allowed<ChangeSettings>,
    ApiJson(input): ApiJson<AgentApprovalSettings>,
) -> Result<Json<AgentApprovalSettings>, ApiError> {
    Ok(Json(state.approval.set_required(&by, &input).await?))
}
