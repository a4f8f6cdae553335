//! `GET /metrics` for Prometheus, behind its own bearer token
//! (KNOTROUTE_CONTROL_METRICS_TOKEN; without it the endpoint answers 404),
//! and the middleware that times every request by route template.

use super::error::ApiError;
use crate::domain::access::secrets::secret_matches;
use crate::metrics::{PoolUse, Snapshot, CONTENT_TYPE};
use crate::state::AppState;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::time::Instant;

/// The exposition, for a scraper holding the token.
pub async fn scrape(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let Some(expected) = &state.config.metrics_token else {
        return ApiError::new(
            StatusCode::NOT_FOUND,
            "metrics_disabled",
            "Metrics are off: set KNOTROUTE_CONTROL_METRICS_TOKEN and scrape with it as a bearer token.",
        )
        .into_response();
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .unwrap_or("");
    if !secret_matches(given, expected.expose()) {
        let mut refused = ApiError::new(
            StatusCode::UNAUTHORIZED,
            "metrics_token_invalid",
            "Send KNOTROUTE_CONTROL_METRICS_TOKEN as `Authorization: Bearer <token>` (Prometheus: `authorization: { credentials: … }`).",
        )
        .into_response();
        refused
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, "Bearer".parse().expect("valid"));
        return refused;
    }
    let snapshot = match snapshot(&state).await {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "reading the numbers for /metrics failed");
            return ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "database_unavailable",
                "Control cannot read its database right now; the next scrape retries.",
            )
            .into_response();
        }
    };
    (
        [(header::CONTENT_TYPE, CONTENT_TYPE)],
        state.metrics.render(&snapshot),
    )
        .into_response()
}

async fn snapshot(state: &AppState) -> Result<Snapshot, crate::domain::StoreError> {
    let counts = state.overview.fleet_counts().await?;
    Ok(Snapshot {
        agents_online: counts.agents_online,
        agents_total: counts.agents_total,
        jobs: state.jobs.count_by_status().await?,
        pool: PoolUse::of(&state.db),
    })
}

/// Times each request under its route template (`/api/v1/jobs/{id}`), never
/// its raw path: paths carry IDs and invite tokens, and would make the
/// label set grow without bound. Unrouted requests (assets) count as `other`.
pub async fn time_requests(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "other".to_string());
    // Any client can send any method: only the standard ones become labels.
    let method: &'static str = match request.method().as_str() {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "PATCH" => "PATCH",
        "DELETE" => "DELETE",
        "OPTIONS" => "OPTIONS",
        _ => "other",
    };
    let response = next.run(request).await;
    state.metrics.request(
        &route,
        method,
        response.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
    response
}
