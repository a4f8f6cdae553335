//! Response hardening and cross-site request refusal.

use super::error::ApiError;
use super::extract::came_over_https;
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

/// Only our own origin may load anything; inline script runs only with this
/// response's nonce; WebAssembly compilation is allowed for hydration.
pub fn content_security_policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
         object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )
}

/// Adds a fresh nonce to the request and the security headers to every response.
pub async fn security_headers(mut request: Request, next: Next) -> Response {
    let mut bytes = [0u8; 18];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let nonce = BASE64.encode(&bytes);
    let https = came_over_https(request.headers());
    request.extensions_mut().insert(CspNonce(nonce.clone()));
    let mut response = next.run(request).await;
    let h = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&content_security_policy(&nonce)) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
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

fn authority_of(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    let host = u.host_str()?;
    Some(match u.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    })
}

/// True when Origin (or, failing that, Referer) names this server: the Host the
/// request was sent to, or the configured public URL.
pub fn is_same_origin(headers: &HeaderMap, public_url: Option<&url::Url>) -> bool {
    let claimed = headers
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .filter(|v| *v != "null")
        .or_else(|| headers.get(header::REFERER).and_then(|v| v.to_str().ok()));
    let Some(claimed) = claimed.and_then(authority_of) else {
        return false;
    };
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(|h| h.trim().to_ascii_lowercase());
    if host.is_some_and(|h| {
        h == claimed
            || h.strip_suffix(":80") == Some(&claimed)
            || h.strip_suffix(":443") == Some(&claimed)
    }) {
        return true;
    }
    public_url
        .and_then(|u| authority_of(u.as_str()))
        .is_some_and(|p| p == claimed)
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
    let agent_api = request.uri().path().starts_with("/api/v1/agents/");
    if safe || agent_api || is_same_origin(request.headers(), state.config.public_url.as_ref()) {
        return next.run(request).await;
    }
    tracing::warn!(path = %request.uri().path(), "refused a cross-origin state-changing request");
    ApiError::new(
        StatusCode::FORBIDDEN,
        "cross_origin",
        "State-changing requests must come from Control's own pages.",
    )
    .hint("Send an Origin header equal to Control's URL (browsers do this themselves).")
    .into_response()
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
    fn origin_must_match_the_host_or_the_public_url() {
        assert!(is_same_origin(
            &headers(&[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:8080")
            ]),
            None
        ));
        assert!(!is_same_origin(
            &headers(&[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://evil.example")
            ]),
            None
        ));
        assert!(!is_same_origin(
            &headers(&[("host", "127.0.0.1:8080"), ("origin", "null")]),
            None
        ));
        assert!(!is_same_origin(
            &headers(&[("host", "127.0.0.1:8080")]),
            None
        ));
        assert!(is_same_origin(
            &headers(&[
                ("host", "c.example"),
                ("referer", "https://c.example/networks")
            ]),
            None
        ));
        let public = url::Url::parse("https://control.example").unwrap();
        assert!(is_same_origin(
            &headers(&[
                ("host", "10.0.0.1:8080"),
                ("origin", "https://control.example")
            ]),
            Some(&public)
        ));
    }

    #[test]
    fn the_policy_allows_only_nonced_inline_script() {
        let csp = content_security_policy("abc");
        assert!(csp.contains("script-src 'self' 'nonce-abc' 'wasm-unsafe-eval'"));
        assert!(!csp.contains("unsafe-inline"));
        assert!(csp.contains("frame-ancestors 'none'"));
    }
}
