//! Retention of the enrollment log, the audit log and jobs' output: lines
//! older than the retention period (`KNOTROUTE_CONTROL_LOG_RETENTION_DAYS`),
//! and the output of jobs that ended before it (their stages and result
//! stay), are deleted by every replica's pruning timer. Deleting by age gives the same result
//! whichever replica runs it, and however often, so replicas need no lease.

use crate::entities::{audit_entry, enrollment_log, job, job_log_line};
use crate::StoreError;
use chrono::{DateTime, Duration, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

/// What the retention is unless configured.
pub const DEFAULT_RETENTION_DAYS: u32 = 90;
/// Rows deleted per statement: a first run over months of lines holds no
/// lock for long (SQLite has one writer).
const BATCH: u64 = 5_000;

/// Deletes the lines of both logs whose (last) time is older than `retention`
/// before `now`; returns how many.
pub async fn prune(
    db: &impl ConnectionTrait,
    now: DateTime<Utc>,
    retention: Duration,
) -> Result<u64, StoreError> {
    let cutoff = now - retention;
    let enrollments = prune_table::<enrollment_log::Entity, _>(
        db,
        enrollment_log::Column::Id,
        enrollment_log::Column::At,
        cutoff,
    )
    .await?;
    let audit = prune_table::<audit_entry::Entity, _>(
        db,
        audit_entry::Column::Id,
        audit_entry::Column::At,
        cutoff,
    )
    .await?;
    let output = prune_job_output(db, cutoff).await?;
    Ok(enrollments + audit + output)
}

/// Deletes the output lines of jobs that ended before `cutoff`, a few jobs
/// (up to 100 MiB of lines) per statement.
async fn prune_job_output(
    db: &impl ConnectionTrait,
    cutoff: DateTime<Utc>,
) -> Result<u64, StoreError> {
    let mut deleted = 0;
    loop {
        let ended: Vec<String> = job::Entity::find()
            .select_only()
            .column(job::Column::Id)
            .filter(job::Column::FinishedAt.lt(cutoff))
            .filter(job::Column::LogLines.gt(0))
            .limit(100)
            .into_tuple()
            .all(db)
            .await?;
        if ended.is_empty() {
            return Ok(deleted);
        }
        deleted += job_log_line::Entity::delete_many()
            .filter(job_log_line::Column::JobId.is_in(ended.iter().map(String::as_str)))
            .exec(db)
            .await?
            .rows_affected;
        job::Entity::update_many()
            .col_expr(job::Column::LogBytes, 0i64.into())
            .col_expr(job::Column::LogLines, 0i64.into())
            .col_expr(job::Column::LogHeadLines, 0i64.into())
            .filter(job::Column::Id.is_in(ended))
            .exec(db)
            .await?;
    }
}

async fn prune_table<E, C>(
    db: &impl ConnectionTrait,
    id: C,
    at: C,
    cutoff: DateTime<Utc>,
) -> Result<u64, StoreError>
where
    E: EntityTrait<Column = C>,
    C: ColumnTrait,
{
    let mut deleted = 0;
    loop {
        let ids: Vec<i64> = E::find()
            .select_only()
            .column(id)
            .filter(at.lt(cutoff))
            .order_by_asc(id)
            .limit(BATCH)
            .into_tuple()
            .all(db)
            .await?;
        if ids.is_empty() {
            return Ok(deleted);
        }
        let full = ids.len() as u64 == BATCH;
        deleted += E::delete_many()
            .filter(id.is_in(ids))
            .exec(db)
            .await?
            .rows_affected;
        if !full {
            return Ok(deleted);
        }
    }
}
