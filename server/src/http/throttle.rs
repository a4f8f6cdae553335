//! Per-address request limits for what anyone can reach without signing in:
//! the invite pages, and the machine endpoints (health, metrics, the Agent
//! API). In memory, per replica: a flood is refused where it lands.

use super::error::ApiError;
use super::extract::{client_address, peer_of};
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::num::NonZeroU32;
use std::sync::Arc;

/// A GCRA limit of so many requests per minute for each client address.
#[derive(Clone)]
pub struct AddressThrottle(Arc<DefaultKeyedRateLimiter<String>>);

impl AddressThrottle {
    pub fn per_minute(requests: NonZeroU32) -> Self {
        Self(Arc::new(RateLimiter::keyed(Quota::per_minute(requests))))
    }

    /// Seconds to wait when `client` is over its quota.
    pub fn check(&self, client: &str) -> Result<(), u64> {
        // Forget idle addresses now and then, so a scan does not grow memory for ever.
        if self.0.len() > 10_000 {
            self.0.retain_recent();
        }
        self.0.check_key(&client.to_string()).map_err(|not_until| {
            let clock = governor::clock::DefaultClock::default();
            not_until
                .wait_time_from(governor::clock::Clock::now(&clock))
                .as_secs()
                + 1
        })
    }
}

/// The endpoints that answer without an admin session and are not pages:
/// probes, the metrics scrape, the Agent API (signed, or the enrollment), and
/// the front end's chunk batches, each of which may cost a compression.
fn is_machine_endpoint(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz" | "/metrics")
        || super::agent_protocol::is_agent_protocol_path(path)
        || path.starts_with("/pkg/batch/")
}

/// Answers 429 (with Retry-After) once one address exceeds
/// `KNOTROUTE_CONTROL_MACHINE_RATE_LIMIT` requests a minute to the machine endpoints.
pub async fn limit_machine_endpoints(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let Some(throttle) = state
        .machine_throttle
        .as_ref()
        .filter(|_| is_machine_endpoint(request.uri().path()))
    else {
        return next.run(request).await;
    };
    let peer = peer_of(request.extensions());
    let client = client_address(request.headers(), peer, &state.config.trusted_proxies);
    match throttle.check(&client) {
        Ok(()) => next.run(request).await,
        Err(wait) => ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            "Too many requests from this address.",
        )
        .hint(format!(
            "Wait {wait} s. Many Agents behind one address may need a higher \
             KNOTROUTE_CONTROL_MACHINE_RATE_LIMIT."
        ))
        .retry_after(wait as i64)
        .into_response(),
    }
}
