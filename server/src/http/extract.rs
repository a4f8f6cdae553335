//! Request extractors shared by the API handlers.

use super::error::ApiError;
use axum::extract::{FromRequest, Request};
use axum::http::HeaderMap;
use serde::de::DeserializeOwned;
use std::net::SocketAddr;

/// `Json<T>` whose refusals use the API's error shape.
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;
    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(v)) => Ok(ApiJson(v)),
            Err(rejection) => Err(rejection.into()),
        }
    }
}

/// The client's address: the TCP peer, or behind a trusted reverse proxy the
/// last X-Forwarded-For entry (the one the proxy itself appended).
pub fn client_address(headers: &HeaderMap, peer: Option<SocketAddr>, trust_proxy: bool) -> String {
    if trust_proxy {
        if let Some(last) = headers
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .map(str::trim)
            .filter(|v| !v.is_empty() && v.len() <= 64)
        {
            return last.to_string();
        }
    }
    peer.map(|p| p.ip().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// Whether the request reached the proxy (or us) over HTTPS.
pub fn came_over_https(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .next()
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case("https")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_is_used_only_behind_a_trusted_proxy() {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", "203.0.113.9, 10.0.0.2".parse().unwrap());
        let peer = Some("127.0.0.1:5000".parse().unwrap());
        assert_eq!(client_address(&h, peer, false), "127.0.0.1");
        assert_eq!(client_address(&h, peer, true), "10.0.0.2");
    }
}
