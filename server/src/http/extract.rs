//! Request extractors shared by the API handlers.

use super::error::ApiError;
use super::forwarded::{Forwarded, TrustedProxies};
use crate::config::Config;
use crate::domain::access::principal::{Granted, Principal};
use crate::domain::access::roles::Action;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{Extensions, HeaderMap, StatusCode};
use serde::de::DeserializeOwned;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};

/// `Query<T>` whose refusals use the API's error shape.
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(v)) => Ok(ApiQuery(v)),
            Err(rejection) => Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_query",
                format!("The query string is not valid: {}", rejection.body_text()),
            )),
        }
    }
}

/// An ID in the path of an API route, parsed at the edge: one that cannot
/// name anything gets the same JSON 404 as one that names nothing.
pub struct ApiPath<T>(pub T);

/// What an API answers for an ID that names nothing of its kind.
pub trait NamesNothing {
    const NOT_FOUND: &'static str;
}

impl NamesNothing for protocol::NetworkId {
    const NOT_FOUND: &'static str = "No network profile with this ID.";
}
impl NamesNothing for protocol::AgentId {
    const NOT_FOUND: &'static str = "No enrolled Agent has this ID.";
}
impl NamesNothing for protocol::JobId {
    const NOT_FOUND: &'static str = "No such job.";
}
impl NamesNothing for protocol::InviteId {
    const NOT_FOUND: &'static str = "No invite has this ID.";
}
impl NamesNothing for protocol::InstallTokenId {
    const NOT_FOUND: &'static str = "No install token has this ID.";
}
impl NamesNothing for protocol::ApiTokenId {
    const NOT_FOUND: &'static str = "No API token has this ID.";
}
impl NamesNothing for protocol::UserId {
    const NOT_FOUND: &'static str = "No user has this ID.";
}

impl<T: FromPathText + NamesNothing + Send, S: Send + Sync> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let PathParam(id) = PathParam::<T>::from_request_parts(parts, state).await?;
        id.map(ApiPath)
            .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "not_found", T::NOT_FOUND))
    }
}

/// The route's path parameter as a `T`, or `None` when the text is not one:
/// for pages that answer a malformed value as they answer an unknown one.
pub struct PathParam<T>(pub Option<T>);

/// A path parameter that [`PathParam`] can read.
pub trait FromPathText: Sized {
    fn from_path_text(text: &str) -> Option<Self>;
}

macro_rules! ids_from_path_text {
    ($($t:ty),*) => {$(
        impl FromPathText for $t {
            fn from_path_text(text: &str) -> Option<Self> {
                <$t as protocol::Id>::parse_id(text).ok()
            }
        }
    )*};
}
ids_from_path_text!(
    protocol::NetworkId,
    protocol::AgentId,
    protocol::JobId,
    protocol::InviteId,
    protocol::InstallTokenId,
    protocol::ApiTokenId,
    protocol::UserId
);

impl FromPathText for protocol::Lang {
    fn from_path_text(text: &str) -> Option<Self> {
        protocol::Lang::from_code(text)
    }
}

impl<T: FromPathText + Send, S: Send + Sync> FromRequestParts<S> for PathParam<T> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        // Every route here has one parameter; a route without one is a bug.
        let params = axum::extract::RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|e| ApiError::internal(&e.body_text()))?;
        let text = params.iter().next().map(|(_, value)| value);
        Ok(PathParam(text.and_then(T::from_path_text)))
    }
}

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

static WARNED_UNTRUSTED_PROXY: AtomicBool = AtomicBool::new(false);

/// The peer address axum recorded for the connection, when it did.
pub fn peer_of(extensions: &Extensions) -> Option<SocketAddr> {
    extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0)
}

/// The client's address as used for throttling, by the trusted-proxy rule
/// ([`Forwarded::of`]). IPv6 clients are grouped by /64, since one host
/// usually owns a whole /64 and could otherwise rotate addresses to dodge limits.
pub fn client_address(
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
    trusted: &TrustedProxies,
) -> String {
    let seen = Forwarded::of(headers, peer, trusted);
    if seen.ignored_forwarded_for && !WARNED_UNTRUSTED_PROXY.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            peer = %peer.map(|p| p.ip().to_string()).unwrap_or_default(),
            "requests carry X-Forwarded-For from a peer that is not a trusted proxy: it is ignored, so all clients behind that proxy share one sign-in throttle; if it is your reverse proxy, set KNOTROUTE_CONTROL_TRUST_PROXY=true and list it in KNOTROUTE_CONTROL_TRUSTED_PROXIES"
        );
    }
    match seen.client {
        Some(IpAddr::V6(v6)) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
        Some(ip) => ip.to_string(),
        None => "unknown".into(),
    }
}

/// A page of a list, with the cursor for the next page in `X-Next-Cursor`.
pub fn page<T: serde::Serialize>(rows: Vec<T>, next: Option<String>) -> axum::response::Response {
    use axum::response::IntoResponse;
    let mut response = axum::Json(rows).into_response();
    if let Some(next) = next.and_then(|n| axum::http::HeaderValue::from_str(&n).ok()) {
        response.headers_mut().insert("x-next-cursor", next);
    }
    response
}

/// The value of the named cookie among the request's Cookie headers, when
/// exactly one cookie has that name. Several are ambiguous (another site of
/// the same domain may have planted one beside Control's own), so none is
/// taken rather than whichever came first.
pub fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    let mut found = headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .filter(|c| c.name() == name);
    let only = found.next()?;
    if found.next().is_some() {
        return None;
    }
    Some(only.value().to_string())
}

/// Whether the browser reached Control over HTTPS, which decides `Secure`
/// cookies and HSTS: always when KNOTROUTE_CONTROL_PUBLIC_URL is https (a
/// proxy need not say so: nginx sends no X-Forwarded-Proto by default), else
/// when a trusted proxy says so.
pub fn came_over_https(headers: &HeaderMap, peer: Option<SocketAddr>, config: &Config) -> bool {
    config
        .public_url
        .as_ref()
        .is_some_and(|u| u.scheme() == "https")
        || Forwarded::of(headers, peer, &config.trusted_proxies).https
}

/// How a request reached Control, as the setup checklist asks: only what a
/// trusted proxy said (`came_over_https` also trusts an https public URL,
/// which is the claim the checklist checks).
pub fn request_transport(
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
    config: &Config,
) -> crate::domain::setup::RequestTransport {
    crate::domain::setup::RequestTransport {
        proxy_said_https: Forwarded::of(headers, peer, &config.trusted_proxies).https,
    }
}

/// The capability to take action `A`, for the principal the auth gate put on
/// the request (`auth::require_admin`): 401 without one, 403 when its role
/// does not allow `A`. An admin handler that changes something takes this,
/// and hands the `Granted` to the domain method, which asks for it.
pub struct Allowed<A: Action>(pub Granted<A>);

impl<A: Action, S: Send + Sync> FromRequestParts<S> for Allowed<A> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let principal = parts
            .extensions
            .get::<Principal>()
            .ok_or_else(ApiError::unauthenticated)?;
        Ok(Allowed(principal.may::<A>()?))
    }
}

/// Who asks, for a read: the principal the auth gate put on the request
/// (401 without one), whose networks decide what the answer holds.
pub struct Reader(pub Principal);

impl<S: Send + Sync> FromRequestParts<S> for Reader {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Principal>()
            .cloned()
            .map(Reader)
            .ok_or_else(ApiError::unauthenticated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_is_used_only_behind_a_trusted_proxy() {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", "203.0.113.9, 10.0.0.2".parse().unwrap());
        let peer = Some("127.0.0.1:5000".parse().unwrap());
        let loopback = TrustedProxies::parse("127.0.0.0/8").unwrap();
        assert_eq!(
            client_address(&h, peer, &TrustedProxies::none()),
            "127.0.0.1"
        );
        assert_eq!(client_address(&h, peer, &loopback), "10.0.0.2");
        let both = TrustedProxies::parse("127.0.0.0/8,10.0.0.0/8").unwrap();
        assert_eq!(client_address(&h, peer, &both), "203.0.113.9");
        let direct = Some("198.51.100.1:5000".parse().unwrap());
        assert_eq!(client_address(&h, direct, &loopback), "198.51.100.1");
    }

    #[test]
    fn ipv6_clients_are_grouped_by_their_64_bit_prefix() {
        let a = client_address(
            &HeaderMap::new(),
            Some("[2001:db8:1:2:aaaa::1]:5000".parse().unwrap()),
            &TrustedProxies::none(),
        );
        let b = client_address(
            &HeaderMap::new(),
            Some("[2001:db8:1:2:bbbb::9]:5000".parse().unwrap()),
            &TrustedProxies::none(),
        );
        assert_eq!(a, "2001:db8:1:2::/64");
        assert_eq!(a, b);
        let mapped = client_address(
            &HeaderMap::new(),
            Some("[::ffff:192.0.2.1]:1".parse().unwrap()),
            &TrustedProxies::none(),
        );
        assert_eq!(mapped, "192.0.2.1");
    }

    #[tokio::test]
    async fn a_handler_gets_a_capability_only_for_a_role_that_allows_it() {
        use crate::domain::access::roles::{ChangeSettings, RunJobs};
        use axum::response::IntoResponse;
        use protocol::tokens::TokenScope;
        let parts = |principal: Option<Principal>| {
            let mut request = axum::http::Request::new(());
            if let Some(p) = principal {
                request.extensions_mut().insert(p);
            }
            request.into_parts().0
        };
        let status = |r: Result<_, ApiError>| r.err().map(|e| e.into_response().status());
        let mut none = parts(None);
        assert_eq!(
            status(Allowed::<RunJobs>::from_request_parts(&mut none, &()).await),
            Some(StatusCode::UNAUTHORIZED)
        );
        let mut reader = parts(Some(Principal::api_token("r", TokenScope::Read)));
        assert_eq!(
            status(Allowed::<RunJobs>::from_request_parts(&mut reader, &()).await),
            Some(StatusCode::FORBIDDEN)
        );
        let mut owner = parts(Some(Principal::owner()));
        let Allowed(granted) = Allowed::<ChangeSettings>::from_request_parts(&mut owner, &())
            .await
            .unwrap_or_else(|_| panic!("the owner may change settings"));
        assert_eq!(granted.actor(), "owner (break-glass)");
    }
}
