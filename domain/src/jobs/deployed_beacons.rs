//! A Beacon that Control deployed joins its network profile by itself: on the
//! first successful deployment of its URL, the URL is added to the profile's
//! Beacon URLs, so sidecars and users find it without a second step. It is
//! added on success, not when queued, so clients are never sent to a Beacon
//! that does not answer yet.

use crate::entities::job;
use crate::networks::{self, NetworkError};
use crate::StoreError;
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
        .filter(job::Column::Status.eq(protocol::JobStatus::Succeeded))
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
    let network_id = beacon.network_id;
    // The same versioned write as the admin's "add Beacon": a concurrent
    // change (another deployment finishing, an admin adding a Beacon) makes
    // it retry on what is there now, so neither is lost; an admin saving a
    // form opened before this is refused as stale rather than undoing it.
    match networks::add_beacon(db, &network_id, &url, succeeded.may_reach_private).await {
        Ok((row, true)) => Ok(Some(JoinedProfile {
            network_id: row.id,
            url,
        })),
        Ok((_, false)) | Err(NetworkError::NotFound) => Ok(None),
        Err(NetworkError::Store(e)) => Err(e),
        Err(refused) => {
            tracing::warn!(network_id = %network_id, %url, ?refused, "deployed Beacon not added to its profile");
            Ok(None)
        }
    }
}

fn deployed_beacon(job: &job::Model) -> Option<protocol::jobs::DeployBeacon> {
    match job.parsed_payload()? {
        JobPayload::DeployBeacon(b) => Some(b),
        _ => None,
    }
}
