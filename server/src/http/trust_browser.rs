//! The page a `knotroute-control trust-browser` link opens: a button that,
//! pressed, makes this browser a known one (`kr_device`), so its sign-in is
//! checked at once however many wrong guesses others send from its address
//! (`domain::access::sign_in` explains the throttling). Opening the link changes nothing,
//! so a chat app's preview fetcher cannot use it up; the press is a same-origin
//! POST (`security::same_origin_only`).

use super::auth::device_cookie;
use super::error::ApiError;
use super::extract::came_over_https;
use super::security::CspNonce;
use crate::http::extract::{FromPathText, PathParam};
use crate::state::AppState;
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Extension;
use std::net::SocketAddr;

/// Where the links point; one path segment (the token) follows.
pub const TRUST_BROWSER_PREFIX: &str = "/trust-browser/";

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;\
    padding:0 1rem;line-height:1.5}h1{font-size:1.4rem}button{font-size:1rem;padding:.6rem 1.2rem}";

/// A page of fixed text (only `title` and `body` from this module, no input).
fn page(nonce: &CspNonce, title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"robots\" content=\"noindex, nofollow\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <title>{title} · KnotRoute Control</title><style nonce=\"{}\">{STYLE}</style></head>\
         <body><main><h1>{title}</h1>{body}</main></body></html>",
        nonce.0
    ))
}

/// A one-time link's token (this page's, and `/welcome/`'s): URL-safe
/// base64 of 32 bytes; anything else cannot be one, and is answered as a
/// used or unknown link without being looked up.
pub struct LinkToken(pub(crate) String);

impl FromPathText for LinkToken {
    fn from_path_text(text: &str) -> Option<Self> {
        let plausible = (16..=128).contains(&text.len())
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        plausible.then(|| LinkToken(text.to_string()))
    }
}

pub async fn show(
    Extension(nonce): Extension<CspNonce>,
    PathParam(token): PathParam<LinkToken>,
) -> Response {
    if token.is_none() {
        return gone(&nonce);
    }
    // The form posts back to this very path, so the token is not repeated here.
    page(
        &nonce,
        "Trust this browser",
        "<p>This makes the browser you are using now one Control knows: it can \
         sign in with the admin password at once, even while someone else sends \
         wrong passwords from the same address. It does not sign you in.</p>\
         <form method=\"post\"><button type=\"submit\" autofocus>Trust this browser</button></form>",
    )
    .into_response()
}

pub async fn claim(
    State(state): State<AppState>,
    Extension(nonce): Extension<CspNonce>,
    PathParam(token): PathParam<LinkToken>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Some(LinkToken(token)) = token else {
        return Ok(gone(&nonce));
    };
    let Some(mark) = state.auth.claim_browser_link(&token).await? else {
        return Ok(gone(&nonce));
    };
    let secure = came_over_https(&headers, Some(peer), &state.config);
    Ok((
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, device_cookie(&mark, secure)),
            (header::LOCATION, "/login".to_string()),
        ],
    )
        .into_response())
}

fn gone(nonce: &CspNonce) -> Response {
    (
        StatusCode::GONE,
        page(
            nonce,
            "This link cannot be used",
            "<p>It was used already, has expired (links last 15 minutes) or was \
             never issued. On the server, run <code>knotroute-control trust-browser</code> \
             for a new one.</p>",
        ),
    )
        .into_response()
}
