//! Jobs: queue a job for an Agent, and the job list (newest first, filtered by
//! status, kind and Agent, paged) with cancel for pending and retry for failed
//! or expired jobs; each job links to its own page.

use super::badges::job_badge;
use super::infrastructure::when;
use super::job_form::{job_section, JobDraft};
use super::layout::Frame;
use super::loaded;
use super::on_demand::OnDemand;
use crate::api::jobs::{list_jobs, CancelJob, CreateJob, JobQuery, RetryJob};
use crate::api::list_networks;
use crate::i18n::jobs::jobs_texts;
use crate::i18n::texts;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use protocol::actions::ActionKind;
use protocol::api::JobView;
use protocol::JobStatus;

/// Why the last Cancel or Retry was refused, for the page's alert line.
pub fn cancel_or_retry_refusal(
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
pub fn JobsPage() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let jt = jobs_texts(lang);
    let params = use_query_map();
    let query = Memo::new(move |_| {
        let params = params.read();
        let param = |name: &str| params.get(name).filter(|s| !s.is_empty());
        JobQuery {
            status: param("status"),
            agent_id: param("agent_id"),
            kind: param("kind"),
            network_id: param("network_id"),
            probes: param("probes"),
            after: param("after"),
        }
    });
    view! {
        <Title text=format!("{} · {}", jt.jobs_title, t.product) />
        <Frame>
            <h1>{jt.jobs_title}</h1>
            <p class="muted">{jt.jobs_intro}</p>
            // Drawn again when the full build's client router changes the
            // query in place (the pager's links).
            {move || view! { <JobsBody query=query.get() /> }}
        </Frame>
    }
}

/// The new-job form, the filters and the list, re-read on live updates and
/// after Cancel, Retry or a new job. An island (crate::islands), lazy and
/// preloaded.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn JobsBody(query: JobQuery) -> impl IntoView {
    crate::islands::preload_island("jobs_body_loader");
    let lang = use_lang();
    let t = texts(lang);
    let jt = jobs_texts(lang);
    let query = StoredValue::new(query);
    let status = move || query.with_value(|q| q.status.clone());
    let agent = move || query.with_value(|q| q.agent_id.clone());
    let kind = move || query.with_value(|q| q.kind.clone());
    let network = move || query.with_value(|q| q.network_id.clone());
    let after = move || query.with_value(|q| q.after.clone());
    let query = move || query.get_value();
    let cancel = ServerAction::<CancelJob>::new();
    let retry = ServerAction::<RetryJob>::new();
    let create = ServerAction::<CreateJob>::new();
    let live = crate::live::use_live();
    let jobs = Resource::new(
        move || {
            (
                query(),
                (
                    cancel.version().get(),
                    retry.version().get(),
                    create.version().get(),
                    (live.jobs(), live.progress()),
                ),
            )
        },
        |(query, _)| list_jobs(query),
    );
    let draft = JobDraft::new();
    let form_open = RwSignal::new(false);
    // The filter offers the first profiles; one named in the address is kept.
    let networks = Resource::new(|| (), |_| list_networks(None, None));
    let action_error = cancel_or_retry_refusal(cancel, retry, lang);
    view! {
        {may(ActionKind::RunJobs).then(|| view! {
            <section class="card" id="new-job">
                <h2>{jt.new_job}</h2>
                <OnDemand id="open-new-job" label=jt.new_job open=form_open load=move || job_section(create, draft) />
            </section>
        })}

        <Transition fallback=move || view! { <p class="muted">{t.loading}</p> }>
        {move || Suspend::new(async move {
        let network_options = networks
            .await
            .map(|page| {
                let chosen = network();
                let listed = page.items.iter().any(|n| Some(n.id.as_str()) == chosen.as_deref());
                let unlisted = chosen
                    .filter(|_| !listed)
                    .map(|id| view! { <option value=id.clone() selected=true>{id.clone()}</option> });
                let options = page
                    .items
                    .into_iter()
                    .map(|n| {
                        let id = n.id.to_string();
                        let selected = network().as_deref() == Some(id.as_str());
                        view! { <option value=id.clone() selected=selected>{n.name}" ("{id.clone()}")"</option> }
                    })
                    .collect_view();
                view! { {unlisted}{options} }
            })
            .ok();
        view! {
        <form method="get" action="/jobs" class="filters" id="job-filters">
            <label for="filter-status">{jt.filter_status}</label>
            <select id="filter-status" name="status">
                <option value="" selected=move || status().is_none()>{jt.any}</option>
                {JobStatus::ALL
                    .into_iter()
                    .map(|s| view! {
                        <option value=s.as_str() selected=move || status().as_deref() == Some(s.as_str())>{s.as_str()}</option>
                    })
                    .collect_view()}
            </select>
            <label for="filter-kind">{jt.col_kind}</label>
            <select id="filter-kind" name="kind">
                <option value="" selected=move || kind().is_none()>{jt.any}</option>
                {protocol::jobs::JobPayload::KINDS
                    .iter()
                    .map(|k| view! { <option value=*k selected=move || kind().as_deref() == Some(*k)>{jt.kind(k)}</option> })
                    .collect_view()}
            </select>
            <label for="filter-agent">{jt.filter_agent}</label>
            <input id="filter-agent" name="agent_id" placeholder="ka_…" prop:value=move || agent().unwrap_or_default() />
            <label for="filter-network">{jt.filter_network}</label>
            <select id="filter-network" name="network_id">
                <option value="" selected=move || network().is_none()>{jt.any}</option>
                {network_options}
            </select>
            <label class="check" for="filter-probes">
                <input type="checkbox" id="filter-probes" name="probes" value="shown"
                    prop:checked=move || query().shows_probe_runs() />
                {jt.show_probe_runs}
            </label>
            <button type="submit">{jt.apply_filter}</button>
        </form>
        }
        })}
        </Transition>
        <p class="field-error" role="alert">{action_error}</p>

        {loaded(
            move || async move { jobs.await },
            move |answer| {
                let filtered = query().is_filtered();
                match answer {
                    page if page.items.is_empty() && after().is_none() => {
                        let text = if filtered { jt.jobs_empty_filtered } else { jt.jobs_empty };
                        view! { <p class="empty" id="jobs-empty">{text}</p> }.into_any()
                    }
                    page => {
                        let rows = page
                            .items
                            .into_iter()
                            .map(|job| view! { <JobRow job cancel retry /> })
                            .collect_view();
                        let filter = query().filter_query();
                        let first = format!("/jobs?{filter}");
                        view! {
                            <table class="list" id="jobs-table">
                                <thead><tr>
                                    <th scope="col">{jt.col_created}</th>
                                    <th scope="col">{jt.filter_agent}</th>
                                    <th scope="col">{jt.col_kind}</th>
                                    <th scope="col">{jt.filter_status}</th>
                                    <th scope="col">{jt.col_result}</th>
                                    <th scope="col"></th>
                                </tr></thead>
                                <tbody>{rows}</tbody>
                            </table>
                            <nav class="pager" aria-label="Pages">
                                {after().map(|_| view! { <a href=first.clone()>{t.first_page}</a> })}
                                {page.next.map(|c| view! { <a href=format!("/jobs?{filter}after={c}") rel="next">{t.next_page}</a> })}
                            </nav>
                        }
                            .into_any()
                    }
                }
            },
        )}
    }
}

#[component]
fn JobRow(
    job: JobView,
    cancel: ServerAction<CancelJob>,
    retry: ServerAction<RetryJob>,
) -> impl IntoView {
    let jt = jobs_texts(use_lang());
    let first_line = job.result.lines().next().unwrap_or("").to_string();
    let id = job.id.clone();
    let runs_jobs = may(ActionKind::RunJobs);
    let can_cancel = runs_jobs && job.can_cancel();
    let can_retry = runs_jobs && job.status.can_retry();
    let stage = job
        .stage
        .clone()
        .filter(|_| job.status == JobStatus::Running)
        .map(|stage| view! { <br /><span class="muted job-stage">{jt.now_in}" "{stage}</span> });
    view! {
        <tr class="job-row" data-job=job.id.to_string()>
            <td data-label=jt.col_created>{when(&job.created_at)}</td>
            <td data-label=jt.filter_agent>
                <a href=format!("/infrastructure/agents/{}", job.agent_id)><code class="id">{job.agent_id.to_string()}</code></a>
            </td>
            <td data-label=jt.col_kind>
                <a href=format!("/jobs/{}", job.id) class="job-link">{jt.kind(&job.kind)}</a>" "<code>{job.component_id.clone().unwrap_or_default()}</code>
                {job.retry_of.clone().map(|r| view! { <br /><span class="muted">{jt.retry_of}" "{r.to_string()}</span> })}
            </td>
            <td data-label=jt.filter_status><span class=job_badge(job.status)>{job.status.as_str()}</span>{stage}</td>
            <td data-label=jt.col_result class="result" title=job.result.clone()>{first_line}</td>
            <td>
                {can_cancel.then(|| {
                    let id = id.clone();
                    view! {
                        <button type="button" class="cancel-job" disabled=move || cancel.pending().get()
                            on:click=move |_| { cancel.dispatch(CancelJob { id: id.clone() }); }>{jt.cancel_job}</button>
                    }
                })}
                {can_retry.then(|| {
                    let id = id.clone();
                    view! {
                        <button type="button" class="retry-job" disabled=move || retry.pending().get()
                            on:click=move |_| { retry.dispatch(RetryJob { id: id.clone() }); }>{jt.retry_job}</button>
                    }
                })}
            </td>
        </tr>
    }
}
