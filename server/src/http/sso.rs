//! Single sign-on's two public endpoints: `/auth/oidc/start` sends the
//! browser to the OpenID provider, `/auth/oidc/callback` finishes there
//! (`domain::access::sso`). Every way a callback ends other than signed in
//! leads back to the sign-in screen with `?sso=<why>`, which says it in the
//! person's language (`app::pages::login`).

use super::admin::session::with_cookies;
use super::auth::sign_in_cookies;
use super::extract::{came_over_https, client_address, cookie_value, peer_of};
use crate::domain::access::secrets::secret_matches;
use crate::domain::access::sso::{SsoError, SsoOutcome};
use crate::state::AppState;
use axum::extract::{Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use std::num::NonZeroU32;

/// Sign-ins one address may begin a minute: each stores a row until it
/// expires, so a flood must not fill the table.
const STARTS_PER_MINUTE: u32 = 30;

pub fn start_throttle() -> super::throttle::AddressThrottle {
    super::throttle::AddressThrottle::per_minute(
        NonZeroU32::new(STARTS_PER_MINUTE).expect("non-zero"),
    )
}

#[derive(Deserialize)]
pub struct StartQuery {
    next: Option<String>,
}

/// Ties a sign-in begun to the browser that began it: the callback is
/// finished only for a browser holding the `state` it carries. Without it,
/// someone could begin a sign-in, stop at the callback link and have
/// another person's browser open it, signing that person in as themselves.
/// `SameSite=Lax`: the provider's redirect back is a cross-site navigation,
/// on which a `Strict` cookie would not travel. Over HTTPS it is
/// `__Secure-kr_oidc_flow`: a plain-HTTP page of the domain cannot set that
/// one (`__Host-` would also need the whole site as its path).
const FLOW_COOKIE: &str = "kr_oidc_flow";

fn flow_cookie_name(secure: bool) -> String {
    if secure {
        format!("__Secure-{FLOW_COOKIE}")
    } else {
        FLOW_COOKIE.to_string()
    }
}

fn flow_cookie(state: &str, secure: bool, max_age: i64) -> String {
    cookie::Cookie::build((flow_cookie_name(secure), state.to_string()))
        .path("/auth/oidc/")
        .http_only(true)
        .same_site(cookie::SameSite::Lax)
        .secure(secure)
        .max_age(cookie::time::Duration::seconds(max_age))
        .build()
        .to_string()
}

/// Why the sign-in screen was shown again (`?sso=`), as `app::pages::login` reads it.
fn back_to_sign_in(why: &str) -> Response {
    Redirect::to(&format!("/login?sso={why}")).into_response()
}

pub async fn start(
    State(state): State<AppState>,
    Query(query): Query<StartQuery>,
    request: Request,
) -> Response {
    let Some(sso) = &state.sso else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let peer = peer_of(request.extensions());
    let client = client_address(request.headers(), peer, &state.config.trusted_proxies);
    if let Err(wait) = state.sso_throttle.check(&client) {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, wait.to_string())],
            "Too many sign-ins begun from this address; wait a minute and try again.",
        )
            .into_response();
    }
    let next = app::safe_next(query.next);
    match sso.begin(&next).await {
        Ok(begun) => {
            let secure = came_over_https(request.headers(), peer, &state.config);
            let cookie = flow_cookie(
                &begun.state,
                secure,
                crate::domain::access::sso::FLOW_LIFETIME.num_seconds(),
            );
            with_cookies(Redirect::to(&begun.url).into_response(), vec![cookie])
        }
        Err(e) => {
            // The provider's discovery answer may be in the error: escaped.
            let error = crate::domain::text::for_log(&e.to_string(), 500);
            tracing::warn!(%error, "single sign-on could not begin");
            back_to_sign_in("unavailable")
        }
    }
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    /// The provider's refusal (`access_denied`, …), RFC 6749 4.1.2.1.
    error: Option<String>,
}

pub async fn callback(
    State(state): State<AppState>,
    Query(query): Query<CallbackQuery>,
    headers: HeaderMap,
    request: Request,
) -> Response {
    let Some(sso) = &state.sso else {
        return StatusCode::NOT_FOUND.into_response();
    };
    if let Some(error) = &query.error {
        // Short and printable only: it is the provider's word, not ours.
        let error: String = error
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(40)
            .collect();
        tracing::info!(error, "the identity provider refused a sign-in");
        return back_to_sign_in("refused");
    }
    let (Some(code), Some(flow_state)) = (query.code, query.state) else {
        return back_to_sign_in("expired");
    };
    if code.len() > 2048 || flow_state.len() > 256 {
        return back_to_sign_in("expired");
    }
    let peer = peer_of(request.extensions());
    let secure = came_over_https(&headers, peer, &state.config);
    let began_here = cookie_value(&headers, &flow_cookie_name(secure))
        .is_some_and(|held| secret_matches(&held, &flow_state));
    if !began_here {
        tracing::info!("single sign-on: a callback reached a browser that did not begin it");
        return back_to_sign_in("expired");
    }
    let client = client_address(&headers, peer, &state.config.trusted_proxies);
    match sso.finish(&flow_state, &code, &client).await {
        Ok(SsoOutcome::SignedIn { session, next }) => {
            let mut cookies = sign_in_cookies(&session, secure);
            cookies.push(flow_cookie("", secure, 0));
            continue_to(&next, cookies)
        }
        Ok(SsoOutcome::Pending { name }) => {
            tracing::info!(user = name.as_str(), "single sign-on: waits for approval");
            back_to_sign_in("pending")
        }
        Ok(SsoOutcome::Disabled) => back_to_sign_in("disabled"),
        Err(SsoError::FlowUnknown) => back_to_sign_in("expired"),
        Err(e) => {
            let error = crate::domain::text::for_log(&e.to_string(), 500);
            tracing::warn!(%error, "single sign-on failed");
            back_to_sign_in("failed")
        }
    }
}

/// The session cookie is `SameSite=Strict`, and a browser does not send it
/// on a redirect that a cross-site navigation (the provider's) began. So
/// the callback answers a page that moves on by itself: that navigation
/// starts on Control's own origin and carries the new cookie.
fn continue_to(next: &str, cookies: Vec<String>) -> Response {
    use leptos::prelude::*;
    let next = app::safe_next(Some(next.to_string()));
    let page = view! {
        <!DOCTYPE html>
        <html>
            <head>
                <meta charset="utf-8" />
                <meta http-equiv="refresh" content=format!("0;url={next}") />
                <title>"KnotRoute Control"</title>
            </head>
            <body><p><a href=next.clone()>"Continue to KnotRoute Control"</a></p></body>
        </html>
    }
    .to_html();
    let mut response = super::invite_page::html_response(StatusCode::OK, page);
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    with_cookies(response, cookies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_after_sign_in_goes_only_to_a_local_path_escaped() {
        let page = |next: &str| {
            let r = continue_to(next, vec!["kr_session=x; Path=/".into()]);
            assert_eq!(r.headers()[header::SET_COOKIE], "kr_session=x; Path=/");
            r
        };
        let body = |r: Response| async {
            let bytes = axum::body::to_bytes(r.into_body(), 1 << 16).await.unwrap();
            String::from_utf8(bytes.to_vec()).unwrap()
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let b = body(page("/jobs?x=\"><script>")).await;
            assert!(b.contains("url=/jobs?x=&quot;"), "{b}");
            assert!(!b.contains("\"><script>") && !b.contains("<script>"), "{b}");
            for hostile in ["//evil.example", "https://evil.example", "/\\evil.example"] {
                let b = body(page(hostile)).await;
                assert!(b.contains("url=/\""), "{hostile}: {b}");
            }
        });
    }
}
