//! Liveness and readiness for orchestrators and load balancers.

use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

pub async fn healthz() -> Json<Value> {
    Json(json!({"ok": true, "version": crate::VERSION}))
}

/// How long /readyz waits for the database: the pool would keep retrying a
/// refused connection for its whole acquire timeout (10 s), and a probe must
/// learn "not ready" while the database is away, not after it is back.
const READY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// Ready when the database answers within [`READY_TIMEOUT`].
pub async fn readyz(State(state): State<AppState>) -> Response {
    let answered = tokio::time::timeout(READY_TIMEOUT, crate::db::ping(&state.db)).await;
    if answered.unwrap_or(false) {
        (StatusCode::OK, Json(json!({"ok": true, "database": "ok"}))).into_response()
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            [(
                header::RETRY_AFTER,
                super::error::DATABASE_RETRY_AFTER_SECS.to_string(),
            )],
            Json(json!({"ok": false, "database": "unreachable"})),
        )
            .into_response()
    }
}
