//! Session cookies and the gate in front of everything that needs a signed-in
//! admin; on /api/v1 a personal API token (`Authorization: Bearer`) also opens it.

use super::error::ApiError;
use super::extract::cookie_value;
use crate::domain::audit;
use crate::domain::auth::{AdminSession, NewSession, DEVICE_LIFETIME, SESSION_LIFETIME};
use crate::state::AppState;
use app::error::UiError;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use cookie::{Cookie, SameSite};
use protocol::tokens::TokenScope;

pub const SESSION_COOKIE: &str = "kr_session";

/// The session token from the Cookie header, if any.
pub fn session_token(headers: &HeaderMap) -> Option<String> {
    cookie_value(headers, SESSION_COOKIE).filter(|v| !v.is_empty() && v.len() <= 128)
}

/// `Set-Cookie` for a new session: HttpOnly, SameSite=Strict, and `Secure`
/// when the browser came over HTTPS (`extract::came_over_https`).
pub fn session_cookie(token: &str, secure: bool) -> String {
    let lifetime = cookie::time::Duration::seconds(SESSION_LIFETIME.num_seconds());
    build_cookie(SESSION_COOKIE, token, lifetime, secure)
}

/// `Set-Cookie` that removes the session cookie.
pub fn cleared_session_cookie(secure: bool) -> String {
    build_cookie(SESSION_COOKIE, "", cookie::time::Duration::ZERO, secure)
}

/// Marks this browser as one the admin signed in with before, so that
/// others' failed guesses from the same address do not lock it out
/// (`domain::auth::AuthService::sign_in`). It opens nothing by itself.
pub const DEVICE_COOKIE: &str = "kr_device";

/// The known-browser token from the Cookie header, if any.
pub fn device_token(headers: &HeaderMap) -> Option<String> {
    cookie_value(headers, DEVICE_COOKIE).filter(|v| !v.is_empty() && v.len() <= 128)
}

/// `Set-Cookie` for a known-browser token, with the same flags as the session.
pub fn device_cookie(token: &str, secure: bool) -> String {
    let lifetime = cookie::time::Duration::seconds(DEVICE_LIFETIME.num_seconds());
    build_cookie(DEVICE_COOKIE, token, lifetime, secure)
}

fn build_cookie(name: &str, value: &str, max_age: cookie::time::Duration, secure: bool) -> String {
    Cookie::build((name.to_string(), value.to_string()))
        .path("/")
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(secure)
        .max_age(max_age)
        .build()
        .to_string()
}

/// The `Set-Cookie` values for a session just opened: the session, and the
/// known-browser mark when a new one was issued.
pub fn sign_in_cookies(session: &NewSession, secure: bool) -> Vec<String> {
    let mut cookies = vec![session_cookie(&session.token, secure)];
    if let Some(device) = &session.new_device {
        cookies.push(device_cookie(device, secure));
    }
    cookies
}

pub async fn current_session(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<Option<AdminSession>, ApiError> {
    let Some(token) = session_token(headers) else {
        return Ok(None);
    };
    Ok(state.auth.session(&token).await?)
}

/// What a path needs before it is served.
enum Access {
    Public,
    Api,
    ServerFn,
    Page,
}

fn access_for(path: &str) -> Access {
    const PUBLIC_PREFIXES: [&str; 3] = ["/pkg/", "/lang/", "/join/"];
    // /metrics checks its own bearer token.
    const PUBLIC_PATHS: [&str; 8] = [
        "/login",
        "/healthz",
        "/readyz",
        "/metrics",
        "/favicon.svg",
        "/api/v1/session",
        "/api/v1/openapi.json",
        app::api::SIGN_IN_PATH,
    ];
    if PUBLIC_PATHS.contains(&path)
        || PUBLIC_PREFIXES.iter().any(|p| path.starts_with(p))
        || super::agent_api::is_agent_protocol_path(path)
    {
        Access::Public
    } else if path.starts_with("/api/") {
        Access::Api
    } else if path.starts_with(app::api::SERVER_FN_PREFIX)
        && path[app::api::SERVER_FN_PREFIX.len()..].starts_with('/')
    {
        Access::ServerFn
    } else {
        Access::Page
    }
}

/// Lets a request through only with a valid session, except public paths.
/// Pages redirect to the sign-in screen; API and server-function calls get 401.
pub async fn require_admin(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_string();
    let access = access_for(&path);
    if matches!(access, Access::Public) {
        // Someone already signed in has no use for the sign-in screen.
        if path == "/login" {
            if let Ok(Some(_)) = current_session(&state, request.headers()).await {
                return Redirect::to("/").into_response();
            }
        }
        return next.run(request).await;
    }
    if matches!(access, Access::Api) {
        if let Some(token) = bearer_token(request.headers()) {
            return match state.api_tokens.authenticate(&token).await {
                Ok(Some((name, scope))) => match token_refusal(scope, request.method(), &path) {
                    Some(refusal) => refusal.into_response(),
                    // The audit log names the token, not "admin".
                    None => {
                        audit::ADMIN_ACTOR
                            .scope(format!("token:{name}"), next.run(request))
                            .await
                    }
                },
                Ok(None) => ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "invalid_token",
                    "This API token is not known, or it was revoked.",
                )
                .hint("Create a token under Settings → API tokens and send it as Authorization: Bearer krt_….")
                .into_response(),
                Err(e) => ApiError::from(e).into_response(),
            };
        }
    }
    let session = match current_session(&state, request.headers()).await {
        Ok(s) => s,
        Err(e) => return e.into_response(),
    };
    if session.is_some() {
        return next.run(request).await;
    }
    match access {
        Access::Api => ApiError::unauthenticated().into_response(),
        // Server functions decode their error type from the body.
        Access::ServerFn => (
            StatusCode::UNAUTHORIZED,
            [(header::CONTENT_TYPE, "application/json")],
            serde_json::to_string(&UiError::Unauthenticated).unwrap_or_default(),
        )
            .into_response(),
        _ => {
            let target = match request.uri().path_and_query() {
                Some(pq) if path != "/" => format!("/login?next={}", urlencode(pq.as_str())),
                _ => "/login".to_string(),
            };
            Redirect::to(&target).into_response()
        }
    }
}

/// The token of an `Authorization: Bearer …` header, if any.
pub fn bearer_token(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// Why a valid token may not make this request, if it may not.
fn token_refusal(scope: TokenScope, method: &Method, path: &str) -> Option<ApiError> {
    if path == super::tokens_api::TOKENS_PATH
        || path.starts_with(&format!("{}/", super::tokens_api::TOKENS_PATH))
    {
        return Some(
            ApiError::new(
                StatusCode::FORBIDDEN,
                "session_required",
                "API tokens are managed only by a signed-in admin, not with a token.",
            )
            .hint("Sign in to Control and open Settings → API tokens."),
        );
    }
    let reads = matches!(*method, Method::GET | Method::HEAD);
    (scope == TokenScope::Read && !reads).then(|| {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "read_only_token",
            "This API token may only read (GET); this request changes something.",
        )
        .hint("Create a token with the write scope for scripts that change things.")
    })
}

fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_cookie_is_http_only_strict_and_secure_only_over_https() {
        let plain = session_cookie("tok", false);
        assert!(
            plain.contains("HttpOnly")
                && plain.contains("SameSite=Strict")
                && !plain.contains("Secure")
        );
        assert!(session_cookie("tok", true).contains("Secure"));
        assert!(session_cookie("tok", true).contains("Max-Age=43200"));
        assert!(cleared_session_cookie(true).contains("Secure"));
        let device = device_cookie("dev", true);
        assert!(device.starts_with("kr_device=dev;") && device.contains("HttpOnly"));
        assert!(device.contains("SameSite=Strict") && device.contains("Secure"));
    }

    #[test]
    fn the_session_token_is_read_among_other_cookies() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            "kr_lang=ru; kr_session=abc123".parse().unwrap(),
        );
        assert_eq!(session_token(&h).as_deref(), Some("abc123"));
    }
}
