//! The page an invitation link for a person opens: `/welcome/<token>`.
//! Plain server-rendered HTML (it works before and without WebAssembly),
//! in the visitor's language. Opening it changes nothing, so a chat app's
//! link preview cannot use it up; the form posts back to the same path
//! (same-origin only, `security::same_origin_only`), creates the person
//! (`domain::access::users::Users::accept_invite`) and signs them in.
//! Views are limited per client address like invite pages.

use super::auth::sign_in_cookies;
use super::error::ApiError;
use super::extract::{came_over_https, client_address};
use super::lang::request_lang;
use super::security::CspNonce;
use super::trust_browser::LinkToken;
use crate::domain::access::sign_in::{Attempt, AuthError, Credentials};
use crate::domain::access::users::UserError;
use crate::http::extract::PathParam;
use crate::state::AppState;
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Form};
use leptos::prelude::*;
use leptos::tachys::view::RenderHtml;
use protocol::refusals::Refusal;
use protocol::users::{Role, WelcomeInput, PASSWORD_MIN};
use protocol::{FieldError, Lang};
use std::net::SocketAddr;

pub use crate::domain::access::users::WELCOME_PATH;

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:30rem;margin:2rem auto;\
    padding:0 1rem;line-height:1.5}h1{font-size:1.4rem}label{display:block;margin-top:1rem;\
    font-weight:600}input{box-sizing:border-box;width:100%;font-size:1rem;padding:.5rem}\
    button{margin-top:1.2rem;font-size:1rem;padding:.6rem 1.2rem}.error{color:#b3261e}\
    .muted{color:#555}@media(prefers-color-scheme:dark){body{background:#111418;color:#e6e8eb}\
    .muted{color:#a8b0bd}.error{color:#f2b8b5}}";

struct Texts {
    title: &'static str,
    intro: &'static str,
    role: &'static str,
    name: &'static str,
    name_hint: &'static str,
    password: &'static str,
    password_again: &'static str,
    submit: &'static str,
    unusable_title: &'static str,
    busy: &'static str,
}

fn texts(lang: Lang) -> Texts {
    match lang {
        Lang::En => Texts {
            title: "Join KnotRoute Control",
            intro: "You were invited to administer this KnotRoute network. Choose the name you will sign in with and a password.",
            role: "Your role:",
            name: "Name",
            name_hint: "Lowercase letters, digits, '.', '_' or '-', e.g. anna.",
            password: "Password",
            password_again: "Password again",
            submit: "Create my account",
            unusable_title: "This link cannot be used",
            busy: "Too many requests from your address; try again in a minute.",
        },
        Lang::Ru => Texts {
            title: "Доступ к KnotRoute Control",
            intro: "Вас пригласили администрировать эту сеть KnotRoute. Выберите имя для входа и пароль.",
            role: "Ваша роль:",
            name: "Имя",
            name_hint: "Строчные латинские буквы, цифры, '.', '_' или '-', например anna.",
            password: "Пароль",
            password_again: "Пароль ещё раз",
            submit: "Создать учётную запись",
            unusable_title: "Эту ссылку нельзя использовать",
            busy: "Слишком много запросов с вашего адреса; повторите через минуту.",
        },
    }
}

fn html(
    status: StatusCode,
    lang: Lang,
    title: &str,
    nonce: &CspNonce,
    body: impl RenderHtml,
) -> Response {
    let nonce = nonce.0.clone();
    // No `no-referrer` here: the server-wide `Referrer-Policy: same-origin`
    // already keeps the token from other sites, and `no-referrer` makes the
    // browser post the form with `Origin: null`, which the same-origin check
    // refuses (no one could accept an invitation).
    let page = view! {
        <!DOCTYPE html>
        <html lang=lang.code()>
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="robots" content="noindex, nofollow" />
                <title>{format!("{title} · KnotRoute Control")}</title>
                <style nonce=nonce inner_html=STYLE></style>
            </head>
            <body><main><h1>{title.to_string()}</h1>{body}</main></body>
        </html>
    }
    .to_html();
    let mut response = super::invite_page::html_response(status, page);
    // The token is in the URL: never let a cache keep the page.
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// A page of one message under `title`, in the style of this one (for the
/// other one-time links' pages).
pub(super) fn message_page(
    status: StatusCode,
    lang: Lang,
    title: &str,
    message: &'static str,
    nonce: &CspNonce,
) -> Response {
    html(
        status,
        lang,
        title,
        nonce,
        view! { <p id="link-message">{message}</p> },
    )
}

fn unusable(lang: Lang, nonce: &CspNonce) -> Response {
    let refusal = Refusal::UserInviteUnusable;
    let body = view! {
        <p id="welcome-refused">{refusal.message(lang)}</p>
        <p class="muted">{refusal.hint(lang).unwrap_or_default()}</p>
    };
    html(
        StatusCode::GONE,
        lang,
        texts(lang).unusable_title,
        nonce,
        body,
    )
}

fn throttled(
    state: &AppState,
    headers: &HeaderMap,
    peer: SocketAddr,
    lang: Lang,
    nonce: &CspNonce,
) -> Option<Response> {
    let client = client_address(headers, Some(peer), &state.config.trusted_proxies);
    let wait = state.invite_throttle.check(&client).err()?;
    let t = texts(lang);
    let mut response = html(
        StatusCode::TOO_MANY_REQUESTS,
        lang,
        t.title,
        nonce,
        view! { <p>{t.busy}</p> },
    );
    if let Ok(v) = HeaderValue::from_str(&wait.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, v);
    }
    Some(response)
}

/// The form, with the name typed so far and each refused field's message.
fn form(role: Role, name: &str, errors: &[FieldError], lang: Lang, nonce: &CspNonce) -> Response {
    let t = texts(lang);
    let error_of = |field: &str| {
        errors
            .iter()
            .find(|e| e.field == field)
            .map(|e| e.message(lang))
    };
    let field_error = |field: &'static str| {
        error_of(field).map(|message| {
            view! { <p class="error" id=format!("{field}-error") role="alert">{message}</p> }
        })
    };
    let invalid = |field: &str| error_of(field).is_some().then_some("true");
    let body = view! {
        <p>{t.intro}</p>
        <p>{t.role}" "<strong id="welcome-role">{role.as_str()}</strong></p>
        <form method="post" id="welcome-form">
            <label for="name">{t.name}</label>
            <input id="name" name="name" autocomplete="username" autocapitalize="none"
                spellcheck="false" required autofocus value=name.to_string()
                aria-invalid=invalid("name") aria-describedby="name-hint" />
            <p class="muted" id="name-hint">{t.name_hint}</p>
            {field_error("name")}
            <label for="password">{t.password}</label>
            <input id="password" name="password" type="password" autocomplete="new-password"
                required minlength=PASSWORD_MIN.to_string() aria-invalid=invalid("password") />
            {field_error("password")}
            <label for="password_again">{t.password_again}</label>
            <input id="password_again" name="password_again" type="password"
                autocomplete="new-password" required aria-invalid=invalid("password_again") />
            {field_error("password_again")}
            <button type="submit">{t.submit}</button>
        </form>
    };
    let status = if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    html(status, lang, t.title, nonce, body)
}

pub async fn show(
    State(state): State<AppState>,
    Extension(nonce): Extension<CspNonce>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    PathParam(token): PathParam<LinkToken>,
) -> Result<Response, ApiError> {
    let lang = request_lang(&headers);
    if let Some(refused) = throttled(&state, &headers, peer, lang, &nonce) {
        return Ok(refused);
    }
    let Some(LinkToken(token)) = token else {
        return Ok(unusable(lang, &nonce));
    };
    Ok(match state.users.invite_role(&token).await? {
        Some(role) => form(role, "", &[], lang, &nonce),
        None => unusable(lang, &nonce),
    })
}

pub async fn accept(
    State(state): State<AppState>,
    Extension(nonce): Extension<CspNonce>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    PathParam(token): PathParam<LinkToken>,
    Form(input): Form<WelcomeInput>,
) -> Result<Response, ApiError> {
    let lang = request_lang(&headers);
    if let Some(refused) = throttled(&state, &headers, peer, lang, &nonce) {
        return Ok(refused);
    }
    let Some(LinkToken(token)) = token else {
        return Ok(unusable(lang, &nonce));
    };
    let (id, name) = match state.users.accept_invite(&token, &input).await {
        Ok(created) => created,
        Err(UserError::Invalid(errors)) => {
            return Ok(match state.users.invite_role(&token).await? {
                Some(role) => form(role, &input.name, &errors, lang, &nonce),
                None => unusable(lang, &nonce),
            });
        }
        Err(UserError::InviteUnusable) => return Ok(unusable(lang, &nonce)),
        Err(e) => return Err(e.into()),
    };
    // Signed in as anyone else would be, through the same throttle and marks.
    let client = client_address(&headers, Some(peer), &state.config.trusted_proxies);
    let secure = came_over_https(&headers, Some(peer), &state.config);
    let device = super::auth::device_token(&headers, secure);
    // The invitation is what lets the newcomer set up the second factor the
    // owner requires (`second_factor::setup_link`): a setup token for them,
    // which this browser keeps for the sign-in screen.
    let setup = if state.second_factors.required().await? {
        Some(
            state
                .second_factors
                .setup_token_for_newcomer(id.as_str())
                .await?,
        )
    } else {
        None
    };
    let credentials = Credentials {
        name: &name,
        password: &input.password,
        code: None,
        setup: setup.as_deref(),
    };
    let from = Attempt {
        client: &client,
        device: device.as_deref(),
    };
    let session = match state.auth.sign_in(credentials, from).await {
        Ok(session) => session,
        // Others' failed guesses from this address hold sign-ins back; the
        // account exists, so the sign-in screen is where to go on.
        Err(AuthError::Throttled { .. }) => {
            return Ok((StatusCode::SEE_OTHER, [(header::LOCATION, "/login")]).into_response())
        }
        // The owner requires a second factor: the sign-in screen sets it up,
        // with the setup token this browser now holds.
        Err(AuthError::SetUpSecondFactor(_)) => {
            let to = "/login?two_step=setup";
            let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, to)]).into_response();
            let lifetime = crate::domain::access::second_factor::LINK_LIFETIME;
            let cookie = setup
                .as_deref()
                .map(|token| super::auth::setup_cookie(token, secure, lifetime));
            if let Some(v) = cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
                response.headers_mut().append(header::SET_COOKIE, v);
            }
            return Ok(response);
        }
        Err(e) => return Err(e.into()),
    };
    let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
    for cookie in sign_in_cookies(&session, secure) {
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    Ok(response)
}
