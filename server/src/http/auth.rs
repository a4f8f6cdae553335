//! Session cookies and the gate in front of everything that needs a signed-in
//! admin; on /api/v1 a personal API token (`Authorization: Bearer`) also opens it.

use super::error::ApiError;
use super::extract::{came_over_https, cookie_value, peer_of};
use crate::domain::access::sign_in::{AdminSession, NewSession, DEVICE_LIFETIME, SESSION_LIFETIME};
use crate::state::AppState;
use app::error::UiError;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use cookie::{Cookie, SameSite};
use protocol::tokens::TokenScope;

/// The session cookie's name over plain HTTP (a local trial); over HTTPS it
/// is [`cookie_name`]'s `__Host-kr_session`.
pub const SESSION_COOKIE: &str = "kr_session";

/// What a cookie of Control's is called: over HTTPS with the `__Host-`
/// prefix, which a browser accepts only from this very origin, `Secure`,
/// for path `/` and without a `Domain`, so no other site of the domain (a
/// sibling subdomain, a plain-HTTP page) can set one in its place. Over plain
/// HTTP the prefix cannot be had (it needs `Secure`), and the bare name is
/// used; each transport reads only its own name.
pub fn cookie_name(base: &str, secure: bool) -> String {
    if secure {
        format!("__Host-{base}")
    } else {
        base.to_string()
    }
}

/// The session token from the Cookie header, if exactly one is there.
pub fn session_token(headers: &HeaderMap, secure: bool) -> Option<String> {
    cookie_value(headers, &cookie_name(SESSION_COOKIE, secure))
        .filter(|v| !v.is_empty() && v.len() <= 128)
}

/// `Set-Cookie` for a new session: HttpOnly, SameSite=Strict, and `Secure`
/// with the `__Host-` prefix when the browser came over HTTPS
/// (`extract::came_over_https`).
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
/// (`domain::access::sign_in::AdminSessions::sign_in`). It opens nothing by itself.
pub const DEVICE_COOKIE: &str = "kr_device";

/// The known-browser token from the Cookie header, if exactly one is there.
pub fn device_token(headers: &HeaderMap, secure: bool) -> Option<String> {
    cookie_value(headers, &cookie_name(DEVICE_COOKIE, secure))
        .filter(|v| !v.is_empty() && v.len() <= 128)
}

/// `Set-Cookie` for a known-browser token, with the same flags as the session.
pub fn device_cookie(token: &str, secure: bool) -> String {
    let lifetime = cookie::time::Duration::seconds(DEVICE_LIFETIME.num_seconds());
    build_cookie(DEVICE_COOKIE, token, lifetime, secure)
}

/// Holds a second-factor setup link's token in the browser that opened the
/// link (`http::two_step_setup`), for its next sign-in.
pub const SETUP_COOKIE: &str = "kr_two_step_setup";

/// The setup link's token from the Cookie header, if exactly one is there.
pub fn setup_token(headers: &HeaderMap, secure: bool) -> Option<String> {
    cookie_value(headers, &cookie_name(SETUP_COOKIE, secure))
        .filter(|v| !v.is_empty() && v.len() <= 128)
}

/// `Set-Cookie` for a setup link's token, kept as long as the link lasts.
pub fn setup_cookie(token: &str, secure: bool, lifetime: chrono::Duration) -> String {
    let lifetime = cookie::time::Duration::seconds(lifetime.num_seconds().max(0));
    build_cookie(SETUP_COOKIE, token, lifetime, secure)
}

/// One of Control's cookies (`base` named as [`cookie_name`] says): for the
/// whole site, HttpOnly and SameSite=Strict.
fn build_cookie(base: &str, value: &str, max_age: cookie::time::Duration, secure: bool) -> String {
    Cookie::build((cookie_name(base, secure), value.to_string()))
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

/// The session the request's cookie names, if valid; `secure` as
/// `extract::came_over_https` says (it decides the cookie's name).
pub async fn current_session(
    state: &AppState,
    headers: &HeaderMap,
    secure: bool,
) -> Result<Option<AdminSession>, ApiError> {
    let Some(token) = session_token(headers, secure) else {
        return Ok(None);
    };
    Ok(state.auth.session(&token).await?)
}

/// What a path needs before it is served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    Public,
    Api,
    ServerFn,
    Page,
}

/// Prefixes whose paths are public only in the exact shape their own handler
/// serves; anything else below them needs a session like any page.
const STATIC_ASSETS: &str = "/pkg/";
const ONE_SEGMENT_PUBLIC: [&str; 5] = [
    "/lang/",
    "/join/",
    super::TRUST_BROWSER_PREFIX,
    super::welcome_page::WELCOME_PATH,
    crate::domain::access::second_factor::SETUP_PATH,
];

/// Decides on the raw path, which [`super::paths::refuse_ambiguous_paths`] has
/// already checked is read the same way by the router and the renderer.
fn access_for(path: &str) -> Access {
    // /metrics checks its own bearer token.
    const PUBLIC_PATHS: [&str; 10] = [
        "/login",
        crate::domain::access::sso::START_PATH,
        crate::domain::access::sso::CALLBACK_PATH,
        "/healthz",
        "/readyz",
        "/metrics",
        "/favicon.svg",
        "/api/v1/session",
        "/api/v1/openapi.json",
        app::api::SIGN_IN_PATH,
    ];
    let one_segment_under = |prefix: &str| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && !rest.contains('/'))
    };
    if PUBLIC_PATHS.contains(&path)
        || path
            .strip_prefix(STATIC_ASSETS)
            .is_some_and(|rest| !rest.is_empty())
        || ONE_SEGMENT_PUBLIC.iter().any(|p| one_segment_under(p))
        || super::agent_protocol::is_agent_protocol_path(path)
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

/// True when the gate authenticates this path by an API token in
/// `Authorization: Bearer` (and not by the session cookie): only the JSON API.
/// The Origin check may skip exactly these requests, since the token, not a
/// cookie a browser attaches by itself, is what opens them.
pub fn opened_by_api_token(path: &str) -> bool {
    access_for(path) == Access::Api && path.starts_with("/api/v1/")
}

/// Lets a request through only with a valid session, except public paths.
/// Pages, and plain forms posted to a server function, redirect to the
/// sign-in screen; API and server-function calls get 401.
/// A request it lets through carries its [`Principal`] (an extension): who
/// acts, in which role. Handlers ask it for capabilities (`extract::Allowed`),
/// and the Leptos context hands out the admin backend only to requests
/// carrying it, so a mistake in deciding what is public cannot render admin data.
pub async fn require_admin(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_string();
    let access = access_for(&path);
    let secure = came_over_https(
        request.headers(),
        peer_of(request.extensions()),
        &state.config,
    );
    if matches!(access, Access::Public) {
        // Someone already signed in has no use for the sign-in screen.
        if path == "/login" {
            if let Ok(Some(_)) = current_session(&state, request.headers(), secure).await {
                return Redirect::to("/").into_response();
            }
        }
        return next.run(request).await;
    }
    if opened_by_api_token(&path) {
        if let Some(token) = bearer_token(request.headers()) {
            return match state.api_tokens.authenticate(&token).await {
                Ok(Some((principal, scope))) => {
                    match token_refusal(scope, request.method(), &path) {
                        Some(refusal) => refusal.into_response(),
                        None => {
                            let mut request = request;
                            request.extensions_mut().insert(principal);
                            next.run(request).await
                        }
                    }
                }
                Ok(None) => ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "invalid_token",
                    "This API token is not known, was revoked, or its person was disabled.",
                )
                .hint("Create a token under Settings → API tokens and send it as Authorization: Bearer krt_….")
                .into_response(),
                Err(e) => ApiError::from(e).into_response(),
            };
        }
    }
    let session = match current_session(&state, request.headers(), secure).await {
        Ok(s) => s,
        Err(e) => return e.into_response(),
    };
    if let Some(session) = session {
        let mut request = request;
        request.extensions_mut().insert(session.principal);
        return next.run(request).await;
    }
    match access {
        Access::Api => ApiError::unauthenticated().into_response(),
        // A plain HTML form (the frame's sign-out) is a person on a page whose
        // session has ended: to sign-in, as a page would, not a JSON refusal.
        Access::ServerFn if takes_html(request.headers()) => Redirect::to("/login").into_response(),
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

/// Whether the request takes HTML back: a browser's own form submission, by
/// the rule the server functions' form redirects use (`Accept: text/html`).
fn takes_html(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/html"))
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
    if path == super::admin::tokens::TOKENS_PATH
        || path.starts_with(&format!("{}/", super::admin::tokens::TOKENS_PATH))
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
    fn the_session_cookie_is_http_only_strict_and_host_bound_over_https() {
        let plain = session_cookie("tok", false);
        assert!(
            plain.starts_with("kr_session=tok;")
                && plain.contains("HttpOnly")
                && plain.contains("SameSite=Strict")
                && !plain.contains("Secure")
        );
        let secure = session_cookie("tok", true);
        assert!(secure.starts_with("__Host-kr_session=tok;"), "{secure}");
        // What the `__Host-` prefix demands: Secure, Path=/, no Domain.
        assert!(secure.contains("Secure") && secure.contains("Path=/"));
        assert!(!secure.contains("Domain"));
        assert!(secure.contains("Max-Age=43200"));
        assert!(cleared_session_cookie(true).starts_with("__Host-kr_session=;"));
        let device = device_cookie("dev", true);
        assert!(device.starts_with("__Host-kr_device=dev;") && device.contains("HttpOnly"));
        assert!(device.contains("SameSite=Strict") && device.contains("Secure"));
    }

    #[test]
    fn the_session_token_is_read_by_its_transports_name_and_only_when_alone() {
        let token = |cookie: &str, secure: bool| {
            let mut h = HeaderMap::new();
            h.insert(header::COOKIE, cookie.parse().unwrap());
            session_token(&h, secure)
        };
        assert_eq!(
            token("kr_lang=ru; kr_session=abc123", false).as_deref(),
            Some("abc123")
        );
        assert_eq!(
            token("__Host-kr_session=abc123", true).as_deref(),
            Some("abc123")
        );
        for (cookie, secure) in [
            // Each transport reads only its own name.
            ("kr_session=abc123", true),
            ("__Host-kr_session=abc123", false),
            // Two of the name: one may be planted, so neither is taken.
            ("kr_session=planted; kr_session=abc123", false),
            ("__Host-kr_session=abc123; __Host-kr_session=planted", true),
            ("kr_session=", false),
        ] {
            assert_eq!(token(cookie, secure), None, "{cookie} (https: {secure})");
        }
        let mut two_headers = HeaderMap::new();
        two_headers.append(header::COOKIE, "kr_session=planted".parse().unwrap());
        two_headers.append(header::COOKIE, "kr_session=abc123".parse().unwrap());
        assert_eq!(session_token(&two_headers, false), None);
    }

    /// The path a renderer or file server may end up reading: escapes decoded
    /// (twice, for layers that decode again), backslashes taken as slashes and
    /// dot segments resolved, as a URL parser does.
    fn as_a_renderer_reads_it(raw: &str) -> String {
        let once = percent_decode(raw);
        let twice = percent_decode(&once);
        let slashed = twice.replace('\\', "/");
        match url::Url::parse(&format!("http://control.test{slashed}")) {
            Ok(u) => u.path().to_string(),
            Err(_) => slashed,
        }
    }

    fn percent_decode(s: &str) -> String {
        url::form_urlencoded::parse(format!("x={}", s.replace('+', "%2B")).as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    }

    fn segment() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            Just("..".to_string()),
            Just(".".to_string()),
            Just(String::new()),
            Just("%2e%2e".to_string()),
            Just("%2E.".to_string()),
            Just(".%2E".to_string()),
            Just("%252e%252e".to_string()),
            Just("..%2f..".to_string()),
            Just("..%5c..".to_string()),
            Just("..\\..".to_string()),
            Just("..;x=1".to_string()),
            Just("pkg".to_string()),
            Just("join".to_string()),
            Just("lang".to_string()),
            Just("api".to_string()),
            Just("v1".to_string()),
            Just("ui".to_string()),
            Just("login".to_string()),
            Just("infrastructure".to_string()),
            Just("audit".to_string()),
            "[a-zA-Z0-9_.%;\\\\-]{1,8}",
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

        /// Whatever the spelling, a path that passes the path check is read by
        /// a renderer exactly as the gate read it; so a path the renderer
        /// would read as an admin screen is refused or needs a session.
        #[test]
        fn no_spelling_turns_an_admin_path_public(segments in proptest::collection::vec(segment(), 1..7)) {
            let raw = format!("/{}", segments.join("/"));
            let read_as = as_a_renderer_reads_it(&raw);
            // What passes the path check reads the same everywhere, so the
            // gate's decision is about the path that is rendered.
            if super::super::paths::ambiguity(&raw).is_none() {
                proptest::prop_assert_eq!(&read_as, &raw);
            }
        }
    }

    #[test]
    fn public_prefixes_open_only_their_own_shapes() {
        assert_eq!(access_for("/join/abc"), Access::Public);
        assert_eq!(access_for("/join/abc/audit"), Access::Page);
        assert_eq!(access_for("/join/"), Access::Page);
        assert_eq!(access_for("/lang/ru"), Access::Public);
        assert_eq!(access_for("/lang/ru/jobs"), Access::Page);
        assert_eq!(access_for("/trust-browser/abc"), Access::Public);
        assert_eq!(access_for("/trust-browser/abc/audit"), Access::Page);
        assert_eq!(access_for("/welcome/abc"), Access::Public);
        assert_eq!(access_for("/welcome/abc/audit"), Access::Page);
        assert_eq!(access_for("/welcome/"), Access::Page);
        assert_eq!(access_for("/pkg/knotroute.wasm"), Access::Public);
        assert_eq!(access_for("/pkg/"), Access::Page);
        assert!(opened_by_api_token("/api/v1/networks"));
        assert!(!opened_by_api_token("/api/v1/session"));
        assert!(!opened_by_api_token("/ui/overview"));
        assert!(!opened_by_api_token("/networks"));
        assert!(!opened_by_api_token("/api/other"));
    }
}
