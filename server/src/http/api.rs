//! The JSON admin API under /api/v1: session and network profiles. Paths match
//! the first Control's so existing scripts keep working.

use super::auth::{
    cleared_session_cookie, current_session, device_token, session_token, sign_in_cookies,
};
use super::error::ApiError;
use super::extract::{came_over_https, client_address, ApiJson, ApiQuery};
#[allow(unused_imports)]
use super::openapi::schemas::*;
use crate::domain::audit::{self, AuditFilter, AuditView};
use crate::domain::auth::Attempt;
use crate::domain::networks::PAGE_MAX;
use crate::state::AppState;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use chrono::SecondsFormat;
use protocol::api::{NetworkInput, NetworkProfile, SessionStatus, SignIn};
use protocol::NetworkId;
use serde::Deserialize;
use std::net::SocketAddr;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/session",
            get(session_status).post(sign_in).delete(sign_out),
        )
        .route("/networks", get(list_networks).post(create_network))
        .route(
            "/networks/{id}",
            get(get_network).put(update_network).delete(delete_network),
        )
        .merge(super::agent_api::routes())
        .merge(super::jobs_api::routes())
        .merge(super::agents_api::routes())
        .merge(super::beacons_api::routes())
        .merge(super::onboarding_api::routes())
        .merge(super::diagnostics_api::routes())
        .merge(super::settings_api::routes())
        .merge(super::tokens_api::routes())
        .route("/audit", get(list_audit))
        .route("/events", get(super::events::events))
        .route("/openapi.json", get(super::openapi::openapi_json))
        .fallback(|| async { ApiError::not_found() })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "This path does not accept that method.",
            )
        })
}

fn with_cookies(mut response: Response, cookies: Vec<String>) -> Response {
    for cookie in cookies {
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    response
}

#[utoipa::path(
    post,
    path = "/api/v1/session",
    tag = "session",
    request_body = SignIn,
    responses((status = 200, body = SessionStatus, description = "Signed in; Set-Cookie holds the session"), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody))
)]
async fn sign_in(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiJson(body): ApiJson<SignIn>,
) -> Result<Response, ApiError> {
    let client = client_address(&headers, Some(peer), &state.config.trusted_proxies);
    let device = device_token(&headers);
    let from = Attempt {
        client: &client,
        device: device.as_deref(),
    };
    let session = state.auth.sign_in(&body.password, from).await?;
    let status = SessionStatus {
        authenticated: true,
        expires_at: Some(
            session
                .expires_at
                .to_rfc3339_opts(SecondsFormat::Secs, true),
        ),
    };
    let secure = came_over_https(&headers, Some(peer), &state.config);
    Ok(with_cookies(
        Json(status).into_response(),
        sign_in_cookies(&session, secure),
    ))
}

#[utoipa::path(
    get,
    path = "/api/v1/session",
    tag = "session",
    responses((status = 200, body = SessionStatus), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody))
)]
async fn session_status(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<SessionStatus>, ApiError> {
    let session = current_session(&state, &headers).await?;
    Ok(Json(SessionStatus {
        authenticated: session.is_some(),
        expires_at: session.map(|s| s.expires_at.to_rfc3339_opts(SecondsFormat::Secs, true)),
    }))
}

#[utoipa::path(
    delete,
    path = "/api/v1/session",
    tag = "session",
    responses((status = 200, body = SessionStatus), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody))
)]
async fn sign_out(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if let Some(token) = session_token(&headers) {
        state.auth.sign_out(&token).await?;
    }
    let status = SessionStatus {
        authenticated: false,
        expires_at: None,
    };
    let secure = came_over_https(&headers, Some(peer), &state.config);
    Ok(with_cookies(
        Json(status).into_response(),
        vec![cleared_session_cookie(secure)],
    ))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    after: Option<String>,
    /// Only profiles whose name contains this, ignoring case.
    search: Option<String>,
    limit: Option<u64>,
}

#[utoipa::path(
    get,
    path = "/api/v1/networks",
    tag = "networks",
    params(ListQuery),
    responses((status = 200, body = [NetworkProfile], headers(("X-Next-Cursor" = String, description = "Cursor for the next page, when there is one"))), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
/// All profiles (up to `limit`, default and maximum 500) as a JSON array, like
/// the first Control; `X-Next-Cursor` carries `after` for the next page.
async fn list_networks(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Response, ApiError> {
    let page = state
        .networks
        .list(
            q.after.as_deref(),
            q.search.as_deref(),
            q.limit.unwrap_or(PAGE_MAX),
        )
        .await?;
    Ok(super::extract::page(page.items, page.next))
}

/// A Network ID from the path; a malformed one names no profile (404).
pub(super) fn parse_id(raw: &str) -> Result<NetworkId, ApiError> {
    NetworkId::parse(raw).map_err(|_| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "No network profile with this ID.",
        )
    })
}

#[utoipa::path(
    get,
    path = "/api/v1/networks/{id}",
    tag = "networks",
    params(("id" = String, Path, description = "Network ID")),
    responses((status = 200, body = NetworkProfile, headers(("ETag" = String, description = "The profile's version as an entity tag, e.g. \"3\", for If-Match"))), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
async fn get_network(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(with_etag(state.networks.get(&parse_id(&id)?).await?))
}

/// The profile as JSON with its version as a strong entity tag.
fn with_etag(profile: NetworkProfile) -> Response {
    let etag = format!("\"{}\"", profile.version);
    let mut response = Json(profile).into_response();
    if let Ok(v) = HeaderValue::from_str(&etag) {
        response.headers_mut().insert(header::ETAG, v);
    }
    response
}

/// The version an `If-Match` header asks for: `None` without the header or
/// for `*` (any version; the profile must exist). Only one strong tag of
/// digits (what `ETag` gives) is understood: a weak tag never matches
/// under If-Match, and a list would leave the version ambiguous.
fn if_match_version(headers: &HeaderMap) -> Result<Option<i64>, ApiError> {
    let mut values = headers.get_all(header::IF_MATCH).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return match headers.contains_key(header::IF_MATCH) {
            true => Err(invalid_if_match()),
            false => Ok(None),
        };
    };
    let text = value.to_str().map_err(|_| invalid_if_match())?.trim();
    if text == "*" {
        return Ok(None);
    }
    text.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|digits| digits.parse().ok())
        .map(Some)
        .ok_or_else(invalid_if_match)
}

fn invalid_if_match() -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "invalid_if_match",
        "If-Match must be one entity tag as the profile's ETag gives it, e.g. \"3\", or *.",
    )
    .on_field("If-Match")
    .hint("Send the ETag of GET /api/v1/networks/{id}, or `version` in the body instead.")
}

#[utoipa::path(
    post,
    path = "/api/v1/networks",
    tag = "networks",
    request_body = NetworkInput,
    responses((status = 201, body = NetworkProfile), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
async fn create_network(
    State(state): State<AppState>,
    ApiJson(input): ApiJson<NetworkInput>,
) -> Result<Response, ApiError> {
    let profile = state.networks.create(input).await?;
    Ok((StatusCode::CREATED, Json(profile)).into_response())
}

#[utoipa::path(
    put,
    path = "/api/v1/networks/{id}",
    tag = "networks",
    params(
        ("id" = String, Path, description = "Network ID"),
        ("If-Match" = Option<String>, Header, description = "The profile's ETag (its version, e.g. \"3\"): the same as `version` in the body; both may be given only if they agree. `*` or no header: no version check, unless the body has one"),
    ),
    request_body(content = NetworkInput, description = "The whole profile. With `version` (or If-Match), a profile changed since that version is left as it is and 409 `stale_profile` answers; without, it is replaced whatever its version"),
    responses(
        (status = 200, body = NetworkProfile, headers(("ETag" = String, description = "The new version as an entity tag"))),
        (status = 409, description = "`stale_profile`: the profile changed since the version sent (nothing was saved; read it again and reapply the change)", body = ErrorBody),
        (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)
    ),
    security(("session" = []), ("token" = []))
)]
async fn update_network(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    ApiJson(mut input): ApiJson<NetworkInput>,
) -> Result<Response, ApiError> {
    if let Some(tagged) = if_match_version(&headers)? {
        if input.version.is_some_and(|v| v != tagged) {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "version_mismatch",
                "If-Match and `version` name different versions.",
            )
            .on_field("version")
            .hint("Send one of them, or the same version in both."));
        }
        input.version = Some(tagged);
    }
    Ok(with_etag(
        state.networks.update(&parse_id(&id)?, input).await?,
    ))
}

#[utoipa::path(
    delete,
    path = "/api/v1/networks/{id}",
    tag = "networks",
    params(("id" = String, Path, description = "Network ID")),
    responses((status = 204, description = "Deleted"), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
async fn delete_network(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = parse_id(&id)?;
    state.networks.delete(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    get,
    path = "/api/v1/audit",
    tag = "audit",
    params(AuditFilter),
    responses((status = 200, body = [AuditEntry]), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
/// `GET /api/v1/audit?action=&subject=&before=&limit=`: newest first.
async fn list_audit(
    State(state): State<AppState>,
    ApiQuery(filter): ApiQuery<AuditFilter>,
) -> Result<Json<Vec<AuditView>>, ApiError> {
    Ok(Json(audit::list(&state.db, &filter).await?))
}
