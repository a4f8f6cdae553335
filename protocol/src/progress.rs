//! Ours, beyond version 1: a job's progress while it runs (docs/src/agent-protocol.md).
//!
//! A job is a sequence of stages (validate, write compose, pull, up, settle,
//! health, …). While it runs, the Agent sends `POST /api/v1/agents/jobs/progress`
//! with the stages that started, ended or printed since its previous message.
//! Each message, even an empty keep-alive, extends the job's lease; the answer
//! tells the Agent whether the admin asked it to stop. A Control that answers
//! 404 does not know the extension: the Agent stops sending to it.

use crate::ids::JobId;
use serde::{Deserialize, Serialize};

/// The path of the extension.
pub const PROGRESS_PATH: &str = "/api/v1/agents/jobs/progress";

/// The lease a job taken by an Agent that sends progress gets at the claim,
/// and again from each progress message: an Agent that vanishes, or never
/// received the job, loses it within this long.
pub const PROGRESS_LEASE_SECS: u64 = 60;
/// How often an Agent sends a message while a stage prints nothing, well
/// inside the lease.
pub const KEEPALIVE_SECS: u64 = 5;
/// The Agent batches lines for at least this long between messages of one
/// job, so a chatty command costs a few requests a second at most.
pub const BATCH_MILLIS: u64 = 400;

/// A line longer than this is cut (with `…`) by the Agent before it is sent.
pub const LINE_MAX: usize = 2048;
/// Lines in one message at the most; the Agent sends more in the next one.
pub const LINES_PER_MESSAGE: usize = 400;
/// Stages in one job at the most.
pub const STAGES_MAX: u32 = 64;
/// Output kept per job: past it, the middle is cut and the end is kept.
pub const JOB_LOG_MAX_BYTES: u64 = 1024 * 1024;
/// Of those, how much of the start is always kept.
pub const JOB_LOG_HEAD_BYTES: u64 = 256 * 1024;

/// Where a stage is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "db",
    derive(sea_orm::DeriveActiveEnum, sea_orm::EnumIter),
    sea_orm(
        rs_type = "String",
        db_type = "String(sea_orm::sea_query::StringLen::N(16))"
    )
)]
pub enum StageStatus {
    #[cfg_attr(feature = "db", sea_orm(string_value = "running"))]
    Running,
    #[cfg_attr(feature = "db", sea_orm(string_value = "succeeded"))]
    Succeeded,
    #[cfg_attr(feature = "db", sea_orm(string_value = "failed"))]
    Failed,
    /// Stopped because the admin cancelled the job.
    #[cfg_attr(feature = "db", sea_orm(string_value = "cancelled"))]
    Cancelled,
}

impl StageStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StageStatus::Running => "running",
            StageStatus::Succeeded => "succeeded",
            StageStatus::Failed => "failed",
            StageStatus::Cancelled => "cancelled",
        }
    }

    pub fn is_running(self) -> bool {
        self == StageStatus::Running
    }
}

/// One stage as the Agent reports it: sent when it starts, again when it
/// prints and when it ends. Later messages about a stage replace its state
/// and add to its output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StageUpdate {
    /// Its position in the job, from 0.
    pub index: u32,
    /// `validate`, `write compose`, `pull`, `up`, `settle`, `health` …
    pub name: String,
    pub status: StageStatus,
    /// RFC 3339 UTC, the Agent's clock.
    pub started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// The command the stage runs, secrets masked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// New output since the previous message, secrets masked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
}

/// `POST /api/v1/agents/jobs/progress`, signed like a job result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobProgress {
    pub job_id: JobId,
    /// 1, 2, 3 … per job. A number Control has already seen is ignored, so
    /// a message sent again after a lost answer is not stored twice.
    pub seq: u64,
    /// What changed since message `seq - 1`; empty for a keep-alive.
    #[serde(default)]
    pub stages: Vec<StageUpdate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
}

/// The answer to a progress message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProgressAnswer {
    pub ok: bool,
    /// The admin cancelled the job: stop at the next safe point and report
    /// `cancelled`.
    #[serde(default)]
    pub cancel: bool,
    /// Seconds from now until the job expires without another message.
    pub lease_seconds: u64,
}

/// A stage as the admin API shows it (`GET /api/v1/jobs/{id}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StageView {
    pub index: u32,
    pub name: String,
    pub status: StageStatus,
    /// RFC 3339 UTC.
    pub started_at: String,
    pub ended_at: Option<String>,
    pub command: Option<String>,
    pub exit_code: Option<i32>,
    /// Seconds from its start to its end, or until now while it runs.
    pub elapsed_secs: u64,
}

/// One line of a job's output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LogLine {
    /// Its number in the job, from 1; pass the last one as `after` for more.
    pub line: u64,
    /// The stage that printed it.
    pub stage: u32,
    pub text: String,
    /// Stands where lines were cut to keep the log within its bound; `text`
    /// says how many.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

/// `GET /api/v1/jobs/{id}/log?after=<line>`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobLogPage {
    pub lines: Vec<LogLine>,
    /// Pass as `after` for the next page; absent at the end (for now: a
    /// running job prints more later).
    pub next: Option<u64>,
}

/// What a job's page shows of its run, in one answer: the job's state, its
/// stages, and its output after a line (the page's output view reads on
/// with it while the job runs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobOutputPage {
    pub status: crate::JobStatus,
    pub result: String,
    /// Its Agent reports stages and output while it runs.
    pub reports_progress: bool,
    pub stages: Vec<StageView>,
    /// The output after the line asked for, a page of it.
    pub lines: JobLogPage,
}

/// The marker that stands for `lines` cut lines.
pub fn cut_marker(lines: u64) -> String {
    format!("… {lines} lines cut here: a job keeps the first 256 KiB and the last 768 KiB of its output …")
}

/// `text` within [`LINE_MAX`] bytes, cut at a character boundary with `…`.
pub fn bounded_line(text: &str) -> String {
    if text.len() <= LINE_MAX {
        return text.to_string();
    }
    let mut end = LINE_MAX - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_cut_at_a_character_boundary_within_the_bound() {
        let long = "ж".repeat(LINE_MAX);
        let cut = bounded_line(&long);
        assert!(cut.len() <= LINE_MAX, "{}", cut.len());
        assert!(cut.ends_with('…'));
        assert_eq!(bounded_line("short"), "short");
    }

    #[test]
    fn a_keepalive_is_a_message_without_stages() {
        let id = JobId::from_random_bytes([1; 16]);
        let keepalive: JobProgress =
            serde_json::from_str(&format!(r#"{{"job_id":"{id}","seq":3}}"#)).unwrap();
        assert!(keepalive.stages.is_empty());
        assert_eq!(keepalive.seq, 3);
    }
}
