//! The Agent's loop: enroll once, then a signed heartbeat every interval and,
//! between heartbeats, a job long-poll (a version-1 Control answers at once and
//! the Agent then waits out the interval). When Control is unreachable or
//! failing (a 503 while its database is away included) the Agent backs off
//! with jitter, up to 60 s and never sooner than a `Retry-After`, forever;
//! nothing it runs is touched because Control is away. Enrollment is in
//! `crate::enrollment`.

use crate::client::{CallError, ControlClient, SignedAnswer};
use crate::config::Config;
use crate::control_pin::{AnswerHeaders, ControlPin};
use crate::control_speaks::ControlSpeaks;
use crate::identity::Identity;
use crate::progress::{self, Journal, Support};
use crate::redact::Secrets;
use crate::workload::{Done, Workloads};
use protocol::agent::{Heartbeat, JobOffer, JobOutcome};
use protocol::control_identity::{AnswerRefusal, AnswerScope};
use protocol::extensions::Extension;
use protocol::jobs::JobPayload;
use protocol::progress::StageStatus;
use rand::Rng;
use std::future::Future;
use std::time::Duration;
use tokio::time::Instant;

pub const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// Our Control holds a long-poll at most this long.
pub const MAX_WAIT: Duration = Duration::from_secs(30);
/// A job that runs longer is stopped and reported failed. Against a
/// version-1 Control this stays below its 10-minute lease, so the result
/// arrives while Control still waits for it; with live progress the lease
/// moves on with every message, and the worst-case deploy (pull, up,
/// settle, health) fits well inside.
pub const JOB_DEADLINE_V1: Duration = Duration::from_secs(9 * 60 + 30);
pub const JOB_DEADLINE: Duration = Duration::from_secs(30 * 60);

/// The wait before the next try after `failures` failures in a row: doubling
/// from 1 s to 60 s, each with up to 50 % jitter so Agents do not return in step.
pub fn backoff(failures: u32) -> Duration {
    let base = Duration::from_secs(1u64 << failures.min(6)).min(MAX_BACKOFF);
    base.mul_f64(rand::thread_rng().gen_range(0.5..=1.0))
}

/// The wait before retrying after `error`, the `failures`-th in a row: the
/// backoff, but never sooner than Control asked (`Retry-After`, with up to 50 %
/// more so that Agents told the same do not all return in step).
pub fn wait_before_retry(error: &CallError, failures: u32) -> Duration {
    let base = backoff(failures);
    match error.retry_after() {
        Some(asked) => base
            .max(asked.mul_f64(rand::thread_rng().gen_range(1.0..=1.5)))
            .min(MAX_BACKOFF),
        None => base,
    }
}

/// The heartbeat, with only what `speaks` announced beyond version 1.
async fn heartbeat_body(
    config: &Config,
    workloads: &Workloads,
    speaks: &ControlSpeaks,
) -> Heartbeat {
    let mut docker = workloads.report().await;
    if !speaks.has(Extension::ComponentHealth) {
        for c in &mut docker.components {
            c.restart_count = None;
            c.last_error = None;
            c.warnings.clear();
        }
    }
    Heartbeat {
        name: config.name.clone(),
        hostname: std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_default(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        docker_available: docker.available,
        docker_version: docker.version,
        tags: config.tags.clone(),
        components: docker.components,
        nonce: None,
        control_key: None,
        refused_answers: Vec::new(),
    }
}

/// Reads a successful answer and checks that the pinned Control key signed
/// it (see `control_pin`); `job_kind` names what it offers, for the report.
pub(crate) async fn checked_body(
    pin: &ControlPin,
    identity: &Identity,
    answer: SignedAnswer,
) -> Result<Vec<u8>, (CallError, Vec<u8>)> {
    let headers = answer.response.headers().clone();
    let body = answer
        .response
        .bytes()
        .await
        .map_err(|e| {
            (
                CallError::Unavailable(format!("unreadable answer: {e}")),
                Vec::new(),
            )
        })?
        .to_vec();
    let kind = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v["kind"].as_str().map(str::to_string))
        .unwrap_or_default();
    let scope = AnswerScope {
        path: &answer.path,
        agent_id: identity.agent_id.as_str(),
        nonce: &answer.nonce,
    };
    match pin.check(&scope, &AnswerHeaders::of(&headers), &body, &kind) {
        Ok(()) => Ok(body),
        Err(why) => Err((CallError::NotFromControl(why), body)),
    }
}

async fn send_heartbeat(
    config: &Config,
    workloads: &Workloads,
    client: &ControlClient,
    identity: &Identity,
    pin: &ControlPin,
) -> Result<(), CallError> {
    let mut heartbeat = heartbeat_body(config, workloads, client.speaks()).await;
    if client.control_has(Extension::SignedAnswers) {
        heartbeat.control_key = pin.pinned();
        heartbeat.refused_answers = pin.refusals();
    }
    let reported = heartbeat.refused_answers.len();
    let body = serde_json::to_value(heartbeat).expect("serialises");
    let answer = client
        .signed(identity, "/api/v1/agents/heartbeat", body)
        .await?;
    match checked_body(pin, identity, answer).await {
        Ok(_) => {
            // The answer is Control's own: it has the refusals now.
            pin.reported(reported);
            crate::health::heartbeat_accepted(&config.data);
            Ok(())
        }
        // Refused and queued for reporting (control_pin logs it). The answer
        // carries no work, so polling goes on: a job is refused on its own.
        Err((CallError::NotFromControl(_), _)) => Ok(()),
        Err((e, _)) => Err(e),
    }
}

/// What the Agent makes of a job, as (outcome, result text), stage by stage
/// into `journal`. The payload is validated before anything touches the disk.
pub async fn handle_job(
    workloads: &Workloads,
    job: &JobOffer,
    journal: &Journal,
) -> (JobOutcome, Done) {
    journal.begin("validate");
    let payload = match JobPayload::parse(&job.kind, &job.payload) {
        Ok(payload) => payload,
        Err(field) => {
            let why = format!("invalid job payload: {field}");
            journal.line(&why);
            journal.end(StageStatus::Failed);
            return (JobOutcome::Failed, Done::text(why));
        }
    };
    let (outcome, done, last_stage) = match workloads.run(&payload, journal).await {
        Ok(done) => (JobOutcome::Succeeded, done, StageStatus::Succeeded),
        // Only Control asks for a stop, so only then is a stop `cancelled`.
        Err(done) if journal.is_cancelled() => {
            (JobOutcome::Cancelled, done, StageStatus::Cancelled)
        }
        Err(done) => (JobOutcome::Failed, done, StageStatus::Failed),
    };
    journal.end(last_stage);
    (outcome, done)
}

/// Runs a job within its deadline while its progress is reported beside it.
async fn run_reported(
    workloads: &Workloads,
    talk: &Talk<'_>,
    job: &JobOffer,
) -> (JobOutcome, Done) {
    let journal = Journal::new(workloads.secrets().clone());
    let (done, finished) = tokio::sync::oneshot::channel::<()>();
    let reports = talk.client.control_has(Extension::Progress) && talk.support.is_known();
    let deadline = if reports {
        JOB_DEADLINE
    } else {
        JOB_DEADLINE_V1
    };
    let work = async {
        let outcome =
            match tokio::time::timeout(deadline, handle_job(workloads, job, &journal)).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    let why = format!(
                        "the job did not finish within {} minutes and was stopped",
                        deadline.as_secs() / 60
                    );
                    journal.line(&why);
                    journal.end(StageStatus::Failed);
                    (JobOutcome::Failed, Done::text(why))
                }
            };
        let _ = done.send(());
        outcome
    };
    if !reports {
        // Version 1: the result is all Control hears of the job.
        drop(finished);
        return work.await;
    }
    let reported = progress::report(
        talk.client,
        talk.identity,
        talk.pin,
        talk.support,
        &job.id,
        &journal,
        async {
            let _ = finished.await;
        },
    );
    let (outcome, ()) = tokio::join!(work, reported);
    outcome
}

/// Who the Agent is and how it reaches Control, for a job's reporting.
struct Talk<'a> {
    client: &'a ControlClient,
    identity: &'a Identity,
    pin: &'a ControlPin,
    support: &'a Support,
}

/// Runs until `shutdown` completes. A job being reported is finished first.
pub async fn run(
    config: Config,
    identity: Identity,
    client: ControlClient,
    shutdown: impl Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    let secrets = Secrets::new(
        [
            Some(identity.key.to_identity()),
            config.enroll_token.clone(),
        ]
        .into_iter()
        .flatten(),
    );
    let workloads = Workloads::new(&config, secrets);
    let pin = ControlPin::new(
        config.data.clone(),
        identity.control_key.clone(),
        config.control_key.clone(),
    );
    let support = Support::new();
    let talk = Talk {
        client: &client,
        identity: &identity,
        pin: &pin,
        support: &support,
    };
    let mut failures: u32 = 0;
    let mut next_heartbeat = Instant::now();
    loop {
        let step = async {
            if Instant::now() >= next_heartbeat {
                send_heartbeat(&config, &workloads, &client, &identity, &pin).await?;
                next_heartbeat = Instant::now() + config.poll;
            }
            let wait = next_heartbeat
                .saturating_duration_since(Instant::now())
                .min(MAX_WAIT);
            let path = if client.control_has(Extension::LongPoll) {
                format!("/api/v1/agents/jobs/next?wait={}", wait.as_secs().max(1))
            } else {
                "/api/v1/agents/jobs/next".to_string()
            };
            let started = Instant::now();
            // Ours: announce live progress, for a one-minute lease it keeps
            // alive. Version 1: `{}`.
            let body = if client.control_has(Extension::Progress) {
                serde_json::json!({"progress": support.is_known()})
            } else {
                serde_json::json!({})
            };
            let answer = client.signed(&identity, &path, body).await?;
            if answer.response.status() == reqwest::StatusCode::NO_CONTENT {
                // A version-1 Control answers at once: wait out the interval here.
                let remaining = wait.saturating_sub(started.elapsed());
                tokio::time::sleep(remaining).await;
                return Ok(None);
            }
            let body = match checked_body(&pin, &identity, answer).await {
                Ok(body) => body,
                Err((CallError::NotFromControl(why), body)) => {
                    refuse_job(&client, &identity, &body, &why).await;
                    tokio::time::sleep(config.poll).await;
                    return Ok(None);
                }
                Err((e, _)) => return Err(e),
            };
            // Read loosely: an offer that does not parse is still reported, by its id.
            let offer: serde_json::Value = serde_json::from_slice(&body)
                .map_err(|e| CallError::Unavailable(format!("unreadable job: {e}")))?;
            Ok::<_, CallError>(Some(offer))
        };
        let outcome = tokio::select! {
            _ = &mut shutdown => break,
            outcome = step => outcome,
        };
        match outcome {
            Ok(None) => failures = 0,
            Ok(Some(offer)) => {
                failures = 0;
                // The job runs to its end even on shutdown: stopping Compose
                // half-way would leave the stack in between. Heartbeats go on
                // meanwhile, so a long pull does not make the Agent look offline.
                let job = job_result(&workloads, &talk, &offer);
                tokio::pin!(job);
                let result = loop {
                    tokio::select! {
                        result = &mut job => break result,
                        _ = tokio::time::sleep_until(next_heartbeat) => {
                            if let Err(e) = send_heartbeat(&config, &workloads, &client, &identity, &pin).await {
                                tracing::warn!(error = %e, "heartbeat during a job failed");
                            }
                            next_heartbeat = Instant::now() + config.poll;
                        }
                    }
                };
                let Some(result) = result else {
                    // Not ours or without an id: nothing to report; do not ask again at once.
                    tokio::select! {
                        _ = &mut shutdown => break,
                        _ = tokio::time::sleep(config.poll) => {}
                    }
                    continue;
                };
                // A taken job is always reported: on shutdown, one last attempt.
                let refused = tokio::select! {
                    refused = send_result(&client, &identity, &result) => refused,
                    _ = &mut shutdown => {
                        let _ = client
                            .signed(&identity, "/api/v1/agents/jobs/result", result)
                            .await;
                        break;
                    }
                };
                if refused {
                    tokio::select! {
                        _ = &mut shutdown => break,
                        _ = tokio::time::sleep(config.poll) => {}
                    }
                }
            }
            Err(CallError::Refused { code, message, .. }) => {
                tracing::error!(%code, %message, "Control refused this Agent; trying again next interval");
                let pause = tokio::time::sleep(config.poll);
                tokio::select! {
                    _ = &mut shutdown => break,
                    _ = pause => {}
                }
                next_heartbeat = Instant::now();
            }
            Err(why) => {
                let wait = wait_before_retry(&why, failures);
                failures = failures.saturating_add(1);
                crate::enrollment::log_unavailable(&why, wait, "talking to Control");
                tokio::select! {
                    _ = &mut shutdown => break,
                    _ = tokio::time::sleep(wait) => {}
                }
            }
        }
    }
    tracing::info!("stopped");
}

/// The result body for an offered job, or `None` when it is not ours to report.
/// A job whose answer the pinned key did not sign is not run. Whoever
/// offered it is told so (a real Control that lost its key then shows the
/// job failed, with the reason), and the refusal waits for the next heartbeat.
async fn refuse_job(
    client: &ControlClient,
    identity: &Identity,
    offer: &[u8],
    why: &AnswerRefusal,
) {
    let id = serde_json::from_slice::<serde_json::Value>(offer)
        .ok()
        .and_then(|v| v["id"].as_str().map(str::to_string));
    let Some(id) = id else { return };
    let result = serde_json::json!({"job_id": id, "status": "failed",
        "result": format!("refused, not run: {why}")});
    if let Err(e) = client
        .signed(identity, "/api/v1/agents/jobs/result", result)
        .await
    {
        tracing::warn!(job_id = %id, error = %e, "could not report the refused job");
    }
}

async fn job_result(
    workloads: &Workloads,
    talk: &Talk<'_>,
    offer: &serde_json::Value,
) -> Option<serde_json::Value> {
    let identity = talk.identity;
    let Some(id) = offer["id"].as_str() else {
        tracing::warn!("Control handed out a job without an id; ignoring it");
        return None;
    };
    let (outcome, done, kind) = match serde_json::from_value::<JobOffer>(offer.clone()) {
        Err(e) => (
            JobOutcome::Failed,
            Done::text(format!("unreadable job: {e}")),
            String::new(),
        ),
        Ok(job) if job.agent_id != identity.agent_id => {
            tracing::warn!(
                job_id = id,
                "Control handed out another Agent's job; ignoring it"
            );
            return None;
        }
        Ok(job) => {
            let (outcome, done) = run_reported(workloads, talk, &job).await;
            (outcome, done, job.kind)
        }
    };
    let status = match outcome {
        JobOutcome::Succeeded => "succeeded",
        JobOutcome::Failed => "failed",
        JobOutcome::Cancelled => "cancelled",
    };
    tracing::info!(job_id = id, kind = %kind, outcome = status, "job done");
    let mut body = serde_json::json!({"job_id": id, "status": status, "result": done.text});
    // Ours, each only for a Control that announced it: a backup job's
    // report, a probe job's, a sidecar restart's addresses.
    let speaks = talk.client.speaks();
    let report = |e| speaks.has(e);
    if let Some(backup) = done.backup.filter(|_| report(Extension::Backups)) {
        body["backup"] = serde_json::to_value(backup).expect("a report serialises");
    }
    if let Some(probe) = done.probe.filter(|_| report(Extension::Probes)) {
        body["probe"] = serde_json::to_value(probe).expect("a report serialises");
    }
    if let Some(restart) = done.restart.filter(|_| report(Extension::RestartReport)) {
        body["restart"] = serde_json::to_value(restart).expect("a report serialises");
    }
    Some(body)
}

/// Sends a job result until Control takes it (a repeat is harmless there);
/// true when Control refused it.
async fn send_result(
    client: &ControlClient,
    identity: &Identity,
    result: &serde_json::Value,
) -> bool {
    let mut failures = 0;
    loop {
        match client
            .signed(identity, "/api/v1/agents/jobs/result", result.clone())
            .await
        {
            Ok(_) => return false,
            Err(CallError::Refused { code, .. }) => {
                tracing::error!(job_id = %result["job_id"], %code, "Control refused the job result");
                return true;
            }
            Err(e) => {
                let wait = wait_before_retry(&e, failures);
                failures += 1;
                tracing::warn!(job_id = %result["job_id"], error = %e, "could not report; retrying");
                tokio::time::sleep(wait).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retry_waits_at_least_as_long_as_control_asked() {
        let busy = CallError::Busy {
            why: "503 database unavailable".into(),
            retry_after: Duration::from_secs(2),
        };
        for _ in 0..20 {
            let wait = wait_before_retry(&busy, 0);
            assert!(
                wait >= Duration::from_secs(2) && wait <= Duration::from_secs(3),
                "{wait:?}"
            );
        }
        // A longer own backoff wins; a minute is the most either way.
        assert!(wait_before_retry(&busy, 5) >= Duration::from_secs(16));
        let long = CallError::Busy {
            why: String::new(),
            retry_after: Duration::from_secs(60),
        };
        assert!(wait_before_retry(&long, 0) <= MAX_BACKOFF);
        let plain = CallError::Unavailable("connection refused".into());
        assert!(wait_before_retry(&plain, 0) <= Duration::from_secs(1));
    }

    #[test]
    fn backoff_doubles_to_a_minute_with_jitter() {
        for (failures, max) in [(0, 1), (1, 2), (3, 8), (6, 60), (30, 60)] {
            let wait = backoff(failures);
            assert!(wait <= Duration::from_secs(max), "{failures}: {wait:?}");
            assert!(
                wait >= Duration::from_secs(max).mul_f64(0.5),
                "{failures}: {wait:?}"
            );
        }
    }
}
