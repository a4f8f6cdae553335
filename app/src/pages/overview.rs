//! Overview: the counts an operator checks first, each linking to its list;
//! the Agents that need attention, most urgent first; the latest jobs. All of
//! it follows live updates.

use super::badges::{agent_badge, job_badge};
use super::layout::Frame;
use super::{loaded, LastSeen};
use crate::api::load_overview;
use crate::api::overview::{load_overview_lists, OverviewLists};
use crate::error::UiError;
use crate::i18n::jobs::jobs_texts;
use crate::i18n::overview::overview_texts;
use crate::i18n::texts;
use crate::live::use_live;
use crate::live_region::LiveRegion;
use crate::use_lang;
use leptos::prelude::*;
use leptos_meta::Title;
use protocol::live::LiveTopic;

#[component]
fn Card(
    href: &'static str,
    label: &'static str,
    value: String,
    #[prop(into)] note: Option<String>,
    id: &'static str,
) -> impl IntoView {
    view! {
        <a class="card stat" href=href id=id>
            <span class="stat-label">{label}</span>
            <span class="stat-value">{value}</span>
            {note.map(|n| view! { <span class="stat-note">{n}</span> })}
        </a>
    }
}

#[component]
pub fn OverviewPage() -> impl IntoView {
    let t = texts(use_lang());
    view! {
        <Title text=format!("{} · {}", t.overview_title, t.product) />
        <Frame>
            <h1>{t.overview_title}</h1>
            <LiveRegion id="overview-live" topics=&[LiveTopic::Agents, LiveTopic::Jobs]>
                <OverviewLive />
            </LiveRegion>
        </Frame>
    }
}

/// The counts and lists, re-read on every live update: in the full build by
/// its resources, in the islands build from the server's HTML (a live region,
/// so that this screen needs no WebAssembly of its own).
#[component]
fn OverviewLive() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let live = use_live();
    let counts = Resource::new(move || (live.agents(), live.jobs()), |_| load_overview());
    let details = Resource::new(
        move || (live.agents(), live.jobs()),
        |_| load_overview_lists(),
    );
    view! {
        {loaded(
            move || async move { counts.await },
            move |c| {
                let networks_note = if c.networks == 0 {
                    Some(t.zero_networks.to_string())
                } else if c.networks_without_beacon > 0 {
                    Some(t.some_networks_without_beacon.replace("{n}", &c.networks_without_beacon.to_string()))
                } else {
                    None
                };
                let agents_note = if c.agents_total == 0 {
                    t.zero_agents.to_string()
                } else {
                    t.online_of.replace("{n}", &c.agents_total.to_string())
                };
                let ot = overview_texts(lang);
                let pending = (c.agents_pending > 0).then(|| view! {
                    <p class="alert warn" role="status" id="agents-pending">
                        <a href="/infrastructure#agents">
                            {ot.agents_pending.replace("{n}", &c.agents_pending.to_string())}
                        </a>
                    </p>
                });
                view! {
                    {pending}
                    <div class="stats">
                        <Card id="count-networks" href="/networks" label=t.card_networks value=c.networks.to_string() note=networks_note />
                        <Card id="count-agents" href="/infrastructure" label=t.card_agents value=c.agents_online.to_string() note=Some(agents_note) />
                        <Card
                            id="count-beacons"
                            href="/infrastructure/beacons"
                            label=t.card_beacons
                            value=c.managed_beacons.to_string()
                            note=(c.managed_beacons == 0).then(|| t.zero_beacons.to_string())
                        />
                        <Card
                            id="count-services"
                            href="/services"
                            label=t.card_services
                            value=c.services.to_string()
                            note=(c.services == 0).then(|| t.zero_services.to_string())
                        />
                    </div>
                }
                    .into_any()
            },
        )}
        {loaded(
            move || async move { Ok::<_, UiError>((details.await?, counts.await?)) },
            move |(d, c)| view! { <Details details=d agents_total=c.agents_total networks=c.networks /> }.into_any(),
        )}
    }
}

#[component]
fn Details(details: OverviewLists, agents_total: u64, networks: u64) -> impl IntoView {
    let lang = use_lang();
    let ot = overview_texts(lang);
    let jt = jobs_texts(lang);
    let more = details
        .attention_total
        .saturating_sub(details.attention.len());
    let attention = if details.attention.is_empty() {
        let text = if agents_total == 0 {
            ot.attention_none_yet
        } else {
            ot.attention_all_well
        };
        view! { <p class="empty" id="attention-empty">{text}</p> }.into_any()
    } else {
        let rows = details
            .attention
            .into_iter()
            .map(|a| {
                let href = format!("/infrastructure/agents/{}", a.id);
                let problem = a
                    .components
                    .iter()
                    .find_map(|c| (!c.last_error.is_empty()).then(|| format!("{}: {}", c.id, c.last_error)))
                    .or_else(|| {
                        a.components
                            .iter()
                            .find_map(|c| c.warnings.first().map(|w| format!("{}: {w}", c.id)))
                    })
                    .unwrap_or_else(|| a.reason_text.clone());
                view! {
                    <li class="attention-item" data-agent=a.id.to_string()>
                        <span class=agent_badge(a.status)>{a.status.as_str()}</span>" "
                        <a href=href class="agent-name">{a.name.clone()}</a>" "
                        <span class="muted"><LastSeen at=a.last_heartbeat_at.clone() secs=a.last_seen_secs /></span>
                        <br /><span class="reason">{problem}</span>
                    </li>
                }
            })
            .collect_view();
        view! {
            <ul class="attention" id="attention-list">{rows}</ul>
            {(more > 0).then(|| view! {
                <p><a href="/infrastructure#agents">{ot.attention_more.replace("{n}", &more.to_string())}</a></p>
            })}
        }
        .into_any()
    };
    let jobs = if details.recent_jobs.is_empty() {
        view! { <p class="empty" id="recent-jobs-empty">{ot.recent_jobs_empty}</p> }.into_any()
    } else {
        let rows = details
            .recent_jobs
            .into_iter()
            .map(|j| {
                view! {
                    <li class="recent-job" data-job=j.id.to_string()>
                        <span class=job_badge(j.status)>{j.status.as_str()}</span>" "
                        <a href=format!("/jobs/{}", j.id)>{jt.kind(&j.kind)}" "{j.component_id.clone().unwrap_or_default()}</a>
                        " "<span class="muted">{super::infrastructure::when(&j.created_at)}</span>
                    </li>
                }
            })
            .collect_view();
        view! { <ul class="recent-jobs" id="recent-jobs">{rows}</ul> }.into_any()
    };
    let setup = setup_summaries(details.setup, networks, lang);
    view! {
        {setup}
        <div class="overview-lists">
            <section aria-labelledby="attention-title">
                <h2 id="attention-title">{ot.attention_title}</h2>
                {attention}
            </section>
            <section aria-labelledby="recent-jobs-title">
                <h2 id="recent-jobs-title">{ot.recent_jobs_title}</h2>
                {jobs}
                <p><a href="/jobs">{ot.all_jobs}</a>" · "<a href="/jobs?status=failed">{ot.failed_jobs}</a></p>
            </section>
        </div>
    }
}

/// Each network's setup checklist in one line (the first few of
/// `networks`), or how to begin.
fn setup_summaries(
    summaries: Vec<protocol::setup::SetupSummary>,
    networks: u64,
    lang: crate::i18n::Lang,
) -> AnyView {
    let st = crate::i18n::setup::setup_texts(lang);
    let body = if summaries.is_empty() {
        view! {
            <p class="empty" id="setup-empty">
                {st.overview_empty}" "<a href="/networks/new">{st.overview_new}</a>
            </p>
        }
        .into_any()
    } else {
        let shown = summaries.len() as u64;
        let rows = summaries
            .into_iter()
            .map(|s| {
                let progress = st
                    .progress
                    .replace("{done}", &s.done.to_string())
                    .replace("{total}", &s.total.to_string());
                view! {
                    <li class="setup-summary" data-network=s.network_id.clone()>
                        <a href=format!("/networks/{}/setup", s.network_id)>{s.network_name}</a>
                        " · "{progress}
                        {s.next.map(|n| view! { <br /><span class="muted">{st.next}" "{n}</span> })}
                    </li>
                }
            })
            .collect_view();
        let more = networks.saturating_sub(shown);
        view! {
            <ul class="setup-summaries" id="setup-summaries">{rows}</ul>
            {(more > 0).then(|| view! {
                <p><a href="/networks" id="setup-more">{st.overview_more.replace("{n}", &more.to_string())}</a></p>
            })}
        }
        .into_any()
    };
    view! {
        <section aria-labelledby="setup-title" class="card" id="setup-overview">
            <h2 id="setup-title">{st.overview_title}</h2>
            {body}
        </section>
    }
    .into_any()
}
