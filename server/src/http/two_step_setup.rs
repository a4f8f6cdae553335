//! The page a second-factor setup link opens: `/two-step-setup/<token>`
//! (`domain::access::second_factor::setup_link`). A usable link leaves its
//! token in this browser (an HttpOnly cookie, as long as the link lasts)
//! and leads to the sign-in screen, which then sets the second factor up;
//! the token is used up only once the set-up is confirmed, so opening the
//! link (as a chat app's preview would) changes nothing on the server. An
//! unknown, used or expired link gets a page that says so. Views are
//! limited per client address like the other link pages.

use super::error::ApiError;
use super::extract::{came_over_https, client_address, PathParam};
use super::lang::request_lang;
use super::security::CspNonce;
use super::trust_browser::LinkToken;
use crate::domain::access::second_factor::LINK_LIFETIME;
use crate::state::AppState;
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use protocol::Lang;
use std::net::SocketAddr;

pub async fn show(
    State(state): State<AppState>,
    Extension(nonce): Extension<CspNonce>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    PathParam(token): PathParam<LinkToken>,
) -> Result<Response, ApiError> {
    let lang = request_lang(&headers);
    let client = client_address(&headers, Some(peer), &state.config.trusted_proxies);
    if let Err(wait) = state.invite_throttle.check(&client) {
        let mut busy = super::welcome_page::message_page(
            StatusCode::TOO_MANY_REQUESTS,
            lang,
            title(lang),
            busy(lang),
            &nonce,
        );
        if let Ok(v) = HeaderValue::from_str(&wait.to_string()) {
            busy.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return Ok(busy);
    }
    let usable = match &token {
        Some(LinkToken(token)) => state.second_factors.setup_token_usable(token).await?,
        None => false,
    };
    let Some(LinkToken(token)) = token.filter(|_| usable) else {
        return Ok(super::welcome_page::message_page(
            StatusCode::GONE,
            lang,
            title(lang),
            unusable(lang),
            &nonce,
        ));
    };
    let secure = came_over_https(&headers, Some(peer), &state.config);
    let cookie = super::auth::setup_cookie(&token, secure, LINK_LIFETIME);
    let mut response = (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, "/login?two_step=setup")],
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, v);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

fn title(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "Set up two-step sign-in",
        Lang::Ru => "Настройка двухэтапного входа",
    }
}

fn unusable(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "This setup link is unknown, was already used, or has expired. Ask the owner of this Control for a new one.",
        Lang::Ru => "Эта ссылка для настройки неизвестна, уже использована или истекла. Попросите владельца этого Control о новой.",
    }
}

fn busy(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "Too many requests from your address; try again in a minute.",
        Lang::Ru => "Слишком много запросов с вашего адреса; повторите через минуту.",
    }
}
