//! The progress of running jobs (`protocol::progress`): stages and output
//! lines recorded as the Agent sends them, each message once and in order;
//! the output bounded per job (the start and the end are kept, the middle is
//! cut); and the job's lease moved on by every message, on the database's
//! clock, so a long deploy lives as long as its Agent reports.

use crate::access::scope::NetworkScope;
use crate::entities::{job, job_log_line, job_stage};
use crate::jobs::queue::JobError;
use crate::rfc3339;
use crate::{database_now, StoreError};
use chrono::{DateTime, Duration, Utc};
use protocol::progress::{
    bounded_line, cut_marker, JobLogPage, JobProgress, LogLine, ProgressAnswer, StageStatus,
    StageUpdate, StageView, JOB_LOG_HEAD_BYTES, JOB_LOG_MAX_BYTES, LINES_PER_MESSAGE,
    PROGRESS_LEASE_SECS, STAGES_MAX,
};
use protocol::{FieldError, JobId, JobStatus, Problem};
use sea_orm::sea_query::{Alias, Expr, Func, OnConflict, SimpleExpr};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, QueryTrait, Set,
};

/// The lease of a job whose Agent reports progress, from the claim and from
/// each message.
pub const PROGRESS_LEASE: Duration = Duration::seconds(PROGRESS_LEASE_SECS as i64);
/// Lines in one page of `GET /api/v1/jobs/{id}/log`.
pub const LOG_PAGE: u64 = 1000;
/// A stage's name, at the most.
const STAGE_NAME_MAX: usize = 64;
/// A stage's command line, at the most (longer ones are cut).
const COMMAND_MAX: usize = 4096;
/// Output rows written per statement.
const INSERT_BATCH: usize = 200;

/// A stage update that passed validation, its times parsed.
struct CheckedStage<'a> {
    update: &'a StageUpdate,
    started_at: DateTime<Utc>,
    ended_at: Option<DateTime<Utc>>,
}

/// Checks a progress message against the extension's bounds, naming the
/// field at fault.
fn check(progress: &JobProgress) -> Result<Vec<CheckedStage<'_>>, FieldError> {
    if progress.seq == 0 {
        return Err(FieldError::new(
            "seq",
            Problem::OutOfRange {
                min: 1,
                max: u32::MAX,
            },
        ));
    }
    if progress.stages.len() > STAGES_MAX as usize {
        return Err(FieldError::new(
            "stages",
            Problem::TooMany {
                max: STAGES_MAX as usize,
            },
        ));
    }
    let lines: usize = progress.stages.iter().map(|s| s.lines.len()).sum();
    if lines > LINES_PER_MESSAGE {
        return Err(FieldError::new(
            "stages.lines",
            Problem::TooMany {
                max: LINES_PER_MESSAGE,
            },
        ));
    }
    let time = |i: usize, field: &str, text: &str| {
        DateTime::parse_from_rfc3339(text)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|_| FieldError::at(field, i, Problem::InvalidPayload))
    };
    let mut checked = Vec::with_capacity(progress.stages.len());
    for (i, update) in progress.stages.iter().enumerate() {
        if update.index >= STAGES_MAX {
            return Err(FieldError::at(
                "stages.index",
                i,
                Problem::OutOfRange {
                    min: 0,
                    max: STAGES_MAX - 1,
                },
            ));
        }
        let name = update.name.trim();
        if name.is_empty() {
            return Err(FieldError::at("stages.name", i, Problem::Required));
        }
        if name.chars().count() > STAGE_NAME_MAX {
            return Err(FieldError::at(
                "stages.name",
                i,
                Problem::TooLong {
                    max: STAGE_NAME_MAX,
                },
            ));
        }
        if name.chars().any(char::is_control) {
            return Err(FieldError::at("stages.name", i, Problem::ControlCharacters));
        }
        checked.push(CheckedStage {
            update,
            started_at: time(i, "stages.started_at", &update.started_at)?,
            ended_at: match &update.ended_at {
                Some(t) => Some(time(i, "stages.ended_at", t)?),
                None => None,
            },
        });
    }
    Ok(checked)
}

pub fn stage_view(row: &job_stage::Model, now: DateTime<Utc>) -> StageView {
    let end = row.ended_at.unwrap_or(now);
    StageView {
        elapsed_secs: (end - row.started_at).num_seconds().max(0) as u64,
        index: row.idx.max(0) as u32,
        name: row.name.clone(),
        status: row.status,
        started_at: rfc3339(row.started_at),
        ended_at: row.ended_at.map(rfc3339),
        command: row.command.clone(),
        exit_code: row.exit_code,
    }
}

#[derive(Clone)]
pub struct JobJournal {
    db: DatabaseConnection,
}

impl JobJournal {
    pub fn new(db: DatabaseConnection) -> Self {
        Self { db }
    }

    /// Records one progress message of `agent_id`'s running job. A message
    /// number already recorded changes nothing but the lease: the Agent sent
    /// it again because an answer was lost. Answers whether the admin asked
    /// the job to stop, and how long the lease now runs.
    #[tracing::instrument(name = "job.progress", skip_all, fields(agent_id, job_id = %progress.job_id, seq = progress.seq))]
    pub async fn record(
        &self,
        agent_id: &str,
        progress: &JobProgress,
    ) -> Result<ProgressAnswer, JobError> {
        let stages = check(progress).map_err(JobError::Invalid)?;
        let seq = i64::try_from(progress.seq).unwrap_or(i64::MAX);
        let id = progress.job_id.as_str();
        let now = database_now(&self.db).await;
        // A job taken announcing progress lives a minute past each message;
        // one taken by a version-1 claim keeps the ten minutes it was given.
        let lease: SimpleExpr = Expr::case(
            Expr::col(job::Column::ReportsProgress).eq(true),
            Expr::value(now + PROGRESS_LEASE),
        )
        .finally(Expr::col(job::Column::LeaseExpiresAt))
        .into();
        let mine = |update: sea_orm::UpdateMany<job::Entity>| {
            update
                .col_expr(job::Column::LeaseExpiresAt, lease.clone())
                .filter(job::Column::Id.eq(id))
                .filter(job::Column::AgentId.eq(agent_id))
                .filter(job::Column::Status.eq(JobStatus::Running))
        };
        // The transaction's first statement writes: on SQLite a transaction
        // that read first cannot take the write lock once another writer
        // committed (it fails at once, busy timeout or not).
        let txn = crate::begin_write(&self.db).await?;
        // Taking the message number is the conditional write that orders
        // concurrent messages: only one gets past it per number. It hands
        // back the row as written, so the output counters are current.
        let taken = update_returning(
            &txn,
            mine(job::Entity::update_many())
                .col_expr(job::Column::ProgressSeq, seq.into())
                .col_expr(job::Column::ProgressAt, Some(now).into())
                .filter(job::Column::ProgressSeq.lt(seq)),
        )
        .await?;
        let current = match taken {
            Some(current) => {
                for stage in &stages {
                    upsert_stage(&txn, id, stage, now).await?;
                }
                append_lines(&txn, &current, &stages).await?;
                current
            }
            // A number already recorded (the Agent sent it again because an
            // answer was lost) moves only the lease.
            None => match update_returning(&txn, mine(job::Entity::update_many())).await? {
                Some(current) => current,
                None => {
                    let row = job::Entity::find_by_id(id)
                        .one(&txn)
                        .await?
                        .filter(|j| j.agent_id == agent_id)
                        .ok_or(JobError::NotFound)?;
                    return Err(JobError::WrongState(row.status));
                }
            },
        };
        txn.commit().await?;
        let lease = current.lease_expires_at.unwrap_or(now);
        Ok(ProgressAnswer {
            ok: true,
            cancel: current.cancel_requested_at.is_some(),
            lease_seconds: (lease - now).num_seconds().max(0) as u64,
        })
    }

    /// The job's stages in order.
    pub async fn stages(&self, id: &str) -> Result<Vec<StageView>, StoreError> {
        Ok(job_stage::Entity::find()
            .filter(job_stage::Column::JobId.eq(id))
            .order_by_asc(job_stage::Column::Idx)
            .all(&self.db)
            .await?
            .iter()
            .map(|row| stage_view(row, Utc::now()))
            .collect())
    }

    /// The name of each running job's latest stage, for the job list.
    pub async fn current_stages(
        &self,
        ids: &[String],
    ) -> Result<std::collections::HashMap<String, String>, StoreError> {
        if ids.is_empty() {
            return Ok(Default::default());
        }
        let rows = job_stage::Entity::find()
            .filter(job_stage::Column::JobId.is_in(ids.iter().map(String::as_str)))
            .order_by_asc(job_stage::Column::JobId)
            .order_by_asc(job_stage::Column::Idx)
            .all(&self.db)
            .await?;
        // The last stage of each job wins.
        Ok(rows.into_iter().map(|s| (s.job_id, s.name)).collect())
    }

    /// Up to [`LOG_PAGE`] lines of the job's output after line `after`, with
    /// a marker where lines were cut; not found for a job `scope` does not see.
    pub async fn lines(
        &self,
        scope: &NetworkScope,
        id: &JobId,
        after: u64,
    ) -> Result<JobLogPage, JobError> {
        let job = job::Entity::find_by_id(id.as_str())
            .filter(scope.condition(job::Column::NetworkId))
            .one(&self.db)
            .await?
            .ok_or(JobError::NotFound)?;
        let after = i64::try_from(after).unwrap_or(i64::MAX);
        let rows = job_log_line::Entity::find()
            .filter(job_log_line::Column::JobId.eq(id.as_str()))
            .filter(job_log_line::Column::Line.gt(after))
            .order_by_asc(job_log_line::Column::Line)
            .limit(LOG_PAGE)
            .all(&self.db)
            .await?;
        let full = rows.len() as u64 == LOG_PAGE;
        let mut lines = Vec::with_capacity(rows.len() + 1);
        let mut previous = after;
        for row in rows {
            // A jump in the numbers after the kept start is where the cut is.
            if row.line > previous + 1 && previous >= job.log_head_lines {
                lines.push(LogLine {
                    line: (previous + 1) as u64,
                    stage: row.stage.max(0) as u32,
                    text: cut_marker((row.line - previous - 1) as u64),
                    cut: true,
                });
            }
            previous = row.line;
            lines.push(LogLine {
                line: row.line as u64,
                stage: row.stage.max(0) as u32,
                text: row.text,
                cut: false,
            });
        }
        Ok(JobLogPage {
            next: full.then_some(previous as u64),
            lines,
        })
    }

    /// Marks the stages still running when the job ended with `status`.
    pub async fn close_stages(
        db: &impl ConnectionTrait,
        id: &str,
        status: JobStatus,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let ended = match status {
            JobStatus::Succeeded => StageStatus::Succeeded,
            JobStatus::Cancelled => StageStatus::Cancelled,
            _ => StageStatus::Failed,
        };
        job_stage::Entity::update_many()
            .col_expr(job_stage::Column::Status, ended.into())
            .col_expr(job_stage::Column::EndedAt, Some(now).into())
            .filter(job_stage::Column::JobId.eq(id))
            .filter(job_stage::Column::Status.eq(StageStatus::Running))
            .exec(db)
            .await?;
        Ok(())
    }
}

/// Runs `update` and hands back the row it changed, if any (`RETURNING`,
/// which PostgreSQL and SQLite 3.35+ both have).
async fn update_returning(
    db: &impl ConnectionTrait,
    update: sea_orm::UpdateMany<job::Entity>,
) -> Result<Option<job::Model>, sea_orm::DbErr> {
    let mut statement = update.into_query();
    statement.returning_all();
    job::Entity::find()
        .from_raw_sql(db.get_database_backend().build(&statement))
        .one(db)
        .await
}

/// Records a stage's new state in one statement; one reported ended
/// without an end time ends when the message came (`now`), so its time
/// stops growing. A command or exit code left out keeps the one recorded.
async fn upsert_stage(
    db: &impl ConnectionTrait,
    job_id: &str,
    stage: &CheckedStage<'_>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    use job_stage::Column;
    let update = stage.update;
    let command = update
        .command
        .as_deref()
        .map(|c| crate::text::bounded(c, COMMAND_MAX));
    let (ended_at, ended_again): (_, SimpleExpr) =
        match (stage.ended_at, update.status.is_running()) {
            (Some(at), _) => (
                Some(at),
                Expr::col((Alias::new("excluded"), Column::EndedAt)).into(),
            ),
            (None, true) => (None, Expr::value(Option::<DateTime<Utc>>::None)),
            // Ended before: keep that time.
            (None, false) => (
                Some(now),
                Func::coalesce([
                    Expr::col((job_stage::Entity, Column::EndedAt)).into(),
                    Expr::col((Alias::new("excluded"), Column::EndedAt)).into(),
                ])
                .into(),
            ),
        };
    let mut on_conflict = OnConflict::columns([Column::JobId, Column::Idx]);
    on_conflict
        .update_columns([Column::Name, Column::Status])
        .value(Column::EndedAt, ended_again);
    if command.is_some() {
        on_conflict.update_column(Column::Command);
    }
    if update.exit_code.is_some() {
        on_conflict.update_column(Column::ExitCode);
    }
    let row = job_stage::ActiveModel {
        job_id: Set(job_id.to_string()),
        idx: Set(update.index as i32),
        name: Set(update.name.trim().to_string()),
        status: Set(update.status),
        started_at: Set(stage.started_at),
        ended_at: Set(ended_at),
        command: Set(command),
        exit_code: Set(update.exit_code),
    };
    job_stage::Entity::insert(row)
        .on_conflict(on_conflict)
        .exec_without_returning(db)
        .await?;
    Ok(())
}

/// Adds the message's lines after the job's last one. Past the job's bound,
/// the oldest lines after the kept start are deleted: the start and the end
/// of a long output are what explain it.
async fn append_lines(
    db: &impl ConnectionTrait,
    job: &job::Model,
    stages: &[CheckedStage<'_>],
) -> Result<(), StoreError> {
    let (mut last, mut bytes, mut head) = (job.log_lines, job.log_bytes, job.log_head_lines);
    let mut rows = Vec::new();
    for stage in stages {
        for text in &stage.update.lines {
            let text = bounded_line(text);
            let size = text.len() as i64 + 1;
            last += 1;
            if head == last - 1 && bytes + size <= JOB_LOG_HEAD_BYTES as i64 {
                head = last;
            }
            bytes += size;
            rows.push(job_log_line::ActiveModel {
                job_id: Set(job.id.clone()),
                line: Set(last),
                stage: Set(stage.update.index as i32),
                text: Set(text),
                bytes: Set(size as i32),
            });
        }
    }
    if rows.is_empty() {
        return Ok(());
    }
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let batch: Vec<_> = rows.by_ref().take(INSERT_BATCH).collect();
        job_log_line::Entity::insert_many(batch).exec(db).await?;
    }
    if bytes > JOB_LOG_MAX_BYTES as i64 {
        bytes -= cut_middle(db, &job.id, head, bytes - JOB_LOG_MAX_BYTES as i64).await?;
    }
    job::Entity::update_many()
        .col_expr(job::Column::LogLines, last.into())
        .col_expr(job::Column::LogBytes, bytes.into())
        .col_expr(job::Column::LogHeadLines, head.into())
        .filter(job::Column::Id.eq(job.id.as_str()))
        .exec(db)
        .await?;
    Ok(())
}

/// Deletes the oldest lines after line `head` until at least `excess` bytes
/// are gone; returns how many bytes went.
async fn cut_middle(
    db: &impl ConnectionTrait,
    job_id: &str,
    head: i64,
    excess: i64,
) -> Result<i64, StoreError> {
    let mut removed = 0i64;
    let mut through = head;
    while removed < excess {
        let sizes: Vec<(i64, i32)> = job_log_line::Entity::find()
            .select_only()
            .column(job_log_line::Column::Line)
            .column(job_log_line::Column::Bytes)
            .filter(job_log_line::Column::JobId.eq(job_id))
            .filter(job_log_line::Column::Line.gt(through))
            .order_by_asc(job_log_line::Column::Line)
            .limit(500)
            .into_tuple()
            .all(db)
            .await?;
        if sizes.is_empty() {
            break;
        }
        for (line, size) in sizes {
            if removed >= excess {
                break;
            }
            removed += i64::from(size);
            through = line;
        }
    }
    job_log_line::Entity::delete_many()
        .filter(job_log_line::Column::JobId.eq(job_id))
        .filter(job_log_line::Column::Line.gt(head))
        .filter(job_log_line::Column::Line.lte(through))
        .exec(db)
        .await?;
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(stages: Vec<StageUpdate>) -> JobProgress {
        JobProgress {
            job_id: JobId::from_random_bytes([2; 16]),
            seq: 1,
            stages,
            nonce: None,
        }
    }

    fn stage(name: &str, lines: usize) -> StageUpdate {
        StageUpdate {
            index: 0,
            name: name.into(),
            status: StageStatus::Running,
            started_at: "2026-12-02T10:00:00Z".into(),
            ended_at: None,
            command: None,
            exit_code: None,
            lines: vec!["x".into(); lines],
        }
    }

    #[test]
    fn a_message_outside_the_bounds_is_refused_naming_the_field() {
        let refused = |m: JobProgress| check(&m).err().map(|e| e.field);
        assert_eq!(refused(message(vec![stage("pull", 3)])), None);
        let mut zero = message(vec![]);
        zero.seq = 0;
        assert_eq!(refused(zero).as_deref(), Some("seq"));
        assert_eq!(
            refused(message(vec![stage("pull", LINES_PER_MESSAGE + 1)])).as_deref(),
            Some("stages.lines")
        );
        assert_eq!(
            refused(message(vec![stage("", 0)])).as_deref(),
            Some("stages.name")
        );
        assert_eq!(
            refused(message(vec![stage("pull\u{1b}[2J", 0)])).as_deref(),
            Some("stages.name")
        );
        let mut late = stage("up", 0);
        late.index = STAGES_MAX;
        assert_eq!(
            refused(message(vec![late])).as_deref(),
            Some("stages.index")
        );
        let mut badly_timed = stage("up", 0);
        badly_timed.started_at = "yesterday".into();
        assert_eq!(
            refused(message(vec![badly_timed])).as_deref(),
            Some("stages.started_at")
        );
    }
}
