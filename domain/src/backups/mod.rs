//! Identity backups as Agents report them (`protocol::backups`). Control
//! stores only what describes an archive; the archive, and the identity in
//! it, stay on the Agent's host. A finished `backup_volume` job adds its
//! archive and forgets those the Agent pruned; a `verify_backup` job marks
//! its archive verified, or records why it was not.

pub mod schedule;

use crate::entities::{identity_backup, job};
use crate::StoreError;
use chrono::{DateTime, Utc};
use protocol::backups::{archive_name, BackupReport, BackupState};
use sea_orm::sea_query::OnConflict;
use sea_orm::{ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, Set};
use std::collections::HashMap;

/// The longest verification failure kept (its first line, bounded).
const ERROR_MAX: usize = 500;
const DIRECTORY_MAX: usize = 1024;

/// A report worth storing: for this job's sidecar, and shaped as an Agent
/// makes it. Anything else is logged and dropped, never stored.
fn accepted(job: &job::Model, report: &BackupReport) -> Option<DateTime<Utc>> {
    let for_this_job = job.component_id.as_deref() == Some(report.component_id.as_str());
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
    let taken = DateTime::parse_from_rfc3339(&report.taken_at)
        .ok()
        .map(|t| t.with_timezone(&Utc));
    let fits = i64::try_from(report.size_bytes).is_ok();
    (for_this_job
        && sha_ok
        && address_ok
        && directory_ok
        && fits
        && archive_name(&report.archive).is_ok())
    .then_some(taken)
    .flatten()
}

/// Records what a finished backup job found, in the transaction that
/// finishes it.
pub(crate) async fn record_result(
    txn: &impl ConnectionTrait,
    job: &job::Model,
    succeeded: bool,
    report: Option<&BackupReport>,
    text: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let Some(component_id) = job.component_id.as_deref() else {
        return Ok(());
    };
    match (job.kind.as_str(), succeeded, report) {
        ("backup_volume" | "verify_backup", true, Some(report)) => {
            let Some(taken_at) = accepted(job, report) else {
                tracing::warn!(job_id = %job.id, "a backup report that does not describe this job's archive; not stored");
                return Ok(());
            };
            let verified = job.kind == "verify_backup" && report.verified;
            store(txn, job, report, taken_at, verified.then_some(now)).await?;
            if job.kind == "backup_volume" {
                forget_pruned(txn, &job.agent_id, component_id, report.kept).await?;
            }
        }
        ("verify_backup", false, _) => {
            let archive = serde_json::from_str::<serde_json::Value>(&job.payload)
                .ok()
                .and_then(|p| p["archive"].as_str().map(String::from));
            let target = match archive {
                Some(name) => Some(name),
                None => newest(txn, &job.agent_id, component_id)
                    .await?
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

async fn store(
    txn: &impl ConnectionTrait,
    job: &job::Model,
    report: &BackupReport,
    taken_at: DateTime<Utc>,
    verified_at: Option<DateTime<Utc>>,
) -> Result<(), StoreError> {
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
    };
    let mut update = vec![
        identity_backup::Column::NetworkId,
        identity_backup::Column::Directory,
        identity_backup::Column::SizeBytes,
        identity_backup::Column::Sha256,
        identity_backup::Column::TakenAt,
        identity_backup::Column::Address,
        identity_backup::Column::VerifyError,
    ];
    // A new report of the same archive does not unverify it.
    if verified_at.is_some() {
        update.push(identity_backup::Column::VerifiedAt);
    }
    identity_backup::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([
                identity_backup::Column::AgentId,
                identity_backup::Column::ComponentId,
                identity_backup::Column::Archive,
            ])
            .update_columns(update)
            .to_owned(),
        )
        .exec_without_returning(txn)
        .await?;
    Ok(())
}

/// Forgets the archives past the newest `kept`, as the Agent deleted them.
async fn forget_pruned(
    txn: &impl ConnectionTrait,
    agent_id: &str,
    component_id: &str,
    kept: u32,
) -> Result<(), StoreError> {
    let rows = of_sidecar(txn, agent_id, component_id).await?;
    let gone: Vec<String> = rows
        .into_iter()
        .skip(kept.max(1) as usize)
        .map(|row| row.archive)
        .collect();
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

/// A sidecar's archives, newest first.
async fn of_sidecar(
    db: &impl ConnectionTrait,
    agent_id: &str,
    component_id: &str,
) -> Result<Vec<identity_backup::Model>, StoreError> {
    Ok(identity_backup::Entity::find()
        .filter(identity_backup::Column::AgentId.eq(agent_id))
        .filter(identity_backup::Column::ComponentId.eq(component_id))
        .order_by_desc(identity_backup::Column::TakenAt)
        .order_by_desc(identity_backup::Column::Archive)
        .all(db)
        .await?)
}

async fn newest(
    db: &impl ConnectionTrait,
    agent_id: &str,
    component_id: &str,
) -> Result<Option<identity_backup::Model>, StoreError> {
    Ok(of_sidecar(db, agent_id, component_id)
        .await?
        .into_iter()
        .next())
}

/// Each sidecar's backups, by (Agent ID, component ID), among the rows
/// `condition` selects.
pub async fn states(
    db: &impl ConnectionTrait,
    condition: Condition,
) -> Result<HashMap<(String, String), BackupState>, StoreError> {
    let rows = identity_backup::Entity::find()
        .filter(condition)
        .order_by_desc(identity_backup::Column::TakenAt)
        .order_by_desc(identity_backup::Column::Archive)
        .all(db)
        .await?;
    let mut states: HashMap<(String, String), BackupState> = HashMap::new();
    for row in rows {
        let key = (row.agent_id.clone(), row.component_id.clone());
        let state = states.entry(key).or_insert_with(|| BackupState {
            directory: row.directory.clone(),
            newest_archive: row.archive.clone(),
            newest_taken_at: crate::rfc3339(row.taken_at),
            verify_error: row.verify_error.clone(),
            ..BackupState::default()
        });
        state.archives += 1;
        if state.verified_at.is_none() {
            if let Some(at) = row.verified_at {
                state.verified_archive = Some(row.archive.clone());
                state.verified_at = Some(crate::rfc3339(at));
            }
        }
    }
    Ok(states)
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

/// The directories Agents keep backups in, with the Agent's ID, for the
/// operations policy.
pub async fn directories(db: &impl ConnectionTrait) -> Result<Vec<(String, String)>, StoreError> {
    let rows = identity_backup::Entity::find()
        .order_by_asc(identity_backup::Column::AgentId)
        .order_by_asc(identity_backup::Column::Directory)
        .all(db)
        .await?;
    let mut seen: Vec<(String, String)> = rows
        .into_iter()
        .map(|row| (row.agent_id, row.directory))
        .collect();
    seen.dedup();
    Ok(seen)
}
