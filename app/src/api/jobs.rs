//! Server functions of the Jobs screens: list (filtered, paged), one job,
//! queue, cancel, retry.

use crate::error::UiError;
use leptos::prelude::*;
use protocol::api::{JobView, NewJob};
use protocol::JobId;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::backend::granted;
#[cfg(feature = "ssr")]
use crate::{
    api::{with_reader, with_services, UI_PAGE_SIZE},
    error::ui_error,
};
#[cfg(feature = "ssr")]
use domain::access::roles::RunJobs;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobListPage {
    pub items: Vec<JobView>,
    /// Cursor for the next page, when there is one.
    pub next: Option<String>,
}

/// What the job list is filtered by, and where the page starts. A field left
/// empty (as a plain GET form sends it) means "any".
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobQuery {
    pub status: Option<String>,
    pub agent_id: Option<String>,
    pub kind: Option<String>,
    pub network_id: Option<String>,
    /// `shown` lists the end-to-end probe's runs too; by default they are
    /// left out, as Control queues one every few minutes per probed network.
    pub probes: Option<String>,
    /// The last job of the previous page.
    pub after: Option<String>,
}

impl JobQuery {
    /// The query with blank fields read as "any".
    pub fn normalised(self) -> Self {
        let keep = |v: Option<String>| v.filter(|v| !v.trim().is_empty());
        Self {
            status: keep(self.status),
            agent_id: keep(self.agent_id),
            kind: keep(self.kind),
            network_id: keep(self.network_id),
            probes: keep(self.probes),
            after: keep(self.after),
        }
    }

    /// Whether the end-to-end probe's runs are listed.
    pub fn shows_probe_runs(&self) -> bool {
        self.probes.as_deref() == Some("shown")
    }

    pub fn is_filtered(&self) -> bool {
        self.status.is_some()
            || self.agent_id.is_some()
            || self.kind.is_some()
            || self.network_id.is_some()
    }

    /// The filter as a query string (`status=failed&kind=…&`), without the
    /// page cursor, ready for `/jobs?` links.
    pub fn filter_query(&self) -> String {
        let mut out = url::form_urlencoded::Serializer::new(String::new());
        for (key, value) in [
            ("status", &self.status),
            ("kind", &self.kind),
            ("agent_id", &self.agent_id),
            ("network_id", &self.network_id),
            ("probes", &self.probes),
        ] {
            if let Some(v) = value {
                out.append_pair(key, v);
            }
        }
        let mut text = out.finish();
        if !text.is_empty() {
            text.push('&');
        }
        text
    }
}

#[server(prefix = "/ui", endpoint = "list_jobs", input = leptos::server_fn::codec::Json)]
pub async fn list_jobs(query: JobQuery) -> Result<JobListPage, UiError> {
    let query = query.normalised();
    with_reader(|s, who| async move {
        // A status no job can have (a hand-edited link) matches nothing.
        let status = match query.status.as_deref().map(protocol::JobStatus::parse) {
            Some(None) => {
                return Ok(JobListPage {
                    items: Vec::new(),
                    next: None,
                })
            }
            Some(status) => status,
            None => None,
        };
        let filter = domain::jobs::queue::JobFilter {
            status,
            hide_probe_runs: !query.shows_probe_runs(),
            agent_id: query.agent_id,
            kind: query.kind,
            network_id: query.network_id,
            after: query.after,
            limit: UI_PAGE_SIZE,
        };
        let (items, next) = s
            .jobs
            .list_views(who.networks(), &filter)
            .await
            .map_err(ui_error)?;
        Ok(JobListPage { items, next })
    })
    .await
}

#[server(prefix = "/ui", endpoint = "get_job")]
pub async fn get_job(id: JobId) -> Result<JobView, UiError> {
    with_reader(|s, who| async move { s.jobs.view_of(who.networks(), &id).await.map_err(ui_error) })
        .await
}

/// The job's state and stages, and its output after line `after` (0: from
/// the start), a page at a time: all the job page's output view reads, in
/// one call.
#[server(prefix = "/ui", endpoint = "job_output")]
pub async fn job_output(
    id: JobId,
    after: u64,
) -> Result<protocol::progress::JobOutputPage, UiError> {
    with_reader(|s, who| async move {
        let job = s
            .jobs
            .view_of(who.networks(), &id)
            .await
            .map_err(ui_error)?;
        let lines = s
            .jobs
            .journal()
            .lines(who.networks(), &id, after)
            .await
            .map_err(ui_error)?;
        Ok(protocol::progress::JobOutputPage {
            status: job.status,
            result: job.result,
            reports_progress: job.reports_progress,
            stages: job.stages,
            lines,
        })
    })
    .await
}

#[server(prefix = "/ui", endpoint = "create_job", input = leptos::server_fn::codec::Json)]
pub async fn create_job(job: NewJob) -> Result<JobView, UiError> {
    with_services(|s| async move {
        let by = granted::<RunJobs>()?;
        let row = s
            .jobs
            .create(&by, &job.agent_id, &job.kind, &job.payload)
            .await
            .map_err(ui_error)?;
        Ok(domain::jobs::queue::view(&row))
    })
    .await
}

/// Queues a job sent by a screen's plain form; done, the form's post is
/// sent on to `then(agent)`, built from the queued job's own Agent ID (the
/// one the queue found, not the text sent).
#[cfg(feature = "ssr")]
pub(crate) async fn queue_from_form(
    agent_id: String,
    kind: &'static str,
    payload: serde_json::Value,
    then: impl FnOnce(&str) -> String,
) -> Result<(), UiError> {
    let queued = with_services(|s| async move {
        let by = granted::<RunJobs>()?;
        s.jobs
            .create(&by, &agent_id, kind, &payload)
            .await
            .map_err(ui_error)
    })
    .await;
    let then = queued
        .as_ref()
        .map(|job| then(&job.agent_id))
        .unwrap_or_default();
    crate::api::answer_plain_form(queued.map(drop), &then)
}

#[server(prefix = "/ui", endpoint = "cancel_job")]
pub async fn cancel_job(id: JobId) -> Result<(), UiError> {
    with_services(|s| async move {
        let by = granted::<RunJobs>()?;
        s.jobs.cancel(&by, &id).await.map(drop).map_err(ui_error)
    })
    .await
}

/// Queues a finished job again. Sent by a plain form: its answer is the
/// page it came from again, or with `open_new`, the new job's page (the job
/// page's Retry: the reader goes on to the run they asked for).
#[server(prefix = "/ui", endpoint = "retry_job")]
pub async fn retry_job(id: JobId, open_new: Option<bool>) -> Result<JobView, UiError> {
    let retried = with_services(|s| async move {
        let by = granted::<RunJobs>()?;
        let job = s.jobs.retry(&by, &id).await.map_err(ui_error)?;
        Ok(domain::jobs::queue::view(&job))
    })
    .await?;
    if open_new == Some(true) {
        super::plain_form_done_at(&format!("/jobs/{}", retried.id));
    }
    Ok(retried)
}
