//! Identity backups as Agents report them (`protocol::backups`). Control
//! stores only what describes an archive; the archive, and the identity in
//! it, stay on the Agent's host. A finished `backup_volume` job adds its
//! archive and forgets those the Agent no longer keeps; a `verify_backup` job
//! marks its archive verified, or records why it was not.

pub mod schedule;

use crate::entities::{identity_backup, job};
use crate::StoreError;
use chrono::{DateTime, Utc};
use protocol::backups::{
    archive_name, archive_order, BackupEvery, BackupJob, BackupReport, BackupState, BackupVolume,
    VerifyBackup, JOB_KINDS, KEEP_DEFAULT,
};
use protocol::jobs::JobPayload;
use protocol::JobStatus;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, Set,
};
use std::cmp::Reverse;
use std::collections::HashMap;

/// The longest verification failure kept (its first line, bounded).
const ERROR_MAX: usize = 500;
const DIRECTORY_MAX: usize = 1024;

/// The archive a `verify_backup` job named (none: the newest).
fn asked_archive(job: &job::Model) -> Option<String> {
    match job.parsed_payload()? {
        JobPayload::VerifyBackup(VerifyBackup { archive, .. }) => archive,
        _ => None,
    }
}

/// A report worth storing: about this job's sidecar and, for a verify, the
/// archive it named; shaped exactly as an Agent makes it. Anything else is
/// logged and dropped, never stored.
fn accepted(job: &job::Model, report: &BackupReport) -> Option<DateTime<Utc>> {
    let for_this_job = job.component_id.as_deref() == Some(report.component_id.as_str());
    let asked_archive = asked_archive(job);
    let archive_ok = archive_name(&report.archive).is_ok_and(|name| name == report.archive)
        && asked_archive.is_none_or(|asked| asked == report.archive);
    let sha_ok = report.sha256.len() == 64
        && report
            .sha256
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    let address_ok = report.address.len() <= 255
        && report.address.ends_with(".knot")
        && !report.address.chars().any(char::is_control);
    let directory_ok =
        report.directory.len() <= DIRECTORY_MAX && !report.directory.chars().any(char::is_control);
    let fits = i64::try_from(report.size_bytes).is_ok();
    let taken = DateTime::parse_from_rfc3339(&report.taken_at)
        .ok()
        .map(|t| t.with_timezone(&Utc));
    (for_this_job && archive_ok && sha_ok && address_ok && directory_ok && fits)
        .then_some(taken)
        .flatten()
}

/// Records what a finished backup job found, in the transaction that
/// finishes it.
pub(crate) async fn record_result(
    txn: &impl ConnectionTrait,
    job: &job::Model,
    outcome: JobStatus,
    report: Option<&BackupReport>,
    text: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let Some(component_id) = job.component_id.as_deref() else {
        return Ok(());
    };
    match (job.kind.as_str(), outcome, report) {
        ("backup_volume" | "verify_backup", JobStatus::Succeeded, Some(report)) => {
            let Some(taken_at) = accepted(job, report) else {
                tracing::warn!(job_id = %job.id, "a backup report that does not describe this job's archive; not stored");
                return Ok(());
            };
            let plan = match job.parsed_payload() {
                Some(JobPayload::BackupVolume(plan)) => Some(plan),
                _ => None,
            };
            let verified = job.kind == "verify_backup" && report.verified;
            store(txn, job, report, taken_at, verified, plan, now).await?;
            if job.kind == "backup_volume" {
                forget_pruned(txn, &job.agent_id, component_id, report).await?;
            }
        }
        // Only a verification that ran and failed says the archive is bad (a
        // cancelled one says nothing of it).
        ("verify_backup", JobStatus::Failed, _) => {
            let target = match asked_archive(job) {
                Some(name) => Some(name),
                None => of_sidecar(txn, &job.agent_id, component_id)
                    .await?
                    .into_iter()
                    .next()
                    .map(|row| row.archive),
            };
            if let Some(archive) = target {
                let why: String = text
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("verification failed")
                    .chars()
                    .take(ERROR_MAX)
                    .collect();
                identity_backup::Entity::update_many()
                    .col_expr(
                        identity_backup::Column::VerifiedAt,
                        Option::<DateTime<Utc>>::None.into(),
                    )
                    .col_expr(identity_backup::Column::VerifyError, why.into())
                    .filter(identity_backup::Column::AgentId.eq(job.agent_id.as_str()))
                    .filter(identity_backup::Column::ComponentId.eq(component_id))
                    .filter(identity_backup::Column::Archive.eq(archive))
                    .exec(txn)
                    .await?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Inserts or updates the archive's row. A verification marks it verified;
/// a report of other content under the same name unverifies it; the plan is
/// the backup job's (a verify keeps it).
async fn store(
    txn: &impl ConnectionTrait,
    job: &job::Model,
    report: &BackupReport,
    taken_at: DateTime<Utc>,
    verified: bool,
    plan: Option<BackupVolume>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let existing = identity_backup::Entity::find_by_id((
        job.agent_id.clone(),
        report.component_id.clone(),
        report.archive.clone(),
    ))
    .one(txn)
    .await?;
    let same_content = existing
        .as_ref()
        .is_some_and(|row| row.sha256 == report.sha256);
    let verified_at = if verified {
        Some(now)
    } else if same_content {
        existing.as_ref().and_then(|row| row.verified_at)
    } else {
        None
    };
    let (keep, every) = match (&plan, &existing) {
        (Some(plan), _) => (plan.keep as i32, plan.every.slug().to_string()),
        (None, Some(row)) => (row.keep, row.every.clone()),
        (None, None) => (
            KEEP_DEFAULT as i32,
            BackupEvery::default().slug().to_string(),
        ),
    };
    let row = identity_backup::ActiveModel {
        agent_id: Set(job.agent_id.clone()),
        component_id: Set(report.component_id.clone()),
        archive: Set(report.archive.clone()),
        network_id: Set(job.network_id.clone()),
        directory: Set(report.directory.clone()),
        size_bytes: Set(report.size_bytes as i64),
        sha256: Set(report.sha256.clone()),
        taken_at: Set(taken_at),
        address: Set(report.address.clone()),
        verified_at: Set(verified_at),
        verify_error: Set(String::new()),
        keep: Set(keep),
        every: Set(every),
        recorded_at: Set(existing.as_ref().map_or(now, |row| row.recorded_at)),
    };
    if existing.is_some() {
        row.update(txn).await?;
    } else {
        row.insert(txn).await?;
    }
    Ok(())
}

/// Forgets the archives the Agent no longer keeps: those not among the
/// names it reported (or, from a report without them, past the newest `kept`).
async fn forget_pruned(
    txn: &impl ConnectionTrait,
    agent_id: &str,
    component_id: &str,
    report: &BackupReport,
) -> Result<(), StoreError> {
    let rows = of_sidecar(txn, agent_id, component_id).await?;
    let gone: Vec<String> = if report.kept_archives.is_empty() {
        rows.into_iter()
            .skip(report.kept.max(1) as usize)
            .map(|row| row.archive)
            .collect()
    } else {
        rows.into_iter()
            .map(|row| row.archive)
            .filter(|archive| !report.kept_archives.contains(archive))
            .collect()
    };
    if !gone.is_empty() {
        identity_backup::Entity::delete_many()
            .filter(identity_backup::Column::AgentId.eq(agent_id))
            .filter(identity_backup::Column::ComponentId.eq(component_id))
            .filter(identity_backup::Column::Archive.is_in(gone))
            .exec(txn)
            .await?;
    }
    Ok(())
}

/// Newest first, as the Agent orders them (`archive_order`).
fn newest_first(rows: &mut [identity_backup::Model]) {
    rows.sort_by_key(|row| Reverse((row.taken_at, archive_order(&row.archive))));
}

/// A sidecar's archives, newest first.
async fn of_sidecar(
    db: &impl ConnectionTrait,
    agent_id: &str,
    component_id: &str,
) -> Result<Vec<identity_backup::Model>, StoreError> {
    let mut rows = identity_backup::Entity::find()
        .filter(identity_backup::Column::AgentId.eq(agent_id))
        .filter(identity_backup::Column::ComponentId.eq(component_id))
        .all(db)
        .await?;
    newest_first(&mut rows);
    Ok(rows)
}

/// Each sidecar's archives, newest first, by (Agent ID, component ID), among
/// the rows `condition` selects.
pub(crate) async fn rows_by_sidecar(
    db: &impl ConnectionTrait,
    condition: Condition,
) -> Result<HashMap<(String, String), Vec<identity_backup::Model>>, StoreError> {
    let mut by_sidecar: HashMap<(String, String), Vec<identity_backup::Model>> = HashMap::new();
    for row in identity_backup::Entity::find()
        .filter(condition)
        .all(db)
        .await?
    {
        by_sidecar
            .entry((row.agent_id.clone(), row.component_id.clone()))
            .or_default()
            .push(row);
    }
    for rows in by_sidecar.values_mut() {
        newest_first(rows);
    }
    Ok(by_sidecar)
}

/// What the Services screen and the checklist show of one sidecar's archives
/// (newest first): the newest, its plan and any failure of its verification,
/// and the newest verified one.
fn state_of(rows: &[identity_backup::Model]) -> Option<BackupState> {
    let newest = rows.first()?;
    let verified = rows.iter().find(|row| row.verified_at.is_some());
    Some(BackupState {
        archives: rows.len() as u32,
        directory: newest.directory.clone(),
        newest_archive: newest.archive.clone(),
        newest_taken_at: crate::rfc3339(newest.taken_at),
        verified_archive: verified.map(|row| row.archive.clone()),
        verified_at: verified.and_then(|row| row.verified_at).map(crate::rfc3339),
        verified_address: verified.map(|row| row.address.clone()),
        verify_error: newest.verify_error.clone(),
        keep: u32::try_from(newest.keep).unwrap_or(KEEP_DEFAULT),
        every: BackupEvery::from_slug(&newest.every).unwrap_or_default(),
    })
}

/// Each sidecar's backups, by (Agent ID, component ID), among the rows
/// `condition` selects.
pub async fn states(
    db: &impl ConnectionTrait,
    condition: Condition,
) -> Result<HashMap<(String, String), BackupState>, StoreError> {
    Ok(rows_by_sidecar(db, condition)
        .await?
        .into_iter()
        .filter_map(|(key, rows)| Some((key, state_of(&rows)?)))
        .collect())
}

/// Those of the given sidecars (`(Agent ID, component ID)`).
pub async fn states_of(
    db: &impl ConnectionTrait,
    sidecars: &[(String, String)],
) -> Result<HashMap<(String, String), BackupState>, StoreError> {
    if sidecars.is_empty() {
        return Ok(HashMap::new());
    }
    let agents: Vec<&str> = sidecars.iter().map(|(a, _)| a.as_str()).collect();
    let components: Vec<&str> = sidecars.iter().map(|(_, c)| c.as_str()).collect();
    let condition = Condition::all()
        .add(identity_backup::Column::AgentId.is_in(agents))
        .add(identity_backup::Column::ComponentId.is_in(components));
    states(db, condition).await
}

/// How far back a sidecar's row looks for its backup and verification jobs:
/// a job that failed long ago is not news, and the window bounds the read.
const RECENT_JOBS: chrono::Duration = chrono::Duration::days(7);

/// The latest backup or verification job of each of the given sidecars
/// (`(Agent ID, component ID)`) queued in the week before `now`.
pub async fn latest_jobs_of(
    db: &impl ConnectionTrait,
    sidecars: &[(String, String)],
    now: DateTime<Utc>,
) -> Result<HashMap<(String, String), BackupJob>, StoreError> {
    if sidecars.is_empty() {
        return Ok(HashMap::new());
    }
    let agents: Vec<&str> = sidecars.iter().map(|(a, _)| a.as_str()).collect();
    let components: Vec<&str> = sidecars.iter().map(|(_, c)| c.as_str()).collect();
    let rows = job::Entity::find()
        .filter(job::Column::AgentId.is_in(agents))
        .filter(job::Column::ComponentId.is_in(components))
        .filter(job::Column::Kind.is_in(JOB_KINDS))
        .filter(job::Column::CreatedAt.gt(now - RECENT_JOBS))
        .order_by_desc(job::Column::CreatedAt)
        .order_by_desc(job::Column::Id)
        .all(db)
        .await?;
    let mut latest = HashMap::new();
    for row in rows {
        let Some(component) = row.component_id else {
            continue;
        };
        latest
            .entry((row.agent_id, component))
            .or_insert(BackupJob {
                id: <protocol::JobId as protocol::ids::Id>::from_stored(row.id),
                status: row.status,
            });
    }
    Ok(latest)
}

/// The directories Agents keep backups in, with the Agent's ID, for the
/// operations policy.
pub async fn directories(db: &impl ConnectionTrait) -> Result<Vec<(String, String)>, StoreError> {
    let mut seen: Vec<(String, String)> = identity_backup::Entity::find()
        .all(db)
        .await?
        .into_iter()
        .map(|row| (row.agent_id, row.directory))
        .collect();
    seen.sort();
    seen.dedup();
    Ok(seen)
}
