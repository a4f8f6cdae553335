//! The end-to-end probe: `GET`, `PUT` and `DELETE
//! /api/v1/networks/{id}/probe`. The rules live in `domain::probes`.

use crate::domain::access::roles::EditNetworks;
use crate::domain::probes;
use crate::http::error::ApiError;
use crate::http::extract::{Allowed, ApiJson, ApiPath, Reader};
use crate::state::AppState;
use axum::extract::State;
use axum::Json;
use protocol::probes::{ProbeSettings, ProbeView};
use protocol::NetworkId;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(probe, save_probe, remove_probe))
}

#[utoipa::path(
    get,
    path = "/api/v1/networks/{id}/probe",
    tag = "networks",
    params(("id" = String, Path, description = "Network ID")),
    responses((status = 200, body = ProbeView))
)]
/// The network's probe: the service, the Agent and the interval chosen
/// (none yet: `settings` is null), and the latest runs, newest first.
async fn probe(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiPath(id): ApiPath<NetworkId>,
) -> Result<Json<ProbeView>, ApiError> {
    Ok(Json(probes::view(&state.db, who.networks(), &id).await?))
}

#[utoipa::path(
    put,
    path = "/api/v1/networks/{id}/probe",
    tag = "networks",
    params(("id" = String, Path, description = "Network ID")),
    request_body = ProbeSettings,
    responses((status = 200, body = ProbeView))
)]
/// Chooses the service to open and the Agent that opens it, on another host
/// than the service, every `every_minutes` (default 5). The first probe is
/// queued at once. Audited.
async fn save_probe(
    State(state): State<AppState>,
    Allowed(by): Allowed<EditNetworks>,
    ApiPath(id): ApiPath<NetworkId>,
    ApiJson(input): ApiJson<ProbeSettings>,
) -> Result<Json<ProbeView>, ApiError> {
    probes::save(&state.db, &state.jobs, &by, &id, &input).await?;
    Ok(Json(probes::view(&state.db, by.scope(), &id).await?))
}

#[utoipa::path(
    delete,
    path = "/api/v1/networks/{id}/probe",
    tag = "networks",
    params(("id" = String, Path, description = "Network ID")),
    responses((status = 200, body = ProbeView))
)]
/// Stops probing the network; its history stays for 30 days, and the Agent
/// that probed removes its node. Audited.
async fn remove_probe(
    State(state): State<AppState>,
    Allowed(by): Allowed<EditNetworks>,
    ApiPath(id): ApiPath<NetworkId>,
) -> Result<Json<ProbeView>, ApiError> {
    probes::remove(&state.db, &state.jobs, &by, &id).await?;
    Ok(Json(probes::view(&state.db, by.scope(), &id).await?))
}
