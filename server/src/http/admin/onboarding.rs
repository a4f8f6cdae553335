//! Admin API for onboarding: a profile's guide per platform (text, deep link,
//! QR code) and the invites (create, list, revoke).

use crate::domain::access::roles::ManageInvites;
use crate::domain::onboarding::guide;
use crate::http::error::ApiError;
use crate::http::extract::{page, Allowed, ApiJson, ApiPath, ApiQuery, Reader};
use crate::http::lang::chosen_lang;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::Json;
use protocol::onboarding::{CreatedInvite, InviteView, NewInvite, OnboardingGuide, Platform};
use protocol::InviteId;
use protocol::NetworkId;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(network_onboarding))
        .routes(routes!(list_invites, create_invite))
        .routes(routes!(revoke_invite))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct GuideQuery {
    platform: Option<String>,
    lang: Option<String>,
}

fn platform_error() -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "invalid_platform",
        "Unknown or missing platform.",
    )
    .hint("Use platform=windows, android, ios, linux, docker or raw.")
    .on_field("platform")
}

#[utoipa::path(
    get,
    path = "/api/v1/networks/{id}/onboarding",
    tag = "onboarding",
    params(("id" = String, Path, description = "Network ID"), GuideQuery),
    responses((status = 200, body = OnboardingGuide))
)]
/// `GET /api/v1/networks/{id}/onboarding?platform=…&lang=ru|en`.
async fn network_onboarding(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiPath(id): ApiPath<NetworkId>,
    headers: HeaderMap,
    ApiQuery(q): ApiQuery<GuideQuery>,
) -> Result<Json<OnboardingGuide>, ApiError> {
    let platform = q
        .platform
        .as_deref()
        .and_then(Platform::parse)
        .ok_or_else(platform_error)?;
    let lang = chosen_lang(q.lang.as_deref(), &headers)?;
    let profile = state.networks.get(who.networks(), &id).await?;
    Ok(Json(guide::guide(&profile, "", platform, lang)))
}

#[utoipa::path(
    post,
    path = "/api/v1/invites",
    tag = "onboarding",
    request_body = NewInvite,
    responses((status = 201, body = CreatedInvite))
)]
/// 201 with the link: the only time it is shown.
async fn create_invite(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageInvites>,
    ApiJson(input): ApiJson<NewInvite>,
) -> Result<(StatusCode, Json<CreatedInvite>), ApiError> {
    Ok((
        StatusCode::CREATED,
        Json(state.invites.create(&by, &input).await?),
    ))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct InvitePage {
    network_id: Option<String>,
    after: Option<String>,
    #[serde(default = "default_limit")]
    limit: u64,
}

fn default_limit() -> u64 {
    100
}

#[utoipa::path(
    get,
    path = "/api/v1/invites",
    tag = "onboarding",
    params(InvitePage),
    responses((status = 200, body = [InviteView], headers(("X-Next-Cursor" = String, description = "Cursor for the next page, when there is one"))))
)]
/// Newest first; `X-Next-Cursor` carries `after` for the next page.
async fn list_invites(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiQuery(q): ApiQuery<InvitePage>,
) -> Result<Response, ApiError> {
    let network = match q.network_id.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        Some(raw) => Some(NetworkId::parse(raw).map_err(|_| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_id",
                "network_id is not a Network ID.",
            )
            .on_field("network_id")
        })?),
    };
    let (rows, next) = state
        .invites
        .list(
            who.networks(),
            network.as_ref(),
            q.after.as_deref(),
            q.limit,
        )
        .await?;
    Ok(page(rows, next))
}

#[utoipa::path(
    delete,
    path = "/api/v1/invites/{id}",
    tag = "onboarding",
    params(("id" = String, Path, description = "Invite ID")),
    responses((status = 200, body = InviteView))
)]
/// Revokes the invite (its page then answers 410); the record stays listed.
async fn revoke_invite(
    State(state): State<AppState>,
    Allowed(by): Allowed<ManageInvites>,
    ApiPath(id): ApiPath<InviteId>,
) -> Result<Json<InviteView>, ApiError> {
    Ok(Json(state.invites.revoke(&by, &id).await?))
}
