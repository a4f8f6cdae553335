//! The JSON admin API under /api/v1 (and the Agent protocol's routes, which
//! share the prefix): one module per kind of thing it manages. Paths match
//! the first Control's so existing scripts keep working.

pub mod agents;
pub mod approval;
pub mod audit;
pub mod beacons;
pub mod diagnostics;
pub mod events;
pub mod jobs;
pub mod networks;
pub mod onboarding;
pub mod openapi;
pub mod probes;
pub mod session;
pub mod settings;
pub mod setup;
pub mod tokens;
pub mod users;

use crate::http::error::ApiError;
use crate::state::AppState;
use axum::http::StatusCode;
use axum::routing::{any, get};
use axum::Router;
use utoipa_axum::router::OpenApiRouter;

/// Every API route with its OpenAPI description: each module registers a
/// route and its description together (`utoipa_axum::routes!`), so neither
/// can be added without the other.
pub fn described_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(session::routes())
        .merge(networks::routes())
        .merge(crate::http::agent_protocol::routes())
        .merge(jobs::routes())
        .merge(agents::routes())
        .merge(approval::routes())
        .merge(beacons::routes())
        .merge(onboarding::routes())
        .merge(diagnostics::routes())
        .merge(settings::routes())
        .merge(setup::routes())
        .merge(probes::routes())
        .merge(tokens::routes())
        .merge(users::routes())
        .merge(audit::routes())
}

/// The API's router: the described routes, the live-update stream and the
/// description itself; anything else under /api/v1 answers in the API's
/// error shape.
pub fn routes() -> Router<AppState> {
    let (described, _) = described_routes().split_for_parts();
    described
        .route("/api/v1/events", get(events::events))
        .route("/api/v1/openapi.json", get(openapi::openapi_json))
        .route("/api/v1", any(|| async { ApiError::not_found() }))
        .route("/api/v1/{*rest}", any(|| async { ApiError::not_found() }))
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "This path does not accept that method.",
            )
        })
}
