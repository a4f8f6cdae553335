//! Liveness and readiness for orchestrators and load balancers.

use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

pub async fn healthz() -> Json<Value> {
    Json(json!({"ok": true, "version": crate::VERSION}))
}

/// Ready when the database answers.
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    if crate::db::ping(&state.db).await {
        (StatusCode::OK, Json(json!({"ok": true, "database": "ok"})))
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({"ok": false, "database": "unreachable"})),
        )
    }
}
