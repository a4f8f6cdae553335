//! Personal API tokens in the admin API: `GET /api/v1/tokens`, `POST` to
//! create one (the answer holds the token, shown this once) and
//! `POST /api/v1/tokens/{id}/revoke`. Only a signed-in admin may call these:
//! the auth gate refuses them to a token, so a leaked token cannot mint more.

use crate::domain::access::roles::ManageOwnApiTokens;
use crate::http::error::ApiError;
use crate::http::extract::{Allowed, ApiJson, ApiPath};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use protocol::tokens::{CreatedToken, TokenInput, TokenView};
use protocol::ApiTokenId;
use utoipa_axum::{router::OpenApiRouter, routes};

/// Paths under /api/v1 that manage tokens.
pub const TOKENS_PATH: &str = "/api/v1/tokens";

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_tokens, create_token))
        .routes(routes!(revoke_token))
}

#[utoipa::path(
    get,
    path = "/api/v1/tokens",
    tag = "tokens",
    responses((status = 200, body = [TokenView]))
)]
async fn list_tokens(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageOwnApiTokens>,
) -> Result<Json<Vec<TokenView>>, ApiError> {
    Ok(Json(state.api_tokens.list(&by).await?))
}

#[utoipa::path(
    post,
    path = "/api/v1/tokens",
    tag = "tokens",
    request_body = TokenInput,
    responses((status = 201, body = CreatedToken, description = "The token is in this answer only"))
)]
async fn create_token(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageOwnApiTokens>,
    ApiJson(input): ApiJson<TokenInput>,
) -> Result<(StatusCode, Json<CreatedToken>), ApiError> {
    Ok((
        StatusCode::CREATED,
        Json(state.api_tokens.create(&by, &input).await?),
    ))
}

#[utoipa::path(
    post,
    path = "/api/v1/tokens/{id}/revoke",
    tag = "tokens",
    params(("id" = String, Path, description = "Token ID")),
    responses((status = 200, body = TokenView))
)]
async fn revoke_token(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageOwnApiTokens>,
    ApiPath(id): ApiPath<ApiTokenId>,
) -> Result<Json<TokenView>, ApiError> {
    Ok(Json(state.api_tokens.revoke(&by, &id).await?))
}
