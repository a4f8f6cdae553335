//! One job: what it was asked to do (the payload), when it was queued, taken
//! and finished, its stages and output live while it runs (`job_log`), the
//! Agent's result, and cancel (or stop, while it runs) or retry.

use super::badges::job_badge;
use super::infrastructure::when;
use super::job_log::{JobLive, JobStages};
use super::layout::Frame;
use super::loaded;
use crate::api::jobs::{get_job, job_log, CancelJob, RetryJob};
use crate::error::UiError;
use crate::i18n::jobs::jobs_texts;
use crate::i18n::texts;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
use protocol::actions::ActionKind;
use protocol::api::JobView;
use protocol::JobId;

#[component]
pub fn JobPage() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let jt = jobs_texts(lang);
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    view! {
        <Title text=format!("{} · {}", jt.job_title, t.product) />
        <Frame>
            <p><a href="/jobs">{"← "}{jt.back_to_jobs}</a></p>
            // Drawn again when the full build's client router goes to
            // another job (the link to a retry).
            {move || view! { <JobBody id=id.get() /> }}
        </Frame>
    }
}

/// The job, its stages and output as they come, Cancel and Retry. An
/// island (crate::islands), lazy and preloaded.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn JobBody(id: String) -> impl IntoView {
    crate::islands::preload_island("job_body_loader");
    let lang = use_lang();
    let jt = jobs_texts(lang);
    let id = crate::islands::prop_reader(id);
    let cancel = ServerAction::<CancelJob>::new();
    let retry = ServerAction::<RetryJob>::new();
    let live = crate::live::use_live();
    let job = Resource::new(
        move || (id(), cancel.version().get(), (live.jobs(), live.progress())),
        |(id, ..)| async move {
            // A malformed ID in the address names no job.
            match JobId::parse(&id) {
                Ok(id) => get_job(id).await,
                Err(_) => Err(UiError::NotFound),
            }
        },
    );
    let action_error = cancel_or_retry_refusal(cancel, retry, lang);
    let shown = JobLive::new();
    follow_job(id, job, shown, live);
    let retried = move || retry.value().get().and_then(|r| r.ok());
    view! {
        {loaded(
            move || async move { job.await },
            move |job| view! { <JobDetail job cancel retry /> }.into_any(),
        )}
        <p class="field-error" role="alert">{action_error}</p>
        <JobStages live=shown />
        {move || retried().map(|new| view! {
            <p class="alert" role="status" id="job-retried">
                {jt.retried_as}" "<a href=format!("/jobs/{}", new.id)>{new.id.to_string()}</a>
            </p>
        })}
    }
}

/// Why the last Cancel or Retry was refused, for the page's alert line.
fn cancel_or_retry_refusal(
    cancel: ServerAction<CancelJob>,
    retry: ServerAction<RetryJob>,
    lang: crate::i18n::Lang,
) -> impl Fn() -> Option<String> + Copy + Send + Sync + 'static {
    move || {
        cancel
            .value()
            .get()
            .and_then(|r| r.err())
            .or_else(|| retry.value().get().and_then(|r| r.err()))
            .map(|e| e.message(lang))
    }
}

#[component]
fn JobDetail(
    job: JobView,
    cancel: ServerAction<CancelJob>,
    retry: ServerAction<RetryJob>,
) -> impl IntoView {
    let lang = use_lang();
    let jt = jobs_texts(lang);
    let payload = serde_json::to_string_pretty(&job.payload).unwrap_or_default();
    let moment = |at: &Option<String>| {
        at.as_deref()
            .map(when)
            .unwrap_or_else(|| jt.not_yet.to_string())
    };
    let (cancel_id, retry_id) = (job.id.clone(), job.id.clone());
    let runs_jobs = may(ActionKind::RunJobs);
    let can_cancel = runs_jobs && job.can_cancel();
    let can_retry = runs_jobs && job.status.can_retry();
    let stopping = job.cancel_requested && job.status == protocol::JobStatus::Running;
    view! {
        <h1>{jt.job_title}" "<code class="id">{job.id.to_string()}</code></h1>
        <p>
            <span class=job_badge(job.status) id="job-status">{job.status.as_str()}</span>
            " "{jt.kind(&job.kind)}" "<code>{job.component_id.clone().unwrap_or_default()}</code>
        </p>
        <dl class="facts">
            <dt>{jt.field_agent}</dt>
            <dd><a href=format!("/infrastructure/agents/{}", job.agent_id)><code class="id">{job.agent_id.to_string()}</code></a></dd>
            <dt>{jt.col_created}</dt><dd>{when(&job.created_at)}</dd>
            <dt>{jt.col_started}</dt><dd>{moment(&job.started_at)}</dd>
            <dt>{jt.col_finished}</dt><dd>{moment(&job.finished_at)}</dd>
            {job.retry_of.clone().map(|old| view! {
                <dt>{jt.retry_of}</dt>
                <dd><a href=format!("/jobs/{old}")><code class="id">{old.to_string()}</code></a></dd>
            })}
        </dl>
        {stopping.then(|| view! { <p class="alert" role="status" id="job-stopping">{jt.stop_requested}</p> })}
        <div class="actions">
            {can_cancel.then(|| view! {
                <button type="button" id="cancel-this-job" disabled=move || cancel.pending().get()
                    on:click=move |_| { cancel.dispatch(CancelJob { id: cancel_id.clone() }); }>{jt.cancel_job}</button>
            })}
            {can_retry.then(|| view! {
                <button type="button" class="primary" id="retry-this-job" disabled=move || retry.pending().get()
                    on:click=move |_| { retry.dispatch(RetryJob { id: retry_id.clone() }); }>{jt.retry_job}</button>
            })}
        </div>
        <h2>{jt.col_result}</h2>
        {if job.result.is_empty() {
            view! { <p class="muted" id="job-result">{jt.no_result}</p> }.into_any()
        } else {
            view! { <pre class="snippet" id="job-result">{job.result.clone()}</pre> }.into_any()
        }}
        <h2>{jt.payload}</h2>
        <pre class="snippet" id="job-payload">{payload}</pre>
    }
}

/// Keeps `shown` current in the browser: the job's stages and status from
/// each reading of `job`, and its output read on from the last line held
/// whenever the job changes or reports progress.
fn follow_job(
    id: impl Fn() -> String + Copy + Send + Sync + 'static,
    job: Resource<Result<JobView, UiError>>,
    shown: JobLive,
    live: crate::live::Live,
) {
    Effect::new(move |_| {
        if let Some(Ok(view)) = job.get() {
            shown.stages.set(view.stages.clone());
            shown.job.set(Some((
                view.status,
                view.result.clone(),
                view.reports_progress,
            )));
        }
    });
    // Only a job whose Agent reports progress has output to read.
    let reports = Memo::new(move |_| shown.job.with(|j| j.as_ref().is_some_and(|j| j.2)));
    Effect::new(move |previous: Option<String>| {
        let id = id();
        // Read to re-run on each change of the job or its progress.
        live.jobs();
        live.progress();
        if previous.as_ref() != Some(&id) {
            shown.clear();
        }
        if !reports.get() {
            return id;
        }
        if let Ok(job_id) = JobId::parse(&id) {
            leptos::task::spawn_local(async move {
                // Page by page up to the end: the first reading may be long.
                loop {
                    let after = shown
                        .lines
                        .with_untracked(|l| l.last().map_or(0, |l| l.line));
                    match job_log(job_id.clone(), after).await {
                        Ok(page) => {
                            let more = page.next.is_some();
                            shown.append(page.lines);
                            if !more {
                                break;
                            }
                        }
                        Err(_) => break,
                    }
                }
            });
        }
        id
    });
}
