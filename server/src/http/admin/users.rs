//! People in the admin API (the owner only, `ManageUsers`): `GET
//! /api/v1/users`, `POST /api/v1/users/invites` for a one-time link (in the
//! answer only), `PATCH /api/v1/users/{id}` to change a role or disable,
//! `POST /api/v1/users/{id}/sessions/end` and `DELETE /api/v1/users/{id}`;
//! `GET`/`PUT /api/v1/users/second-factor` (required of everyone or not) and
//! `DELETE /api/v1/users/{id}/second-factor` (reset one person's), `POST
//! /api/v1/users/{id}/second-factor/setup-link` (a link to set one up).

use crate::domain::access::roles::ManageUsers;
use crate::http::error::ApiError;
use crate::http::extract::{Allowed, ApiJson, ApiPath};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use protocol::second_factor::{SecondFactorPolicy, SetupLink};
use protocol::users::{CreatedUserInvite, UserChange, UserInviteInput, UserView};
use protocol::UserId;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_users))
        .routes(routes!(invite_user))
        .routes(routes!(change_user, delete_user))
        .routes(routes!(end_user_sessions))
        .routes(routes!(second_factor_policy, set_second_factor_policy))
        .routes(routes!(reset_second_factor))
        .routes(routes!(second_factor_setup_link))
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

#[utoipa::path(
    get,
    path = "/api/v1/users/second-factor",
    tag = "users",
    responses((status = 200, body = SecondFactorPolicy))
)]
async fn second_factor_policy(
    State(state): State<AppState>,
    Allowed(_by): Allowed<ManageUsers>,
) -> Result<Json<SecondFactorPolicy>, ApiError> {
    let required = state.second_factors.required().await?;
    Ok(Json(SecondFactorPolicy { required }))
}

#[utoipa::path(
    put,
    path = "/api/v1/users/second-factor",
    tag = "users",
    request_body = SecondFactorPolicy,
    responses((status = 200, body = SecondFactorPolicy))
)]
async fn set_second_factor_policy(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageUsers>,
    ApiJson(policy): ApiJson<SecondFactorPolicy>,
) -> Result<Json<SecondFactorPolicy>, ApiError> {
    state
        .second_factors
        .set_required(&by, policy.required)
        .await?;
    Ok(Json(policy))
}

#[utoipa::path(
    delete,
    path = "/api/v1/users/{id}/second-factor",
    tag = "users",
    params(("id" = String, Path, description = "User ID")),
    responses((status = 204, description = "Reset: the next sign-in needs only the password, or sets a new second factor up when one is required"))
)]
async fn reset_second_factor(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageUsers>,
    ApiPath(id): ApiPath<UserId>,
) -> Result<StatusCode, ApiError> {
    state.second_factors.reset(&by, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    post,
    path = "/api/v1/users/{id}/second-factor/setup-link",
    tag = "users",
    params(("id" = String, Path, description = "User ID")),
    responses(
        (status = 201, body = SetupLink, description = "The link, shown once: hand it to the person, who opens it in the browser they sign in with"),
        (status = 409, description = "Their second factor is on already (`second_factor_already_on`), or they sign in through single sign-on (`second_factor_not_applicable`)")
    )
)]
/// A one-time link (24 h) with which the person sets up the second factor
/// the owner requires: the password alone does not set one up.
async fn second_factor_setup_link(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageUsers>,
    ApiPath(id): ApiPath<UserId>,
) -> Result<(StatusCode, Json<SetupLink>), ApiError> {
    let link = state.second_factors.setup_link(&by, &id).await?;
    Ok((StatusCode::CREATED, Json(link)))
}
