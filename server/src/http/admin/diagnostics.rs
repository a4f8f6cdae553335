//! `GET /api/v1/networks/{id}/diagnostics?lang=`: the layered diagnosis.

#[allow(unused_imports)]
use super::openapi::schemas::*;
use crate::domain::beacons::diagnostics::DiagnosticsError;
use crate::http::error::ApiError;
use crate::http::extract::ApiQuery;
use crate::http::lang::chosen_lang;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::get;
use axum::{Json, Router};
use protocol::diagnostics::Diagnosis;
use serde::Deserialize;

pub fn routes() -> Router<AppState> {
    Router::new().route("/networks/{id}/diagnostics", get(diagnose))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct DiagnoseQuery {
    lang: Option<String>,
}

impl From<DiagnosticsError> for ApiError {
    fn from(e: DiagnosticsError) -> Self {
        match e {
            DiagnosticsError::Network(e) => e.into(),
            DiagnosticsError::Inventory(e) => e.into(),
        }
    }
}

#[utoipa::path(
    get,
    path = "/api/v1/networks/{id}/diagnostics",
    tag = "networks",
    params(("id" = String, Path, description = "Network ID"), DiagnoseQuery),
    responses((status = 200, body = Diagnosis), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
async fn diagnose(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    ApiQuery(q): ApiQuery<DiagnoseQuery>,
) -> Result<Json<Diagnosis>, ApiError> {
    let lang = chosen_lang(q.lang.as_deref(), &headers)?;
    let id = super::networks::parse_id(&id)?;
    Ok(Json(state.diagnostics.diagnose(&id, lang).await?))
}
