//! Response hardening and cross-site request refusal.

use super::error::ApiError;
use super::extract::{came_over_https, peer_of};
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use data_encoding::BASE64;
use rand::RngCore;

/// The per-response CSP nonce; the Leptos context hands it to the hydration script.
#[derive(Clone, Debug)]
pub struct CspNonce(pub String);

/// Only our own origin may load anything; inline script and style run only
/// with this response's nonce (the invite page inlines both to need a single
/// request); WebAssembly compilation is allowed for hydration.
pub fn content_security_policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self' 'nonce-{nonce}'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
         object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )
}

/// Adds a fresh nonce to the request and the security headers to every
/// response; HSTS whenever the browser came over HTTPS ([`came_over_https`]).
pub async fn security_headers(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let mut bytes = [0u8; 18];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let nonce = BASE64.encode(&bytes);
    let https = came_over_https(
        request.headers(),
        peer_of(request.extensions()),
        &state.config,
    );
    let path = request.uri().path().to_string();
    request.extensions_mut().insert(CspNonce(nonce.clone()));
    let mut response = next.run(request).await;
    let served_file = matches!(
        response.status(),
        StatusCode::OK | StatusCode::NOT_MODIFIED | StatusCode::PARTIAL_CONTENT
    );
    let h = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&content_security_policy(&nonce)) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(super::assets::cache_control(&path, served_file)),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "permissions-policy",
        HeaderValue::from_static("camera=(), microphone=(), geolocation=(), payment=()"),
    );
    if https {
        h.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static("max-age=31536000"),
        );
    }
    response
}

/// `scheme://host[:port]` of a URL, with the scheme's default port left out.
fn origin_of(url: &str) -> Option<(String, String)> {
    let u = url::Url::parse(url).ok()?;
    let host = u.host_str()?;
    let authority = match u.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    };
    Some((u.scheme().to_string(), authority))
}

/// True when Origin (or, failing that, Referer) names this server.
///
/// With a public URL configured, only that exact origin (scheme, host, port)
/// is accepted, which also defeats DNS rebinding (an attacker's host name
/// pointed at Control would otherwise match the Host header). Without one, the
/// origin must name the host the request was sent to (the proxy's
/// X-Forwarded-Host when the proxy is trusted, else Host, else the HTTP/2 authority).
pub fn is_same_origin(
    headers: &HeaderMap,
    request_authority: Option<&str>,
    public_url: Option<&url::Url>,
    trust_proxy: bool,
) -> bool {
    let claimed = headers
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .filter(|v| *v != "null")
        .or_else(|| headers.get(header::REFERER).and_then(|v| v.to_str().ok()));
    let Some((scheme, authority)) = claimed.and_then(origin_of) else {
        return false;
    };
    if let Some(public) = public_url {
        return origin_of(public.as_str()) == Some((scheme, authority));
    }
    let header_value = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let target = trust_proxy
        .then(|| header_value("x-forwarded-host").and_then(|v| v.split(',').next()))
        .flatten()
        .or_else(|| header_value("host"))
        .or(request_authority)
        .map(|h| h.trim().to_ascii_lowercase());
    let default_port = if scheme == "https" { ":443" } else { ":80" };
    target
        .is_some_and(|h| h == authority || h.strip_suffix(default_port) == Some(authority.as_str()))
}

/// Refuses state-changing admin requests that a browser sent from another
/// site (CSRF). Agent requests are signed instead and are not checked here.
pub async fn same_origin_only(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let safe = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    let agent_api = super::agent_protocol::is_agent_protocol_path(request.uri().path());
    // A browser never attaches an Authorization header by itself, so a request
    // carrying one cannot be a forged cross-site request, but only where the
    // gate then authenticates by that token alone (/api/v1). Pages and server
    // functions are opened by the cookie, so a Bearer header proves nothing there.
    let bearer = super::auth::opened_by_api_token(request.uri().path())
        && super::auth::bearer_token(request.headers()).is_some();
    let authority = request.uri().authority().map(|a| a.as_str().to_string());
    let config = &state.config;
    let peer = peer_of(request.extensions());
    if safe
        || agent_api
        || bearer
        || is_same_origin(
            request.headers(),
            authority.as_deref(),
            config.public_url.as_ref(),
            // X-Forwarded-Host counts only from a trusted proxy (forwarded.rs).
            config.trusted_proxies.trusts(peer),
        )
    {
        return next.run(request).await;
    }
    let path = loggable_path(&request);
    if request.headers().contains_key("x-forwarded-host") && !config.trusted_proxies.trusts(peer) {
        // After an upgrade this is the likely cause: the proxy is not listed,
        // so the Host it forwarded is not believed and no write is accepted.
        tracing::warn!(
            %path,
            peer = ?peer,
            "refused a state-changing request: its X-Forwarded-Host was ignored because the peer is not in KNOTROUTE_CONTROL_TRUSTED_PROXIES (set KNOTROUTE_CONTROL_PUBLIC_URL, or list your proxy there)"
        );
    } else {
        tracing::warn!(%path, "refused a cross-origin state-changing request");
    }
    ApiError::new(
        StatusCode::FORBIDDEN,
        "cross_origin",
        "State-changing requests must come from Control's own pages.",
    )
    .hint("Open Control at its own address (KNOTROUTE_CONTROL_PUBLIC_URL when set); scripts send an Origin header equal to it.")
    .into_response()
}

/// The request's path through the router's one redaction (`log_paths`);
/// with none attached (a router built without it), it is not logged.
pub(super) fn loggable_path(request: &axum::extract::Request) -> String {
    match request.extensions().get::<super::SecretPaths>() {
        Some(secret) => secret.loggable(request.uri().path()).into_owned(),
        None => "…".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn without_a_public_url_the_origin_must_name_the_requested_host() {
        let check = |pairs: &[(&'static str, &'static str)]| {
            is_same_origin(&headers(pairs), None, None, false)
        };
        assert!(check(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.1:8080")
        ]));
        assert!(!check(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://evil.example")
        ]));
        assert!(!check(&[("host", "127.0.0.1:8080"), ("origin", "null")]));
        assert!(!check(&[("host", "127.0.0.1:8080")]));
        assert!(check(&[
            ("host", "c.example"),
            ("referer", "https://c.example/networks")
        ]));
        assert!(check(&[
            ("host", "c.example:443"),
            ("origin", "https://c.example")
        ]));
        // HTTP/2 has no Host header: the request's authority is used.
        assert!(is_same_origin(
            &headers(&[("origin", "https://c.example")]),
            Some("c.example"),
            None,
            false
        ));
    }

    #[test]
    fn a_forwarded_host_counts_only_behind_a_trusted_proxy() {
        let h = headers(&[
            ("host", "10.0.0.1:8080"),
            ("x-forwarded-host", "control.example"),
            ("origin", "https://control.example"),
        ]);
        assert!(is_same_origin(&h, None, None, true));
        assert!(!is_same_origin(&h, None, None, false));
    }

    #[test]
    fn with_a_public_url_only_its_exact_origin_is_accepted() {
        let public = url::Url::parse("https://control.example").unwrap();
        let check = |pairs: &[(&'static str, &'static str)]| {
            is_same_origin(&headers(pairs), None, Some(&public), false)
        };
        assert!(check(&[
            ("host", "10.0.0.1:8080"),
            ("origin", "https://control.example")
        ]));
        // DNS rebinding: Host and Origin agree, but name the attacker's host.
        assert!(!check(&[
            ("host", "rebind.evil.example"),
            ("origin", "http://rebind.evil.example")
        ]));
        // Same host, wrong scheme.
        assert!(!check(&[
            ("host", "control.example"),
            ("origin", "http://control.example")
        ]));
    }

    #[test]
    fn the_policy_allows_only_nonced_inline_script() {
        let csp = content_security_policy("abc");
        assert!(csp.contains("script-src 'self' 'nonce-abc' 'wasm-unsafe-eval'"));
        assert!(!csp.contains("unsafe-inline"));
        assert!(csp.contains("frame-ancestors 'none'"));
    }
}
