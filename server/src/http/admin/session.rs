//! The admin session over the JSON API: sign in with the password, read the
//! session, sign out.

use crate::domain::access::sign_in::{Attempt, Credentials};
use crate::http::auth::{
    cleared_session_cookie, current_session, device_token, session_token, setup_token,
    sign_in_cookies,
};
use crate::http::error::ApiError;
use crate::http::extract::{came_over_https, client_address, ApiJson};
use crate::state::AppState;
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::SecondsFormat;
use protocol::api::{SessionStatus, SignIn};
use std::net::SocketAddr;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(session_status, sign_in, sign_out))
}

/// `response` with each of `cookies` as a `Set-Cookie`.
pub(crate) fn with_cookies(mut response: Response, cookies: Vec<String>) -> Response {
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
    responses((status = 200, body = SessionStatus, description = "Signed in; Set-Cookie holds the session. A person with two-step sign-in is answered 401 `second_factor_needed` until `code` is sent too"))
)]
async fn sign_in(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiJson(body): ApiJson<SignIn>,
) -> Result<Response, ApiError> {
    let client = client_address(&headers, Some(peer), &state.config.trusted_proxies);
    let secure = came_over_https(&headers, Some(peer), &state.config);
    let device = device_token(&headers, secure);
    let setup = setup_token(&headers, secure);
    let from = Attempt {
        client: &client,
        device: device.as_deref(),
    };
    let credentials = Credentials {
        name: &body.name,
        password: &body.password,
        code: body.code.as_deref(),
        setup: setup.as_deref(),
    };
    let session = state.auth.sign_in(credentials, from).await?;
    let status = SessionStatus {
        authenticated: true,
        expires_at: Some(
            session
                .expires_at
                .to_rfc3339_opts(SecondsFormat::Secs, true),
        ),
    };
    Ok(with_cookies(
        Json(status).into_response(),
        sign_in_cookies(&session, secure),
    ))
}

#[utoipa::path(
    get,
    path = "/api/v1/session",
    tag = "session",
    responses((status = 200, body = SessionStatus))
)]
async fn session_status(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Json<SessionStatus>, ApiError> {
    let secure = came_over_https(&headers, Some(peer), &state.config);
    let session = current_session(&state, &headers, secure).await?;
    Ok(Json(SessionStatus {
        authenticated: session.is_some(),
        expires_at: session.map(|s| s.expires_at.to_rfc3339_opts(SecondsFormat::Secs, true)),
    }))
}

#[utoipa::path(
    delete,
    path = "/api/v1/session",
    tag = "session",
    responses((status = 200, body = SessionStatus))
)]
async fn sign_out(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let secure = came_over_https(&headers, Some(peer), &state.config);
    if let Some(token) = session_token(&headers, secure) {
        state.auth.sign_out(&token).await?;
    }
    let status = SessionStatus {
        authenticated: false,
        expires_at: None,
    };
    Ok(with_cookies(
        Json(status).into_response(),
        vec![cleared_session_cookie(secure)],
    ))
}
