//! The audit log over the JSON API.

#[allow(unused_imports)]
use super::openapi::schemas::*;
use crate::domain::audit::{self, AuditFilter, AuditView};
use crate::http::error::ApiError;
use crate::http::extract::ApiQuery;
use crate::state::AppState;
use axum::extract::State;
use axum::Json;

#[utoipa::path(
    get,
    path = "/api/v1/audit",
    tag = "audit",
    params(AuditFilter),
    responses((status = 200, body = [AuditEntry]), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
/// `GET /api/v1/audit?action=&subject=&before=&limit=`: newest first.
pub(super) async fn list_audit(
    State(state): State<AppState>,
    ApiQuery(filter): ApiQuery<AuditFilter>,
) -> Result<Json<Vec<AuditView>>, ApiError> {
    Ok(Json(audit::list(&state.db, &filter).await?))
}
