//! Settings in the admin API: `GET /api/v1/settings/alerts` (the webhook,
//! redacted, and recent alerts), `PUT` to set or clear the webhook, `POST
//! …/test` to send a test alert now, and `GET /api/v1/settings/identity`
//! (Control's key, which Agents pin).

use crate::domain::access::roles::ChangeSettings;
use crate::http::error::ApiError;
use crate::http::extract::{Allowed, ApiJson, Reader};
use crate::state::AppState;
use axum::extract::State;
use axum::Json;
use protocol::alerts::{AlertSettings, AlertSettingsInput, TestAlertOutcome};
use protocol::api::ControlIdentityView;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(alert_settings, set_alert_webhook))
        .routes(routes!(send_test_alert))
        .routes(routes!(control_identity))
}

#[utoipa::path(
    get,
    path = "/api/v1/settings/alerts",
    tag = "settings",
    responses((status = 200, body = AlertSettings))
)]
/// The recent alerts are those of the networks the caller sees.
async fn alert_settings(
    State(state): State<AppState>,
    Reader(who): Reader,
) -> Result<Json<AlertSettings>, ApiError> {
    Ok(Json(state.alerts.settings(who.networks()).await?))
}

#[utoipa::path(
    put,
    path = "/api/v1/settings/alerts",
    tag = "settings",
    request_body = AlertSettingsInput,
    responses((status = 200, body = AlertSettings))
)]
async fn set_alert_webhook(
    State(state): State<AppState>,
    Allowed(by): Allowed<ChangeSettings>,
    ApiJson(input): ApiJson<AlertSettingsInput>,
) -> Result<Json<AlertSettings>, ApiError> {
    Ok(Json(state.alerts.set_webhook(&by, &input).await?))
}

#[utoipa::path(
    post,
    path = "/api/v1/settings/alerts/test",
    tag = "settings",
    responses((status = 200, body = TestAlertOutcome))
)]
/// 200 whether or not the receiver took it: `delivered` and `detail` say.
async fn send_test_alert(
    State(state): State<AppState>,
    Allowed(by): Allowed<ChangeSettings>,
) -> Result<Json<TestAlertOutcome>, ApiError> {
    Ok(Json(state.alerts.send_test(&by).await?))
}

#[utoipa::path(
    get,
    path = "/api/v1/settings/identity",
    tag = "settings",
    responses((status = 200, body = ControlIdentityView))
)]
/// Control's public key and fingerprint (and the previous key during a
/// rotation). Rotating is `knotroute-control identity rotate`, on the server.
async fn control_identity(
    State(state): State<AppState>,
) -> Result<Json<ControlIdentityView>, ApiError> {
    Ok(Json(state.identity.describe().await?))
}
