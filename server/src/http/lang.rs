//! The language switch: remembered in a cookie, otherwise taken from the browser.

use super::extract::{came_over_https, cookie_value};
use crate::http::extract::PathParam;
use crate::state::AppState;
use app::i18n::{Lang, LANG_COOKIE};
use axum::extract::{ConnectInfo, Query, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Redirect, Response};
use cookie::{Cookie, SameSite};
use serde::Deserialize;
use std::net::SocketAddr;

/// The request's language: the remembered choice, else `Accept-Language`.
/// `?lang=` when given (refused by name when unknown), else [`request_lang`].
pub fn chosen_lang(
    query: Option<&str>,
    headers: &HeaderMap,
) -> Result<Lang, super::error::ApiError> {
    match query {
        None => Ok(request_lang(headers)),
        Some(code) => Lang::from_code(code).ok_or_else(|| {
            super::error::ApiError::new(
                axum::http::StatusCode::BAD_REQUEST,
                "invalid_lang",
                "Unknown language.",
            )
            .hint("Use lang=en or lang=ru.")
            .on_field("lang")
        }),
    }
}

pub fn request_lang(headers: &HeaderMap) -> Lang {
    let chosen = cookie_value(headers, LANG_COOKIE).and_then(|v| Lang::from_code(&v));
    chosen.unwrap_or_else(|| {
        Lang::from_accept_language(
            headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or(""),
        )
    })
}

#[derive(Deserialize)]
pub struct Next {
    next: Option<String>,
}

/// `GET /lang/{code}?next=/path`: remembers the language for a year and goes back.
pub async fn switch_language(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    PathParam(lang): PathParam<Lang>,
    Query(q): Query<Next>,
) -> Response {
    let next = app::safe_next(q.next);
    let Some(lang) = lang else {
        return Redirect::to(&next).into_response();
    };
    let cookie = Cookie::build((LANG_COOKIE, lang.code()))
        .path("/")
        .same_site(SameSite::Lax)
        .secure(came_over_https(&headers, Some(peer), &state.config))
        .max_age(cookie::time::Duration::days(365))
        .build()
        .to_string();
    ([(header::SET_COOKIE, cookie)], Redirect::to(&next)).into_response()
}
