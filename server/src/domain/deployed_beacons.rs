//! A Beacon that Control deployed joins its network profile by itself: on the
//! first successful deployment of its URL, the URL is added to the profile's
//! Beacon URLs, so sidecars and users find it without a second step. It is
//! added on success, not when queued, so clients are never sent to a Beacon
//! that does not answer yet.

use super::StoreError;
use crate::entities::{job, network};
use chrono::Utc;
use protocol::api::NetworkInput;
use protocol::jobs::JobPayload;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

/// What [`join_profile`] added: the profile and the URL, for the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinedProfile {
    pub network_id: String,
    pub url: String,
}

/// Adds the URL of a succeeded `deploy_beacon` job to its profile, unless the
/// profile lists it already, or an earlier deployment of the same component
/// with the same URL succeeded (then the admin may have removed it from the
/// profile on purpose, and a redeployment must not bring it back). A profile
/// already at its Beacon limit is left as it is, with a warning in the log.
pub async fn join_profile(
    db: &impl ConnectionTrait,
    succeeded: &job::Model,
) -> Result<Option<JoinedProfile>, StoreError> {
    let Some(beacon) = deployed_beacon(succeeded) else {
        return Ok(None);
    };
    let url = beacon.beacon_url;
    let earlier = job::Entity::find()
        .filter(job::Column::AgentId.eq(succeeded.agent_id.as_str()))
        .filter(job::Column::ComponentId.eq(succeeded.component_id.clone()))
        .filter(job::Column::Status.eq(super::jobs::status::SUCCEEDED))
        .filter(job::Column::Id.ne(succeeded.id.as_str()))
        .all(db)
        .await?;
    if earlier
        .iter()
        .filter_map(deployed_beacon)
        .any(|b| b.beacon_url == url)
    {
        return Ok(None);
    }
    // Compare-and-set on the stored list: a concurrent edit (another
    // deployment finishing, an admin saving the profile) makes the update
    // miss, and the addition is tried again on what is there now.
    for _ in 0..5 {
        let Some(row) = network::Entity::find_by_id(beacon.network_id.as_str())
            .one(db)
            .await?
        else {
            return Ok(None);
        };
        let Ok(mut beacons) = serde_json::from_str::<Vec<String>>(&row.beacons) else {
            tracing::warn!(network_id = %row.id, "stored Beacon list unreadable; deployed Beacon not added");
            return Ok(None);
        };
        if beacons.contains(&url) {
            return Ok(None);
        }
        beacons.push(url.clone());
        // The profile's own rules decide, as for an admin's edit.
        let input = NetworkInput {
            id: None,
            name: row.name.clone(),
            description: Some(row.description.clone()),
            beacons,
        };
        let valid = match input.validate() {
            Ok(valid) => valid,
            Err(refused) => {
                tracing::warn!(network_id = %row.id, %url, ?refused, "deployed Beacon not added to its profile");
                return Ok(None);
            }
        };
        let written = network::Entity::update_many()
            .col_expr(
                network::Column::Beacons,
                serde_json::to_string(&valid.beacons)
                    .expect("strings serialise")
                    .into(),
            )
            .col_expr(network::Column::UpdatedAt, Utc::now().into())
            .filter(network::Column::Id.eq(row.id.as_str()))
            .filter(network::Column::Beacons.eq(row.beacons.as_str()))
            .exec(db)
            .await?;
        if written.rows_affected == 1 {
            return Ok(Some(JoinedProfile {
                network_id: row.id,
                url,
            }));
        }
    }
    tracing::warn!(network_id = %beacon.network_id, %url, "profile kept changing; deployed Beacon not added");
    Ok(None)
}

fn deployed_beacon(job: &job::Model) -> Option<protocol::jobs::DeployBeacon> {
    if job.kind != "deploy_beacon" {
        return None;
    }
    let payload = serde_json::from_str(&job.payload).ok()?;
    match JobPayload::parse(&job.kind, &payload).ok()? {
        JobPayload::DeployBeacon(b) => Some(b),
        _ => None,
    }
}
