//! Scheduled identity backups. Once a sidecar has a backup, Control queues a
//! new `backup_volume` when its newest archive is as old as the plan says
//! (a day unless the backup job that took it asked for a week, or for none),
//! keeping as many as that job asked for, and a `verify_backup` for each new archive
//! nobody has verified yet, so that a verified copy is never more than one
//! period behind. A job that fails is not retried before the next day (its
//! failure goes to the alert webhook like any failed job).
//!
//! Two replicas ticking at the same moment could both queue a backup: one
//! archive more, which pruning takes care of.

use crate::entities::{agent, component, job};
use crate::jobs::queue::{Asked, JobQueue};
use crate::StoreError;
use chrono::{DateTime, Duration, Utc};
use protocol::backups::{BackupEvery, BackupVolume, VerifyBackup, JOB_KINDS, KEEP_DEFAULT};
use protocol::extensions::Extension;
use protocol::jobs::JobPayload;
use protocol::JobStatus;
use sea_orm::{ColumnTrait, Condition, DatabaseConnection, EntityTrait, QueryFilter};

/// How long a failed scheduled backup waits before it is tried again.
pub const RETRY_AFTER: Duration = Duration::hours(24);

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
        let newest = super::rows_by_sidecar(&self.db, Condition::all())
            .await?
            .into_iter()
            .filter_map(|(key, rows)| Some((key, rows.into_iter().next()?)));
        let mut queued = Vec::new();
        for ((agent_id, component_id), archive) in newest {
            if !self.still_backed_up_there(&agent_id, &component_id).await? {
                continue;
            }
            // Control's own clock throughout: the Agent's may be off.
            let tried = self
                .jobs_since(&agent_id, &component_id, archive.recorded_at)
                .await?;
            if tried.iter().any(|j| j.status.is_active()) {
                continue;
            }
            let plan = BackupVolume {
                component_id: component_id.clone(),
                keep: u32::try_from(archive.keep).unwrap_or(KEEP_DEFAULT),
                every: BackupEvery::from_slug(&archive.every).unwrap_or_default(),
            };
            let due = plan
                .every
                .hours()
                .is_some_and(|hours| now - archive.recorded_at >= Duration::hours(hours));
            let payload = if due {
                // One that failed since is tried again a day later, not every tick.
                if tried
                    .iter()
                    .any(|j| j.kind == "backup_volume" && now - j.created_at < RETRY_AFTER)
                {
                    continue;
                }
                JobPayload::BackupVolume(plan)
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
        if agent.disabled
            || agent.retired.is_retired()
            || !agent.docker_available
            || !agent.extensions().has(Extension::Backups)
        {
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
    /// (Control heard of the newest archive).
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
}
