//! People in the admin API (the owner only, `ManageUsers`): `GET
//! /api/v1/users`, `POST /api/v1/users/invites` for a one-time link (in the
//! answer only), `PATCH /api/v1/users/{id}` to change a role or disable,
//! `POST /api/v1/users/{id}/sessions/end` and `DELETE /api/v1/users/{id}`.

use crate::domain::access::roles::ManageUsers;
use crate::http::error::ApiError;
use crate::http::extract::{Allowed, ApiJson, ApiPath};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use protocol::users::{CreatedUserInvite, UserChange, UserInviteInput, UserView};
use protocol::UserId;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_users))
        .routes(routes!(invite_user))
        .routes(routes!(change_user, delete_user))
        .routes(routes!(end_user_sessions))
}

#[utoipa::path(
    get,
    path = "/api/v1/users",
    tag = "users",
    responses((status = 200, body = [UserView]))
)]
async fn list_users(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageUsers>,
) -> Result<Json<Vec<UserView>>, ApiError> {
    Ok(Json(state.users.list(&by).await?))
}

#[utoipa::path(
    post,
    path = "/api/v1/users/invites",
    tag = "users",
    request_body = UserInviteInput,
    responses((status = 201, body = CreatedUserInvite, description = "The link is in this answer only"))
)]
async fn invite_user(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageUsers>,
    ApiJson(input): ApiJson<UserInviteInput>,
) -> Result<(StatusCode, Json<CreatedUserInvite>), ApiError> {
    Ok((
        StatusCode::CREATED,
        Json(state.users.invite(&by, &input).await?),
    ))
}

#[utoipa::path(
    patch,
    path = "/api/v1/users/{id}",
    tag = "users",
    params(("id" = String, Path, description = "User ID")),
    request_body = UserChange,
    responses((status = 200, body = UserView))
)]
async fn change_user(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageUsers>,
    ApiPath(id): ApiPath<UserId>,
    ApiJson(change): ApiJson<UserChange>,
) -> Result<Json<UserView>, ApiError> {
    Ok(Json(state.users.change(&by, &id, &change).await?))
}

#[utoipa::path(
    delete,
    path = "/api/v1/users/{id}",
    tag = "users",
    params(("id" = String, Path, description = "User ID")),
    responses((status = 204, description = "Deleted; their sessions ended and tokens were revoked"))
)]
async fn delete_user(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageUsers>,
    ApiPath(id): ApiPath<UserId>,
) -> Result<StatusCode, ApiError> {
    state.users.delete(&by, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    post,
    path = "/api/v1/users/{id}/sessions/end",
    tag = "users",
    params(("id" = String, Path, description = "User ID")),
    responses((status = 200, body = UserView))
)]
async fn end_user_sessions(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageUsers>,
    ApiPath(id): ApiPath<UserId>,
) -> Result<Json<UserView>, ApiError> {
    Ok(Json(state.users.end_sessions(&by, &id).await?))
}
