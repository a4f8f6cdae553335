//! A job's progress, live (`protocol::progress`, docs/src/agent-protocol.md).
//!
//! [`Journal`] is what the job writes to: stages as they begin and end, and
//! each line a command prints, masked before it is kept. [`report`] runs
//! beside the job and sends what is new every [`BATCH_MILLIS`] at most, a
//! keep-alive every [`KEEPALIVE_SECS`] while nothing is printed, and a last
//! message when the job is done. Control's answer may ask the job to stop.
//! A Control that answers 404 does not know the extension: this process
//! stops sending progress to it.

use crate::client::{CallError, ControlClient};
use crate::control_pin::ControlPin;
use crate::identity::Identity;
use crate::redact::Secrets;
use protocol::progress::{
    bounded_line, JobProgress, ProgressAnswer, StageStatus, StageUpdate, BATCH_MILLIS,
    KEEPALIVE_SECS, LINES_PER_MESSAGE, PROGRESS_PATH,
};
use protocol::JobId;
use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// What a job says when it stops because the admin cancelled it.
pub const CANCELLED: &str = "cancelled by an admin: stopped before the next step";

/// Lines a stage holds back while Control is unreachable; older ones go.
const UNSENT_MAX: usize = 10_000;

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

struct Stage {
    name: String,
    status: StageStatus,
    started_at: String,
    ended_at: Option<String>,
    command: Option<String>,
    exit_code: Option<i32>,
    unsent: VecDeque<String>,
}

#[derive(Default)]
struct State {
    stages: Vec<Stage>,
    /// Stages with something Control has not heard yet.
    dirty: BTreeSet<usize>,
}

struct Inner {
    state: Mutex<State>,
    changed: Notify,
    cancel: Notify,
    cancelled: AtomicBool,
    secrets: Secrets,
}

/// The stages and output of one job; cheap to clone, shared by the job and
/// its reporter.
#[derive(Clone)]
pub struct Journal(Arc<Inner>);

impl Journal {
    pub fn new(secrets: Secrets) -> Self {
        Self(Arc::new(Inner {
            state: Mutex::new(State::default()),
            changed: Notify::new(),
            cancel: Notify::new(),
            cancelled: AtomicBool::new(false),
            secrets,
        }))
    }

    fn update(&self, change: impl FnOnce(&mut State)) {
        change(&mut self.0.state.lock().expect("not poisoned"));
        self.0.changed.notify_one();
    }

    /// Begins stage `name` (the one before it, if still running, succeeded).
    pub fn begin(&self, name: &str) {
        self.update(|state| {
            let at = now();
            if let Some(last) = state.stages.len().checked_sub(1) {
                if state.stages[last].status.is_running() {
                    state.stages[last].status = StageStatus::Succeeded;
                    state.stages[last].ended_at = Some(at.clone());
                    state.dirty.insert(last);
                }
            }
            state.stages.push(Stage {
                name: name.to_string(),
                status: StageStatus::Running,
                started_at: at,
                ended_at: None,
                command: None,
                exit_code: None,
                unsent: VecDeque::new(),
            });
            state.dirty.insert(state.stages.len() - 1);
        });
    }

    /// A line of output of the current stage, masked and bounded.
    pub fn line(&self, text: &str) {
        let text = bounded_line(&self.0.secrets.mask_line(text.trim_end_matches('\r')));
        self.update(|state| {
            let Some(last) = state.stages.len().checked_sub(1) else {
                return;
            };
            let unsent = &mut state.stages[last].unsent;
            if unsent.len() == UNSENT_MAX {
                unsent.pop_front();
            }
            unsent.push_back(text);
            state.dirty.insert(last);
        });
    }

    /// The command the current stage runs (masked here).
    pub fn command(&self, command: &str) {
        let command = self.0.secrets.mask_line(command);
        self.update(|state| {
            if let Some(last) = state.stages.len().checked_sub(1) {
                state.stages[last].command = Some(command);
                state.dirty.insert(last);
            }
        });
    }

    /// The current stage's command exited with `code`.
    pub fn exit_code(&self, code: Option<i32>) {
        self.update(|state| {
            if let Some(last) = state.stages.len().checked_sub(1) {
                state.stages[last].exit_code = code;
                state.dirty.insert(last);
            }
        });
    }

    /// Ends the current stage (when still running) with `status`.
    pub fn end(&self, status: StageStatus) {
        self.update(|state| {
            if let Some(last) = state.stages.len().checked_sub(1) {
                let stage = &mut state.stages[last];
                if stage.status.is_running() {
                    stage.status = status;
                    stage.ended_at = Some(now());
                    state.dirty.insert(last);
                }
            }
        });
    }

    /// What Control has not heard yet, at most [`LINES_PER_MESSAGE`] lines;
    /// the rest stays for the next message.
    pub fn take(&self) -> Vec<StageUpdate> {
        let mut state = self.0.state.lock().expect("not poisoned");
        let mut budget = LINES_PER_MESSAGE;
        let mut updates = Vec::new();
        let dirty: Vec<usize> = state.dirty.iter().copied().collect();
        for index in dirty {
            let stage = &mut state.stages[index];
            let n = stage.unsent.len().min(budget);
            budget -= n;
            let lines: Vec<String> = stage.unsent.drain(..n).collect();
            let done = stage.unsent.is_empty();
            updates.push(StageUpdate {
                index: index as u32,
                name: stage.name.clone(),
                status: stage.status,
                started_at: stage.started_at.clone(),
                ended_at: stage.ended_at.clone(),
                command: stage.command.clone(),
                exit_code: stage.exit_code,
                lines,
            });
            if done {
                state.dirty.remove(&index);
            }
            if budget == 0 {
                break;
            }
        }
        updates
    }

    pub fn has_unsent(&self) -> bool {
        !self.0.state.lock().expect("not poisoned").dirty.is_empty()
    }

    /// Control said the admin cancelled the job.
    pub fn request_cancel(&self) {
        if !self.0.cancelled.swap(true, Ordering::SeqCst) {
            tracing::info!("Control asks to stop the running job");
        }
        self.0.cancel.notify_waiters();
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Resolves once the job is to stop.
    pub async fn cancelled(&self) {
        let notified = self.0.cancel.notified();
        if self.is_cancelled() {
            return;
        }
        notified.await;
    }

    /// Err([`CANCELLED`]) once the job is to stop: checked at every safe point.
    pub fn go_on(&self) -> Result<(), String> {
        if self.is_cancelled() {
            Err(CANCELLED.to_string())
        } else {
            Ok(())
        }
    }
}

/// Whether Control knows the progress extension: until it answers 404,
/// assumed so. Shared by every job of this process.
#[derive(Clone)]
pub struct Support(Arc<AtomicBool>);

impl Default for Support {
    fn default() -> Self {
        Self::new()
    }
}

impl Support {
    pub fn new() -> Self {
        Self(Arc::new(AtomicBool::new(true)))
    }

    pub fn is_known(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    fn unknown(&self) {
        if self.0.swap(false, Ordering::SeqCst) {
            tracing::info!("Control does not know live job progress (404): jobs report only their result, as in version 1");
        }
    }
}

/// Sends the job's progress until `done` resolves, then what is left.
pub async fn report(
    client: &ControlClient,
    identity: &Identity,
    pin: &ControlPin,
    support: &Support,
    job_id: &JobId,
    journal: &Journal,
    done: impl std::future::Future<Output = ()>,
) {
    tokio::pin!(done);
    let mut finishing = false;
    let mut seq: u64 = 0;
    while support.is_known() {
        if !finishing {
            tokio::select! {
                _ = journal.0.changed.notified() => {
                    // Gather what else comes for a moment: a few messages a second at most.
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_millis(BATCH_MILLIS)) => {}
                        _ = &mut done => finishing = true,
                    }
                }
                _ = tokio::time::sleep(Duration::from_secs(KEEPALIVE_SECS)) => {}
                _ = &mut done => finishing = true,
            }
        }
        let stages = journal.take();
        if finishing && stages.is_empty() {
            return;
        }
        seq += 1;
        let message = JobProgress {
            job_id: job_id.clone(),
            seq,
            stages,
            nonce: None,
        };
        // The last message gets one try: the result must not wait on it.
        let tries = if finishing { 1 } else { 6 };
        match send(client, identity, pin, &message, tries).await {
            Sent::Answered(answer) => {
                if answer.cancel {
                    journal.request_cancel();
                }
            }
            Sent::Unanswered => {}
            Sent::Unknown => support.unknown(),
            // Not running any more, or refused: the result will tell.
            Sent::Stop => return,
        }
        if finishing && !journal.has_unsent() {
            return;
        }
    }
}

enum Sent {
    Answered(ProgressAnswer),
    /// No answer to trust (unreachable, or not signed by the pinned key):
    /// the job goes on, and the next message tries again.
    Unanswered,
    /// Control has no such endpoint.
    Unknown,
    /// Control refused it (the job ended, or is not this Agent's).
    Stop,
}

/// Sends one message, up to `tries` times with the same number while
/// Control is unreachable (it ignores a number it already has).
async fn send(
    client: &ControlClient,
    identity: &Identity,
    pin: &ControlPin,
    message: &JobProgress,
    tries: u32,
) -> Sent {
    let body = serde_json::to_value(message).expect("progress serialises");
    for attempt in 0..tries {
        match client.signed(identity, PROGRESS_PATH, body.clone()).await {
            Ok(answer) => {
                return match crate::run::checked_body(pin, identity, answer).await {
                    Ok(body) => match serde_json::from_slice(&body) {
                        Ok(answer) => Sent::Answered(answer),
                        Err(_) => Sent::Unknown,
                    },
                    // Not signed by the pinned key: keep working, trust nothing it says.
                    Err((e, _)) => {
                        tracing::warn!(error = %e, "progress answer refused");
                        Sent::Unanswered
                    }
                };
            }
            // Our Control's own 404s carry a code; a bare one is a missing route.
            Err(CallError::Refused {
                status: 404, code, ..
            }) if code.is_empty() => return Sent::Unknown,
            Err(CallError::Refused {
                code, message: why, ..
            }) => {
                tracing::warn!(job_id = %message.job_id, %code, %why, "Control refused the job's progress; not sending more");
                return Sent::Stop;
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not send the job's progress");
                if attempt + 1 < tries {
                    let wait = crate::run::wait_before_retry(&e, attempt);
                    tokio::time::sleep(wait.min(Duration::from_secs(10))).await;
                }
            }
        }
    }
    Sent::Unanswered
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_begin_end_and_send_their_lines_once_in_bounded_messages() {
        let journal = Journal::new(Secrets::new(["krit_abcdefghijklmnop".to_string()]));
        journal.begin("pull");
        journal.command("docker compose pull --token krit_abcdefghijklmnop");
        for i in 0..(LINES_PER_MESSAGE + 5) {
            journal.line(&format!("layer {i}"));
        }
        let first = journal.take();
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].lines.len(), LINES_PER_MESSAGE);
        assert!(!first[0].command.as_deref().unwrap().contains("krit_"));
        assert!(journal.has_unsent(), "five lines wait for the next message");
        journal.begin("up");
        let second = journal.take();
        assert_eq!(
            second
                .iter()
                .map(|s| (s.name.as_str(), s.status, s.lines.len()))
                .collect::<Vec<_>>(),
            vec![
                ("pull", StageStatus::Succeeded, 5),
                ("up", StageStatus::Running, 0)
            ]
        );
        assert!(journal.take().is_empty(), "nothing new, nothing sent");
        journal.line("password: hunter2");
        journal.end(StageStatus::Failed);
        let last = journal.take();
        assert_eq!(last[0].status, StageStatus::Failed);
        assert_eq!(last[0].lines, vec!["password: [redacted]".to_string()]);
    }

    #[test]
    fn a_cancel_stops_at_the_next_safe_point() {
        let journal = Journal::new(Secrets::default());
        assert!(journal.go_on().is_ok());
        journal.request_cancel();
        assert_eq!(journal.go_on().unwrap_err(), CANCELLED);
    }
}
