//! Daily identity backups. Once a sidecar has a backup, Control queues a new
//! `backup_volume` when its newest archive is a day old, keeping as many as
//! the last backup job asked for, and a `verify_backup` for each new archive
//! nobody has verified yet, so that a verified copy is never more than a day
//! behind. A job that fails is not retried before the next day (its failure
//! goes to the alert webhook like any failed job).
//!
//! Two replicas ticking at the same moment could both queue a backup: one
//! archive more, which pruning takes care of.

use crate::entities::{agent, component, identity_backup, job};
use crate::jobs::queue::{Asked, JobQueue};
use crate::StoreError;
use chrono::{DateTime, Duration, Utc};
use protocol::backups::{BackupVolume, VerifyBackup, JOB_KINDS, KEEP_DEFAULT};
use protocol::jobs::JobPayload;
use protocol::JobStatus;
use sea_orm::{ColumnTrait, Condition, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder};
use std::collections::HashMap;

/// How old the newest archive may get before the next backup is queued.
pub const EVERY: Duration = Duration::hours(24);

#[derive(Clone)]
pub struct BackupSchedule {
    db: DatabaseConnection,
    jobs: JobQueue,
}

impl BackupSchedule {
    pub fn new(db: DatabaseConnection, jobs: JobQueue) -> Self {
        Self { db, jobs }
    }

    /// Queues the backups and verifications due at `now`; returns the jobs.
    pub async fn queue_due(&self, now: DateTime<Utc>) -> Result<Vec<job::Model>, StoreError> {
        let rows = identity_backup::Entity::find()
            .order_by_desc(identity_backup::Column::TakenAt)
            .order_by_desc(identity_backup::Column::Archive)
            .all(&self.db)
            .await?;
        let mut newest: HashMap<(String, String), identity_backup::Model> = HashMap::new();
        for row in rows {
            newest
                .entry((row.agent_id.clone(), row.component_id.clone()))
                .or_insert(row);
        }
        let mut queued = Vec::new();
        for ((agent_id, component_id), archive) in newest {
            if !self.still_backed_up_there(&agent_id, &component_id).await? {
                continue;
            }
            let tried = self
                .jobs_since(&agent_id, &component_id, archive.taken_at)
                .await?;
            if tried.iter().any(|j| j.status.is_active()) {
                continue;
            }
            let payload = if now - archive.taken_at >= EVERY {
                // One that failed since is tried again a day later, not every tick.
                if tried
                    .iter()
                    .any(|j| j.kind == "backup_volume" && now - j.created_at < EVERY)
                {
                    continue;
                }
                JobPayload::BackupVolume(BackupVolume {
                    component_id: component_id.clone(),
                    keep: self.keep_asked(&agent_id, &component_id).await?,
                })
            } else if archive.verified_at.is_none()
                && archive.verify_error.is_empty()
                && !tried.iter().any(|j| j.kind == "verify_backup")
            {
                JobPayload::VerifyBackup(VerifyBackup {
                    component_id: component_id.clone(),
                    archive: Some(archive.archive.clone()),
                })
            } else {
                continue;
            };
            match self
                .jobs
                .insert(&agent_id, &payload, None, Asked::control())
                .await
            {
                Ok(row) => queued.push(row),
                Err(e) => {
                    tracing::warn!(agent_id, component_id, error = %e, "could not queue a scheduled backup job")
                }
            }
        }
        Ok(queued)
    }

    /// The sidecar is still on that Agent, and the Agent takes Docker jobs.
    async fn still_backed_up_there(
        &self,
        agent_id: &str,
        component_id: &str,
    ) -> Result<bool, StoreError> {
        let Some(agent) = agent::Entity::find_by_id(agent_id).one(&self.db).await? else {
            return Ok(false);
        };
        if agent.disabled || agent.retired.is_retired() || !agent.docker_available {
            return Ok(false);
        }
        let there = component::Entity::find()
            .filter(component::Column::AgentId.eq(agent_id))
            .filter(component::Column::ComponentId.eq(component_id))
            .one(&self.db)
            .await?;
        Ok(there.is_some_and(|c| c.desired || c.status.is_running()))
    }

    /// Backup jobs for the sidecar still in flight, or created since `since`
    /// (the newest archive was taken).
    async fn jobs_since(
        &self,
        agent_id: &str,
        component_id: &str,
        since: DateTime<Utc>,
    ) -> Result<Vec<job::Model>, StoreError> {
        let active: Vec<JobStatus> = [JobStatus::Pending, JobStatus::Running].into();
        Ok(job::Entity::find()
            .filter(job::Column::AgentId.eq(agent_id))
            .filter(job::Column::ComponentId.eq(component_id))
            .filter(job::Column::Kind.is_in(JOB_KINDS))
            .filter(
                Condition::any()
                    .add(job::Column::CreatedAt.gte(since))
                    .add(job::Column::Status.is_in(active)),
            )
            .all(&self.db)
            .await?)
    }

    /// How many archives the last backup job asked to keep.
    async fn keep_asked(&self, agent_id: &str, component_id: &str) -> Result<u32, StoreError> {
        let last = job::Entity::find()
            .filter(job::Column::AgentId.eq(agent_id))
            .filter(job::Column::ComponentId.eq(component_id))
            .filter(job::Column::Kind.eq("backup_volume"))
            .order_by_desc(job::Column::CreatedAt)
            .one(&self.db)
            .await?;
        Ok(last
            .and_then(|j| serde_json::from_str::<serde_json::Value>(&j.payload).ok())
            .and_then(|p| BackupVolume::parse(&p).ok())
            .map_or(KEEP_DEFAULT, |b| b.keep))
    }
}
