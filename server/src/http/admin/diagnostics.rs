//! `GET /api/v1/networks/{id}/diagnostics?lang=`: the layered diagnosis.

use crate::domain::access::roles::CheckBeacons;
use crate::http::error::ApiError;
use crate::http::extract::{Allowed, ApiPath, ApiQuery};
use crate::http::lang::chosen_lang;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::Json;
use protocol::diagnostics::Diagnosis;
use protocol::NetworkId;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(diagnose))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct DiagnoseQuery {
    lang: Option<String>,
}

#[utoipa::path(
    get,
    path = "/api/v1/networks/{id}/diagnostics",
    tag = "networks",
    params(("id" = String, Path, description = "Network ID"), DiagnoseQuery),
    responses((status = 200, body = Diagnosis))
)]
async fn diagnose(
    State(state): State<AppState>,
    Allowed(by): Allowed<CheckBeacons>,
    ApiPath(id): ApiPath<NetworkId>,
    headers: HeaderMap,
    ApiQuery(q): ApiQuery<DiagnoseQuery>,
) -> Result<Json<Diagnosis>, ApiError> {
    let lang = chosen_lang(q.lang.as_deref(), &headers)?;
    Ok(Json(state.diagnostics.diagnose(&by, &id, lang).await?))
}
