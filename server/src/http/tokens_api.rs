//! Personal API tokens in the admin API: `GET /api/v1/tokens`, `POST` to
//! create one (the answer holds the token, shown this once) and
//! `POST /api/v1/tokens/{id}/revoke`. Only a signed-in admin may call these:
//! the auth gate refuses them to a token, so a leaked token cannot mint more.

use super::error::ApiError;
use super::extract::ApiJson;
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

async fn list_tokens(State(state): State<AppState>) -> Result<Json<Vec<TokenView>>, ApiError> {
    Ok(Json(state.api_tokens.list().await?))
}

async fn create_token(
    State(state): State<AppState>,
    ApiJson(input): ApiJson<TokenInput>,
) -> Result<(StatusCode, Json<CreatedToken>), ApiError> {
    Ok((
        StatusCode::CREATED,
        Json(state.api_tokens.create(&input).await?),
    ))
}

async fn revoke_token(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<TokenView>, ApiError> {
    Ok(Json(state.api_tokens.revoke(&id).await?))
}
