//! Admin side of the Agent lifecycle: Agents (list, read, disable, enable,
//! revoke, move, delete), revoked keys (list, allow again), install tokens
//! and the enrollment log.

use crate::domain::access::roles::{ManageAgents, ManageInstallTokens};
use crate::http::error::ApiError;
use crate::http::extract::{page, Allowed, ApiJson, ApiPath, ApiQuery, Reader};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use protocol::api::{
    AgentView, CreatedInstallToken, EnrollmentAttempt, InstallTokenView, NewInstallToken,
    RevokedKeyView,
};
use protocol::{AgentId, InstallTokenId};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_agents))
        .routes(routes!(get_agent, delete_agent))
        .routes(routes!(disable_agent))
        .routes(routes!(enable_agent))
        .routes(routes!(revoke_agent))
        .routes(routes!(move_agent))
        .routes(routes!(list_revoked_keys))
        .routes(routes!(allow_revoked_key))
        .routes(routes!(create_install_token, list_install_tokens))
        .routes(routes!(revoke_install_token))
        .routes(routes!(enrollment_log))
}

#[utoipa::path(
    get,
    path = "/api/v1/agents",
    tag = "agents",
    responses((status = 200, body = [AgentView]))
)]
async fn list_agents(
    State(state): State<AppState>,
    Reader(who): Reader,
) -> Result<Json<Vec<AgentView>>, ApiError> {
    Ok(Json(state.inventory.list(who.networks()).await?))
}

#[utoipa::path(
    get,
    path = "/api/v1/agents/{id}",
    tag = "agents",
    params(("id" = String, Path, description = "Agent ID")),
    responses((status = 200, body = AgentView))
)]
async fn get_agent(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiPath(id): ApiPath<AgentId>,
) -> Result<Json<AgentView>, ApiError> {
    Ok(Json(state.inventory.get(who.networks(), &id).await?))
}

#[utoipa::path(
    post,
    path = "/api/v1/agents/{id}/disable",
    tag = "agents",
    params(("id" = String, Path, description = "Agent ID")),
    responses((status = 200, body = AgentView))
)]
async fn disable_agent(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageAgents>,
    ApiPath(id): ApiPath<AgentId>,
) -> Result<Json<AgentView>, ApiError> {
    Ok(Json(state.inventory.set_disabled(&by, &id, true).await?))
}

#[utoipa::path(
    post,
    path = "/api/v1/agents/{id}/enable",
    tag = "agents",
    params(("id" = String, Path, description = "Agent ID")),
    responses((status = 200, body = AgentView))
)]
async fn enable_agent(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageAgents>,
    ApiPath(id): ApiPath<AgentId>,
) -> Result<Json<AgentView>, ApiError> {
    Ok(Json(state.inventory.set_disabled(&by, &id, false).await?))
}

#[utoipa::path(
    post,
    path = "/api/v1/agents/{id}/revoke",
    tag = "agents",
    params(("id" = String, Path, description = "Agent ID")),
    responses((status = 200, body = AgentView))
)]
async fn revoke_agent(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageAgents>,
    ApiPath(id): ApiPath<AgentId>,
) -> Result<Json<AgentView>, ApiError> {
    Ok(Json(state.inventory.revoke(&by, &id).await?))
}

#[utoipa::path(
    post,
    path = "/api/v1/agents/{id}/move",
    tag = "agents",
    params(("id" = String, Path, description = "Agent ID")),
    responses((status = 201, body = CreatedInstallToken))
)]
/// 201 with the move token and its snippets (shown once).
async fn move_agent(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageAgents>,
    ApiPath(id): ApiPath<AgentId>,
) -> Result<(StatusCode, Json<CreatedInstallToken>), ApiError> {
    Ok((
        StatusCode::CREATED,
        Json(state.inventory.move_to_new_host(&by, &id).await?),
    ))
}

#[utoipa::path(
    delete,
    path = "/api/v1/agents/{id}",
    tag = "agents",
    params(("id" = String, Path, description = "Agent ID")),
    responses((status = 204, description = "Deleted"))
)]
async fn delete_agent(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageAgents>,
    ApiPath(id): ApiPath<AgentId>,
) -> Result<StatusCode, ApiError> {
    state.inventory.delete(&by, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    get,
    path = "/api/v1/revoked-keys",
    tag = "agents",
    params(TokenPage),
    responses((status = 200, body = [RevokedKeyView], headers(("X-Next-Cursor" = String, description = "Cursor for the next page, when there is one"))))
)]
/// Keys refused at enrollment until allowed again, newest first; `X-Next-Cursor`
/// carries `after` (an Agent ID) for the next page.
async fn list_revoked_keys(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiQuery(query): ApiQuery<TokenPage>,
) -> Result<Response, ApiError> {
    let (rows, next) = state
        .revoked_keys
        .list(who.networks(), query.after.as_deref(), query.limit)
        .await?;
    Ok(page(rows, next))
}

#[utoipa::path(
    post,
    path = "/api/v1/revoked-keys/{agent_id}/allow",
    tag = "agents",
    params(("agent_id" = String, Path, description = "The Agent ID the revoked key derives")),
    responses((status = 204, description = "The key may enroll again, as a new Agent"))
)]
/// 409 `revoked_agent_exists` while the revoked Agent record is not deleted.
async fn allow_revoked_key(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageAgents>,
    ApiPath(agent_id): ApiPath<AgentId>,
) -> Result<StatusCode, ApiError> {
    state.revoked_keys.allow(&by, &agent_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    post,
    path = "/api/v1/install-tokens",
    tag = "agents",
    request_body = NewInstallToken,
    responses((status = 201, body = CreatedInstallToken))
)]
/// 201 with the token and its snippets: the only time the token is shown.
async fn create_install_token(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageInstallTokens>,
    ApiJson(input): ApiJson<NewInstallToken>,
) -> Result<(StatusCode, Json<CreatedInstallToken>), ApiError> {
    Ok((
        StatusCode::CREATED,
        Json(state.install_tokens.create(&by, &input).await?),
    ))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct TokenPage {
    after: Option<String>,
    #[serde(default = "default_limit")]
    limit: u64,
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct LogPage {
    before: Option<i64>,
    #[serde(default = "default_limit")]
    limit: u64,
}

fn default_limit() -> u64 {
    100
}

#[utoipa::path(
    get,
    path = "/api/v1/install-tokens",
    tag = "agents",
    params(TokenPage),
    responses((status = 200, body = [InstallTokenView], headers(("X-Next-Cursor" = String, description = "Cursor for the next page, when there is one"))))
)]
/// Newest first; `X-Next-Cursor` carries `after` for the next page.
async fn list_install_tokens(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiQuery(query): ApiQuery<TokenPage>,
) -> Result<Response, ApiError> {
    let (rows, next) = state
        .install_tokens
        .list(who.networks(), query.after.as_deref(), query.limit)
        .await?;
    Ok(page(rows, next))
}

#[utoipa::path(
    post,
    path = "/api/v1/install-tokens/{id}/revoke",
    tag = "agents",
    params(("id" = String, Path, description = "Install token ID")),
    responses((status = 200, body = InstallTokenView))
)]
async fn revoke_install_token(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageInstallTokens>,
    ApiPath(id): ApiPath<InstallTokenId>,
) -> Result<Json<InstallTokenView>, ApiError> {
    Ok(Json(state.install_tokens.revoke(&by, &id).await?))
}

#[utoipa::path(
    get,
    path = "/api/v1/enrollments",
    tag = "agents",
    params(LogPage),
    responses((status = 200, body = [EnrollmentAttempt], headers(("X-Next-Cursor" = String, description = "Cursor for the next page, when there is one"))))
)]
/// Newest first; `X-Next-Cursor` carries `before` for the next page.
async fn enrollment_log(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiQuery(query): ApiQuery<LogPage>,
) -> Result<Response, ApiError> {
    let (rows, next) = state
        .enrollment
        .log(
            who.networks(),
            query.before,
            query.limit,
            protocol::Lang::En,
        )
        .await?;
    Ok(page(rows, next))
}
