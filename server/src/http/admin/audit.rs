//! The audit log over the JSON API.

use crate::domain::audit::{self, AuditFilter, AuditView};
use crate::http::error::ApiError;
use crate::http::extract::{ApiQuery, Reader};
use crate::state::AppState;
use axum::extract::State;
use axum::Json;
use protocol::api::AuditEntry;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_audit))
}

#[utoipa::path(
    get,
    path = "/api/v1/audit",
    tag = "audit",
    params(AuditFilter),
    responses((status = 200, body = [AuditEntry]))
)]
/// `GET /api/v1/audit?action=&subject=&before=&limit=`: newest first.
async fn list_audit(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiQuery(filter): ApiQuery<AuditFilter>,
) -> Result<Json<Vec<AuditView>>, ApiError> {
    Ok(Json(audit::list(&state.db, &who, &filter).await?))
}
