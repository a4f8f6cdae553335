//! Plain HTML forms that post to server functions (app::pages::plain_action).
//! server_fn answers such a post with a redirect to its `Referer`, adding
//! the refusal (`__path`, `__err`) when it refuses, but it keeps a refusal
//! the page's address already named: the address would then name two, and
//! grow with every refusal. So before the server function sees the post,
//! its `Referer` loses those pairs.

use axum::extract::Request;
use axum::http::{header, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;

/// The address's pairs that carry a server function's refusal.
const REFUSAL_KEYS: [&str; 2] = ["__path", "__err"];

/// Takes an earlier refusal out of a server-function post's `Referer`.
pub async fn referer_without_old_refusal(mut request: Request, next: Next) -> Response {
    if request.method() == Method::POST && request.uri().path().starts_with("/ui/") {
        let cleaned = request
            .headers()
            .get(header::REFERER)
            .and_then(|value| value.to_str().ok())
            .and_then(without_refusal)
            .and_then(|cleaned| HeaderValue::from_str(&cleaned).ok());
        if let Some(cleaned) = cleaned {
            request.headers_mut().insert(header::REFERER, cleaned);
        }
    }
    next.run(request).await
}

/// `referer` without the refusal's pairs; `None` when it names none (or is
/// no absolute URL, which server_fn does not redirect with either).
fn without_refusal(referer: &str) -> Option<String> {
    let mut url = url::Url::parse(referer).ok()?;
    let is_refusal = |key: &str| REFUSAL_KEYS.contains(&key);
    if !url.query_pairs().any(|(key, _)| is_refusal(&key)) {
        return None;
    }
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(key, _)| !is_refusal(key))
        .map(|(key, value)| (key.into_owned(), value.into_owned()))
        .collect();
    if kept.is_empty() {
        url.set_query(None);
    } else {
        url.query_pairs_mut().clear().extend_pairs(kept);
    }
    Some(url.to_string())
}

#[cfg(test)]
mod tests {
    use super::without_refusal;

    #[test]
    fn a_referer_loses_only_the_refusals_pairs() {
        assert_eq!(
            without_refusal(
                "https://c.example/jobs?status=pending&__path=%2Fui%2Fcancel_job&__err=e30%3D"
            ),
            Some("https://c.example/jobs?status=pending".into())
        );
        assert_eq!(
            without_refusal("https://c.example/jobs?__path=a&__err=b&__path=c&__err=d#x"),
            Some("https://c.example/jobs#x".into())
        );
        assert_eq!(
            without_refusal("https://c.example/jobs?status=pending"),
            None
        );
        assert_eq!(without_refusal("/jobs?__err=x"), None, "not absolute");
        assert_eq!(without_refusal("not a url"), None);
    }
}
