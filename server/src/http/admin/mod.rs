//! The JSON admin API under /api/v1 (and the Agent protocol's routes, which
//! share the prefix): one module per kind of thing it manages. Paths match
//! the first Control's so existing scripts keep working.

pub mod agents;
pub mod audit;
pub mod beacons;
pub mod diagnostics;
pub mod events;
pub mod jobs;
pub mod networks;
pub mod onboarding;
pub mod openapi;
pub mod session;
pub mod settings;
pub mod tokens;

use crate::http::error::ApiError;
use crate::state::AppState;
use axum::http::StatusCode;
use axum::routing::get;
use axum::Router;

pub fn routes() -> Router<AppState> {
    Router::new()
        .merge(session::routes())
        .merge(networks::routes())
        .merge(super::agent_protocol::routes())
        .merge(jobs::routes())
        .merge(agents::routes())
        .merge(beacons::routes())
        .merge(onboarding::routes())
        .merge(diagnostics::routes())
        .merge(settings::routes())
        .merge(tokens::routes())
        .route("/audit", get(audit::list_audit))
        .route("/events", get(events::events))
        .route("/openapi.json", get(openapi::openapi_json))
        .fallback(|| async { ApiError::not_found() })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "This path does not accept that method.",
            )
        })
}
