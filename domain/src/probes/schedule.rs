//! Queues each network's probe every `every_minutes`: a `probe_service` job
//! for the chosen Agent with the service's current address and the
//! network's Beacons. One probe is in flight per network at most, so an
//! Agent that is offline for a while finds one job waiting, not a pile.
//!
//! Nothing is queued while the service has no `.knot` address or the network
//! has no Beacon: the checklist says why the probe is not passing.

use crate::entities::{agent, job, network, network_probe};
use crate::jobs::queue::{Asked, JobQueue};
use crate::StoreError;
use chrono::{DateTime, Duration, Utc};
use protocol::extensions::Extension;
use protocol::jobs::JobPayload;
use protocol::probes::{ProbeService, JOB_KIND};
use protocol::JobStatus;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder};

/// How often the schedule looks: the shortest interval an admin can choose.
pub const TICK: std::time::Duration = std::time::Duration::from_secs(60);

#[derive(Clone)]
pub struct ProbeSchedule {
    db: DatabaseConnection,
    jobs: JobQueue,
}

impl ProbeSchedule {
    pub fn new(db: DatabaseConnection, jobs: JobQueue) -> Self {
        Self { db, jobs }
    }

    /// Queues the probes due at `now`; returns the jobs.
    pub async fn queue_due(&self, now: DateTime<Utc>) -> Result<Vec<job::Model>, StoreError> {
        let mut queued = Vec::new();
        for probe in network_probe::Entity::find().all(&self.db).await? {
            if let Some(row) = self.queue_for(&probe.network_id, now).await? {
                queued.push(row);
            }
        }
        Ok(queued)
    }

    /// Has Agents remove the nodes no probe wants any more ([`super::nodes`]).
    pub async fn remove_unused_nodes(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<job::Model>, StoreError> {
        super::nodes::remove_unused(&self.db, &self.jobs, now).await
    }

    /// Queues `network_id`'s probe now if it can run (right after the
    /// admin chose it, so the first result does not wait for the tick).
    pub async fn queue_for(
        &self,
        network_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<job::Model>, StoreError> {
        let Some(probe) = network_probe::Entity::find_by_id(network_id)
            .one(&self.db)
            .await?
        else {
            return Ok(None);
        };
        let Some(payload) = self.due(&probe, now).await? else {
            return Ok(None);
        };
        match self
            .jobs
            .insert(
                &probe.agent_id,
                &JobPayload::ProbeService(payload),
                None,
                Asked::control(),
            )
            .await
        {
            Ok(row) => Ok(Some(row)),
            Err(e) => {
                tracing::warn!(network_id, error = %e, "could not queue the end-to-end probe");
                Ok(None)
            }
        }
    }

    /// The job to queue for `probe` now, if one is due and can run.
    async fn due(
        &self,
        probe: &network_probe::Model,
        now: DateTime<Utc>,
    ) -> Result<Option<ProbeService>, StoreError> {
        let usable = agent::Entity::find_by_id(probe.agent_id.as_str())
            .one(&self.db)
            .await?
            .is_some_and(|a| {
                !a.disabled
                    && !a.retired.is_retired()
                    && a.docker_available
                    && a.extensions().has(Extension::Probes)
            });
        if !usable {
            return Ok(None);
        }
        let last = job::Entity::find()
            .filter(job::Column::AgentId.eq(probe.agent_id.as_str()))
            .filter(job::Column::Kind.eq(JOB_KIND))
            .filter(job::Column::NetworkId.eq(probe.network_id.as_str()))
            .order_by_desc(job::Column::CreatedAt)
            .one(&self.db)
            .await?;
        if let Some(last) = last {
            let active = matches!(last.status, JobStatus::Pending | JobStatus::Running);
            let every = Duration::minutes(i64::from(probe.every_minutes.max(1)));
            // A settings change after the last probe asks for a new one now.
            let fresh = last.created_at >= probe.updated_at;
            if active || (fresh && now - last.created_at < every) {
                return Ok(None);
            }
        }
        let Some(sidecar) =
            super::published_sidecar(&self.db, &probe.network_id, &probe.service).await?
        else {
            return Ok(None);
        };
        let Some(profile) = network::Entity::find_by_id(probe.network_id.as_str())
            .one(&self.db)
            .await?
        else {
            return Ok(None);
        };
        let payload = serde_json::json!({
            "network_id": probe.network_id,
            "service": probe.service,
            "address": sidecar.service,
            "beacons": crate::networks::stored_beacons(&profile),
        });
        match ProbeService::parse(&payload) {
            Ok(job) => Ok(Some(job)),
            Err(e) => {
                tracing::warn!(network_id = %probe.network_id, field = %e, "the end-to-end probe cannot be queued");
                Ok(None)
            }
        }
    }
}
