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
use protocol::api::{NetworkInput, SessionStatus, SignIn};
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
    responses((status = 200, body = NetworkProfile), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
async fn get_network(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(state.networks.get(&parse_id(&id)?).await?).into_response())
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
    params(("id" = String, Path, description = "Network ID")),
    request_body = NetworkInput,
    responses((status = 200, body = NetworkProfile), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
async fn update_network(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(input): ApiJson<NetworkInput>,
) -> Result<Response, ApiError> {
    let profile = state.networks.update(&parse_id(&id)?, input).await?;
    Ok(Json(profile).into_response())
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
