//! Jobs: queue a job for an Agent, and the job list (newest first, filtered by
//! status, kind and Agent, paged) with cancel for pending and retry for failed
//! or expired jobs; each job links to its own page.

use super::badges::job_badge;
use super::infrastructure::when;
use super::job_form::{job_section, JobDraft};
use super::layout::Frame;
use super::loaded;
use super::on_demand::OnDemand;
use super::plain_action::{refusal_in_address, RowAction};
use crate::api::jobs::{list_jobs, CancelJob, JobQuery, RetryJob};
use crate::api::list_networks;
use crate::i18n::jobs::jobs_texts;
use crate::i18n::texts;
use crate::live_region::LiveRegion;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use protocol::actions::ActionKind;
use protocol::api::{JobView, NetworkProfile};
use protocol::live::LiveTopic;
use protocol::JobStatus;

/// The screen. Only the new-job form is an island; the filters are a plain
/// GET form, and the list a live region whose Cancel and Retry are plain
/// forms (`plain_action`), so the screen's first load needs no WebAssembly
/// of its own but the form's button.
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
    let refusal = move || job_action_refusal(&params.read()).map(|e| e.message(lang));
    view! {
        <Title text=format!("{} · {}", jt.jobs_title, t.product) />
        <Frame>
            <h1>{jt.jobs_title}</h1>
            <p class="muted">{jt.jobs_intro}</p>
            {may(ActionKind::RunJobs).then(|| view! { <NewJob /> })}
            // Drawn again when the full build's client router changes the
            // query in place (the pager's links).
            {move || view! { <JobFilters query=query.get() /> }}
            <p class="field-error" role="alert" id="job-action-error">{refusal}</p>
            <LiveRegion id="jobs-live" topics=&[LiveTopic::Jobs, LiveTopic::Progress]>
                {move || view! { <JobList query=query.get() /> }}
            </LiveRegion>
        </Frame>
    }
}

/// The new-job form behind its button. An island (crate::islands), lazy and
/// preloaded; the form itself, with its server-function client, is fetched
/// on the first press (`job_section`). The list shows the new job through
/// the live stream.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn NewJob() -> impl IntoView {
    crate::islands::preload_island("new_job_loader");
    let jt = jobs_texts(use_lang());
    let draft = JobDraft::new();
    let form_open = RwSignal::new(false);
    view! {
        <section class="card" id="new-job">
            <h2>{jt.new_job}</h2>
            <OnDemand id="open-new-job" label=jt.new_job open=form_open load=move || job_section(draft) />
        </section>
    }
}

/// The filters: a plain GET form, filled in from the address.
#[component]
fn JobFilters(query: JobQuery) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let jt = jobs_texts(lang);
    let shows_probe_runs = query.shows_probe_runs();
    let JobQuery {
        status,
        agent_id,
        kind,
        network_id: network,
        ..
    } = query;
    // The filter offers the first profiles; one named in the address is kept.
    let networks = Resource::new(|| (), |_| list_networks(None, None));
    let status_options = JobStatus::ALL
        .into_iter()
        .map(|s| {
            let selected = status.as_deref() == Some(s.as_str());
            view! { <option value=s.as_str() selected=selected>{s.as_str()}</option> }
        })
        .collect_view();
    let kind_options = protocol::jobs::JobPayload::KINDS
        .iter()
        .map(|k| {
            let selected = kind.as_deref() == Some(*k);
            view! { <option value=*k selected=selected>{jt.kind(k)}</option> }
        })
        .collect_view();
    let any_status = status.is_none();
    let any_kind = kind.is_none();
    let any_network = network.is_none();
    view! {
        <form method="get" action="/jobs" class="filters" id="job-filters">
            <label for="filter-status">{jt.filter_status}</label>
            <select id="filter-status" name="status">
                <option value="" selected=any_status>{jt.any}</option>
                {status_options}
            </select>
            <label for="filter-kind">{jt.col_kind}</label>
            <select id="filter-kind" name="kind">
                <option value="" selected=any_kind>{jt.any}</option>
                {kind_options}
            </select>
            <label for="filter-agent">{jt.filter_agent}</label>
            <input id="filter-agent" name="agent_id" placeholder="ka_…" value=agent_id.unwrap_or_default() />
            <label for="filter-network">{jt.filter_network}</label>
            <select id="filter-network" name="network_id">
                <option value="" selected=any_network>{jt.any}</option>
                <Transition fallback=move || view! { <option value="" disabled=true>{t.loading}</option> }>
                    {move || {
                        let network = network.clone();
                        Suspend::new(async move {
                            networks.await.ok().map(|page| network_options(page.items, network))
                        })
                    }}
                </Transition>
            </select>
            <label class="check" for="filter-probes">
                <input type="checkbox" id="filter-probes" name="probes" value="shown" checked=shows_probe_runs />
                {jt.show_probe_runs}
            </label>
            <button type="submit">{jt.apply_filter}</button>
        </form>
    }
}

/// The network filter's options: the listed profiles, and the one the
/// address names if it is not among them.
fn network_options(items: Vec<NetworkProfile>, chosen: Option<String>) -> impl IntoView {
    let listed = items
        .iter()
        .any(|n| Some(n.id.as_str()) == chosen.as_deref());
    let unlisted = chosen
        .clone()
        .filter(|_| !listed)
        .map(|id| view! { <option value=id.clone() selected=true>{id.clone()}</option> });
    let options = items
        .into_iter()
        .map(|n| {
            let id = n.id.to_string();
            let selected = chosen.as_deref() == Some(id.as_str());
            view! { <option value=id.clone() selected=selected>{n.name}" ("{id.clone()}")"</option> }
        })
        .collect_view();
    view! { {unlisted}{options} }
}

/// The list, newest first, paged. In the islands build the server draws it
/// and the live region draws it again; the full build re-reads it on live
/// updates.
#[component]
fn JobList(query: JobQuery) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let jt = jobs_texts(lang);
    let query = StoredValue::new(query);
    let after = move || query.with_value(|q| q.after.clone());
    let query = move || query.get_value();
    let live = crate::live::use_live();
    let jobs = Resource::new(
        move || (query(), (live.jobs(), live.progress())),
        |(query, _)| list_jobs(query),
    );
    loaded(
        move || async move { jobs.await },
        move |answer| {
            let filtered = query().is_filtered();
            match answer {
                page if page.items.is_empty() && after().is_none() => {
                    let text = if filtered {
                        jt.jobs_empty_filtered
                    } else {
                        jt.jobs_empty
                    };
                    view! { <p class="empty" id="jobs-empty">{text}</p> }.into_any()
                }
                page => {
                    let rows = page
                        .items
                        .into_iter()
                        .map(|job| view! { <JobRow job /> })
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
    )
}

#[component]
fn JobRow(job: JobView) -> impl IntoView {
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
                {can_cancel.then(|| view! {
                    <RowAction action=CancelJob::PATH id=id.to_string() class="cancel-job" label=jt.cancel_job />
                })}
                {can_retry.then(|| view! {
                    <RowAction action=RetryJob::PATH id=id.to_string() class="retry-job" label=jt.retry_job />
                })}
            </td>
        </tr>
    }
}

/// The refusal of a job's Cancel or Retry (plain forms) in the address, on
/// the Jobs list or a job's own page.
pub(super) fn job_action_refusal(
    query: &leptos_router::params::ParamsMap,
) -> Option<crate::error::UiError> {
    refusal_in_address(query, &[CancelJob::PATH, RetryJob::PATH])
}
