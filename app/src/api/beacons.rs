//! Server functions of the Beacons section: the list with the latest checks,
//! a check on demand, and adding an existing Beacon to a profile.

use crate::error::UiError;
use leptos::prelude::*;
use protocol::api::NetworkProfile;
use protocol::beacons::{BeaconCheckView, BeaconRef, BeaconView};

#[cfg(feature = "ssr")]
use crate::{
    api::{with_reader, with_services},
    backend::granted,
    error::ui_error,
};
#[cfg(feature = "ssr")]
use domain::access::roles::{CheckBeacons, EditNetworks};

#[server(prefix = "/ui", endpoint = "list_beacons")]
pub async fn list_beacons() -> Result<Vec<BeaconView>, UiError> {
    with_reader(|s, who| async move { s.beacons.list(who.networks()).await.map_err(ui_error) })
        .await
}

/// Checks one Beacon of a profile now and keeps the result. Sent by the
/// Check button of each row of the Beacons list, a plain HTML form
/// (pages::plain_action): its fields are the profile's ID and the URL.
#[server(prefix = "/ui", endpoint = "check_beacon")]
pub async fn check_beacon(network_id: String, url: String) -> Result<BeaconCheckView, UiError> {
    let beacon = BeaconRef { network_id, url };
    with_services(|s| async move {
        let by = granted::<CheckBeacons>()?;
        s.beacons.check(&by, &beacon).await.map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "add_existing_beacon", input = leptos::server_fn::codec::Json)]
pub async fn add_existing_beacon(beacon: BeaconRef) -> Result<NetworkProfile, UiError> {
    with_services(|s| async move {
        let by = granted::<EditNetworks>()?;
        s.beacons.add_existing(&by, &beacon).await.map_err(ui_error)
    })
    .await
}
