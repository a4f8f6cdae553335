//! Refuses request paths that two layers could read as two different paths.
//!
//! The session gate decides on the raw path, the router matches the raw path,
//! but a renderer or file server may first decode percent escapes and resolve
//! dot segments. `/pkg/%2e%2e/infrastructure` was public to the gate and the
//! Infrastructure screen to the renderer. No path Control serves needs a dot
//! segment, an empty segment, a backslash, a `;` parameter or a percent escape,
//! so such paths are refused before anything reads them: every later layer then
//! sees one path, the same one.

use super::error::ApiError;
use axum::extract::Request;
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};

/// What is wrong with a path, or `None` when every layer reads it the same way.
pub fn ambiguity(path: &str) -> Option<&'static str> {
    if !path.starts_with('/') {
        return Some("the path must start with /");
    }
    if let Some(c) = path
        .chars()
        .find(|c| !c.is_ascii_graphic() || matches!(c, '\\' | ';' | '%'))
    {
        return Some(match c {
            '%' => "percent-encoded characters are not used in Control's paths",
            '\\' => "backslashes are not used in Control's paths",
            ';' => "path parameters (;) are not used in Control's paths",
            _ => "the path holds a character Control's paths never use",
        });
    }
    if path == "/" {
        return None;
    }
    // One trailing slash is tolerated (and redirected away), so the last
    // segment may be empty; no other may.
    let inner = path[1..].strip_suffix('/').unwrap_or(&path[1..]);
    for segment in inner.split('/') {
        match segment {
            "" => return Some("empty path segments (//) are not used in Control's paths"),
            "." | ".." => return Some("dot segments (. and ..) are not used in Control's paths"),
            _ => {}
        }
    }
    None
}

/// Outermost path check: ambiguous paths get 400 (no page, no data); a page
/// address with one trailing slash is redirected to the same path without it.
pub async fn refuse_ambiguous_paths(request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if let Some(reason) = ambiguity(path) {
        tracing::debug!(reason, "refused an ambiguous request path");
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_path",
            format!("This address is not one Control serves: {reason}."),
        )
        .hint("Open Control from its start page and follow its links.")
        .into_response();
    }
    // Only a page someone may have typed is redirected; API and server-function
    // calls keep their exact path (and get the router's own 404).
    let page_read = matches!(*request.method(), Method::GET | Method::HEAD)
        && !path.starts_with("/api/")
        && !path.starts_with("/ui/");
    if page_read && path.len() > 1 && path.ends_with('/') {
        // `ambiguity` allowed it, so it starts with one slash and has no empty
        // segment: the target cannot become a `//host` (open) redirect.
        let mut target = path.trim_end_matches('/').to_string();
        if let Some(query) = request.uri().query() {
            target.push('?');
            target.push_str(query);
        }
        let mut response = Redirect::permanent(&target).into_response();
        response.headers_mut().insert(
            header::CACHE_CONTROL,
            header::HeaderValue::from_static("no-store"),
        );
        return response;
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_paths_pass() {
        for path in [
            "/",
            "/infrastructure",
            "/networks/kn_abc/edit",
            "/pkg/knotroute-control.wasm",
            "/join/abcdef",
            "/lang/ru",
            "/api/v1/agents/heartbeat",
            "/jobs/",
        ] {
            assert_eq!(ambiguity(path), None, "{path}");
        }
    }

    #[test]
    fn paths_that_could_be_read_two_ways_are_refused() {
        for path in [
            "/pkg/../infrastructure",
            "/pkg/./x",
            "/pkg/%2e%2e/infrastructure",
            "/pkg/%2E%2e/audit",
            "/pkg/%252e%252e/audit",
            "/pkg/.%2e/jobs",
            "/pkg//infrastructure",
            "//infrastructure",
            "/pkg\\..\\infrastructure",
            "/pkg/%5c../audit",
            "/pkg/..;/infrastructure",
            "/join/x;a=b",
            "/lang/en/%2f..%2f..%2fjobs",
            "/pkg/%00",
            "/jobs//",
            "pkg/x",
            "*",
            "/a b",
        ] {
            assert!(ambiguity(path).is_some(), "{path}");
        }
    }
}
