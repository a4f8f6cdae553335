//! Personal API tokens in the admin API: `GET /api/v1/tokens`, `POST` to
//! create one (the answer holds the token, shown this once) and
//! `POST /api/v1/tokens/{id}/revoke`. Only a signed-in admin may call these:
//! the auth gate refuses them to a token, so a leaked token cannot mint more.

#[allow(unused_imports)]
use super::openapi::schemas::*;
use crate::http::error::ApiError;
use crate::http::extract::ApiJson;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use protocol::tokens::{CreatedToken, TokenInput, TokenView};

/// Paths under /api/v1 that manage tokens.
pub const TOKENS_PATH: &str = "/api/v1/tokens";

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/tokens", get(list_tokens).post(create_token))
        .route("/tokens/{id}/revoke", post(revoke_token))
}

#[utoipa::path(
    get,
    path = "/api/v1/tokens",
    tag = "tokens",
    responses((status = 200, body = [TokenView]), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
async fn list_tokens(State(state): State<AppState>) -> Result<Json<Vec<TokenView>>, ApiError> {
    Ok(Json(state.api_tokens.list().await?))
}

#[utoipa::path(
    post,
    path = "/api/v1/tokens",
    tag = "tokens",
    request_body = TokenInput,
    responses((status = 201, body = CreatedToken, description = "The token is in this answer only"), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
async fn create_token(
    State(state): State<AppState>,
    ApiJson(input): ApiJson<TokenInput>,
) -> Result<(StatusCode, Json<CreatedToken>), ApiError> {
    Ok((
        StatusCode::CREATED,
        Json(state.api_tokens.create(&input).await?),
    ))
}

#[utoipa::path(
    post,
    path = "/api/v1/tokens/{id}/revoke",
    tag = "tokens",
    params(("id" = String, Path, description = "Token ID")),
    responses((status = 200, body = TokenView), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
async fn revoke_token(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<TokenView>, ApiError> {
    Ok(Json(state.api_tokens.revoke(&id).await?))
}
