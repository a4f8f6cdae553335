//! One job: what it was asked to do (the payload), when it was queued, taken
//! and finished, its stages and output live while it runs (`job_log`), the
//! Agent's result, and cancel (or stop, while it runs) or retry.

use super::badges::job_badge;
use super::infrastructure::when;
use super::job_log::{JobLive, JobStages};
use super::jobs::job_action_refusal;
use super::layout::Frame;
use super::loaded;
use super::plain_action::RowAction;
use crate::api::jobs::{get_job, job_output, CancelJob, RetryJob};
use crate::error::UiError;
use crate::i18n::jobs::jobs_texts;
use crate::i18n::texts;
use crate::islands::{drawn_attribute, start_from};
use crate::live_region::LiveRegion;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};
use protocol::actions::ActionKind;
use protocol::api::JobView;
use protocol::live::LiveTopic;
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

/// The job with Cancel and Retry, and its stages and output as they come.
/// The job is a live region (crate::live_region) drawn again when a job
/// changes, its buttons plain forms (`plain_action`); only the stages, whose
/// output is read on line by line, are an island.
#[component]
fn JobBody(id: String) -> impl IntoView {
    let lang = use_lang();
    let live = crate::live::use_live();
    let query = use_query_map();
    let refusal = move || job_action_refusal(&query.read()).map(|e| e.message(lang));
    let asked = StoredValue::new(id.clone());
    // Read again when a job changes (the full build; the islands build
    // draws the region again).
    let job = Resource::new(
        move || (asked.get_value(), live.jobs()),
        |(id, _)| read_job(id),
    );
    provide_context(OutputOf(id));
    view! {
        <LiveRegion id="job-live" topics=&[LiveTopic::Jobs]>
            {loaded(
                move || async move { job.await },
                move |job| view! { <JobDetail job /> }.into_any(),
            )}
        </LiveRegion>
        <p class="field-error" role="alert" id="job-action-error">{refusal}</p>
        <JobOutput />
    }
}

/// The job the address names; a malformed ID in the address names no job.
async fn read_job(id: String) -> Result<JobView, UiError> {
    match JobId::parse(&id) {
        Ok(id) => get_job(id).await,
        Err(_) => Err(UiError::NotFound),
    }
}

#[component]
fn JobDetail(job: JobView) -> impl IntoView {
    let lang = use_lang();
    let jt = jobs_texts(lang);
    let payload = serde_json::to_string_pretty(&job.payload).unwrap_or_default();
    let moment = |at: &Option<String>| {
        at.as_deref()
            .map(when)
            .unwrap_or_else(|| jt.not_yet.to_string())
    };
    let id = job.id.to_string();
    let runs_jobs = may(ActionKind::RunJobs);
    let can_cancel = runs_jobs && job.can_cancel();
    let can_retry = runs_jobs && job.status.can_retry();
    let stopping = job.cancel_requested && job.status == protocol::JobStatus::Running;
    // Cancel's answer is this page again; Retry's is the new job's page.
    let cancel = can_cancel.then(|| {
        view! {
            <RowAction action=CancelJob::PATH id=id.clone() class="cancel-job"
                button_id="cancel-this-job" label=jt.cancel_job />
        }
    });
    let retry = can_retry.then(|| {
        view! {
            <RowAction action=RetryJob::PATH id=id.clone() more=vec![("open_new", "true".to_string())]
                class="primary" button_id="retry-this-job" label=jt.retry_job />
        }
    });
    view! {
        <h1>{jt.job_title}" "<code class="id">{id.clone()}</code></h1>
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
        <div class="actions">{cancel}{retry}</div>
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

/// The job's stages and output, read on as the Agent reports them. An
/// island (crate::islands), lazy and preloaded: the output grows line by
/// line and keeps its scroll position, which a region drawn again from the
/// server's HTML could not.
///
/// It starts from the job the address names, as the page's context
/// ([`crate::islands::start_from`]), drawn around the stages for the islands
/// build's browser.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn JobOutput() -> impl IntoView {
    crate::islands::preload_island("job_output_loader");
    let OutputOf(id) =
        start_from(|| OutputOf(drawn_attribute(OUTPUT_ID, "data-job").unwrap_or_default()));
    let shown = JobLive::new();
    // A malformed ID in the address names no job: nothing to follow.
    if let Ok(job) = JobId::parse(&id) {
        follow_output(job, shown, crate::live::use_live());
    }
    view! { <div id=OUTPUT_ID data-job=id><JobStages live=shown /></div> }
}

/// The job whose output [`JobOutput`] follows, as the address names it.
#[derive(Clone)]
struct OutputOf(String);

const OUTPUT_ID: &str = "job-output";

/// Keeps `shown` current: once the island has hydrated, and again whenever
/// the job changes or reports progress, its state and stages and its output
/// on from the last line held. The reading, with the server function's
/// client, is its own chunk (`read_output`), fetched after the page is
/// interactive: the stages show a moment later, and on a phone the rest of
/// the page does not wait for them.
fn follow_output(id: JobId, shown: JobLive, live: crate::live::Live) {
    let id = StoredValue::new(id);
    Effect::new(move |ran: Option<()>| {
        live.jobs();
        live.progress();
        if ran.is_some() {
            read_on(id.get_value(), shown);
        } else {
            // The first reading waits for the task that hydrates the page
            // to end (and mark it interactive): it is not needed to get there.
            set_timeout(
                move || read_on(id.get_value(), shown),
                std::time::Duration::ZERO,
            );
        }
    });
}

/// Reads the job's output page by page, from the last line held up to the
/// end (the first reading of a long run may be many pages).
fn read_on(id: JobId, shown: JobLive) {
    leptos::task::spawn_local(async move {
        loop {
            let after = shown
                .lines
                .with_untracked(|l| l.last().map_or(0, |l| l.line));
            let more = match read_output(id.clone(), after).await {
                Some(page) => shown.show(page),
                None => false,
            };
            if !more {
                break;
            }
        }
    });
}

/// One reading of the job's output, as its own WebAssembly chunk; nothing
/// when it cannot be read (the next change reads again).
#[lazy]
async fn read_output(id: JobId, after: u64) -> Option<protocol::progress::JobOutputPage> {
    job_output(id, after).await.ok()
}
