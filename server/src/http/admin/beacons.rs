//! Beacons in the admin API: every Beacon URL of every profile with its
//! latest check, a check on demand, and adding an existing Beacon's URL.

use crate::domain::access::roles::{CheckBeacons, EditNetworks};
use crate::http::error::ApiError;
use crate::http::extract::{Allowed, ApiJson, Reader};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use protocol::api::NetworkProfile;
use protocol::beacons::{BeaconCheckView, BeaconRef, BeaconView};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_beacons, add_existing_beacon))
        .routes(routes!(check_beacon))
}

#[utoipa::path(
    get,
    path = "/api/v1/beacons",
    tag = "beacons",
    responses((status = 200, body = [BeaconView]))
)]
async fn list_beacons(
    State(state): State<AppState>,
    Reader(who): Reader,
) -> Result<Json<Vec<BeaconView>>, ApiError> {
    Ok(Json(state.beacons.list(who.networks()).await?))
}

#[utoipa::path(
    post,
    path = "/api/v1/beacons/check",
    tag = "beacons",
    request_body = BeaconRef,
    responses((status = 200, body = BeaconCheckView))
)]
/// `{"network_id","url"}` → the check's result (a failed check is still 200:
/// the request worked; `ok` and `class` say how the Beacon did).
async fn check_beacon(
    State(state): State<AppState>,
    Allowed(by): Allowed<CheckBeacons>,
    ApiJson(beacon): ApiJson<BeaconRef>,
) -> Result<Json<BeaconCheckView>, ApiError> {
    Ok(Json(state.beacons.check(&by, &beacon).await?))
}

#[utoipa::path(
    post,
    path = "/api/v1/beacons",
    tag = "beacons",
    request_body = BeaconRef,
    responses((status = 201, body = NetworkProfile))
)]
/// `{"network_id","url"}` → 201 with the updated profile. Needs no
/// `version`: an addition is re-applied to the current profile if it
/// changed meanwhile, so parallel additions all land.
async fn add_existing_beacon(
    State(state): State<AppState>,
    Allowed(by): Allowed<EditNetworks>,
    ApiJson(beacon): ApiJson<BeaconRef>,
) -> Result<(StatusCode, Json<NetworkProfile>), ApiError> {
    let profile = state.beacons.add_existing(&by, &beacon).await?;
    Ok((StatusCode::CREATED, Json(profile)))
}
