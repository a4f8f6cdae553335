//! The end-to-end probe panel of a network's setup screen: which
//! service is opened, from which Agent, how often; "Save and probe now",
//! "Stop probing" (confirmed), and the recent runs.
//!
//! The server draws it. What the probe is and its runs are a live region
//! (crate::live_region), so a run shows as soon as its job finishes; the
//! form is a plain HTML form outside it, so a redraw never takes what is
//! being typed. Its answer is the page again, saying it was saved
//! (`?probe_saved`) or with the refusal in the address (`plain_action`).
//! Stop probing asks first at an address of its own (`?stop_probe`).

use super::loaded;
use super::plain_action::{confirm_address, refusal_in_address, ConfirmAtAddress};
use crate::api::probes::{load_probe, RemoveProbe, SaveProbe};
use crate::error::UiError;
use crate::i18n::probe::{probe_texts, stage_label};
use crate::live::use_live;
use crate::live_region::LiveRegion;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_query_map;
use protocol::actions::ActionKind;
use protocol::live::LiveTopic;
use protocol::probes::{ProbeRun, ProbeScreen, EVERY_DEFAULT, EVERY_MAX, EVERY_MIN};

/// The address's key that asks to confirm Stop probing.
const STOP_ASKED: &str = "stop_probe";

/// What the address says about the form: saved, refused, or Stop probing
/// to be confirmed.
#[derive(Clone, Default)]
struct FormState {
    saved: bool,
    refused: Option<UiError>,
    stop_asked: bool,
}

#[component]
pub fn ProbePanel(network_id: String) -> impl IntoView {
    let pt = probe_texts(use_lang());
    let live = use_live();
    let query = use_query_map();
    let network = StoredValue::new(network_id);
    // The runs follow the jobs (the full build; the islands build draws the
    // region again). The form reads once: it is not drawn again under the
    // person filling it in.
    let runs = Resource::new(
        move || (network.get_value(), live.jobs()),
        |(id, _)| load_probe(id),
    );
    let choices = Resource::new(move || network.get_value(), load_probe);
    view! {
        <section class="card" id="probe">
            <h2>{pt.title}</h2>
            <p class="muted">{pt.intro}</p>
            <LiveRegion id="probe-live" topics=&[LiveTopic::Jobs]>
                {loaded(
                    move || async move { runs.await },
                    move |s| view! { <ProbeRuns screen=s /> },
                )}
            </LiveRegion>
            {loaded(
                move || {
                    // Read here, where it is tracked: the full build's
                    // router changes the address in place.
                    let query = query.read();
                    let state = FormState {
                        saved: query.get_str("probe_saved").is_some(),
                        refused: refusal_in_address(&query, &[SaveProbe::PATH, RemoveProbe::PATH]),
                        stop_asked: query.get_str(STOP_ASKED).is_some(),
                    };
                    async move { choices.await.map(|screen| (screen, state)) }
                },
                move |(screen, state)| view! { <ProbeChoice screen state network_id=network.get_value() /> },
            )}
        </section>
    }
}

/// What is probed, and the recent runs.
#[component]
fn ProbeRuns(screen: ProbeScreen) -> impl IntoView {
    let pt = probe_texts(use_lang());
    let current = screen.view.settings.as_ref().map(|s| {
        let agent = screen
            .agents
            .iter()
            .find(|a| a.id == s.agent_id)
            .map_or(s.agent_id.clone(), |a| a.name.clone());
        pt.current
            .replace("{service}", &s.service)
            .replace("{agent}", &agent)
            .replace("{n}", &s.every_minutes.to_string())
    });
    view! {
        <p id="probe-current">
            {current.unwrap_or_else(|| pt.none_yet.to_string())}
        </p>
        <h3>{pt.history_title}</h3>
        {runs(screen.view.runs)}
    }
}

/// The form, or why there is none.
#[component]
fn ProbeChoice(screen: ProbeScreen, state: FormState, network_id: String) -> impl IntoView {
    let pt = probe_texts(use_lang());
    if !may(ActionKind::EditNetworks) {
        view! { <p class="muted">{pt.not_for_role}</p> }.into_any()
    } else if screen.services.is_empty() {
        view! { <p class="alert" role="status" id="probe-no-services">{pt.no_services}</p> }
            .into_any()
    } else if screen.agents.is_empty() {
        view! { <p class="alert" role="status" id="probe-no-agents">{pt.no_agents}</p> }.into_any()
    } else {
        view! { <ProbeForm screen state network_id /> }.into_any()
    }
}

#[component]
fn ProbeForm(screen: ProbeScreen, state: FormState, network_id: String) -> impl IntoView {
    let lang = use_lang();
    let pt = probe_texts(lang);
    let settings = screen.view.settings.clone();
    let service = settings
        .as_ref()
        .map(|s| s.service.clone())
        .unwrap_or_else(|| screen.services[0].name.clone());
    // By default an Agent other than the first service's own.
    let first_host = &screen.services[0].agent_id;
    let agent = settings.as_ref().map_or_else(
        || {
            screen
                .agents
                .iter()
                .find(|a| &a.id != first_host)
                .unwrap_or(&screen.agents[0])
                .id
                .clone()
        },
        |s| s.agent_id.clone(),
    );
    let every = settings
        .as_ref()
        .map_or(EVERY_DEFAULT, |s| s.every_minutes)
        .to_string();
    let FormState {
        saved,
        refused,
        stop_asked,
    } = state;
    let field_error = |field: &'static str| {
        refused
            .as_ref()
            .and_then(|e| e.for_field(field))
            .map(|f| view! { <p class="field-error" id=format!("probe-{field}-error")>{f.message(lang)}</p> })
    };
    let (service_error, agent_error, every_error) = (
        field_error("service"),
        field_error("agent_id"),
        field_error("every_minutes"),
    );
    let general = refused
        .as_ref()
        .filter(|e| !matches!(e, UiError::Invalid(_)))
        .map(|e| view! { <p class="alert error" role="alert" id="probe-error">{e.message(lang)}</p> });
    let service_options = screen
        .services
        .iter()
        .map(|s| {
            let label = pt
                .service_option
                .replace("{name}", &s.name)
                .replace("{agent}", &s.agent_name);
            view! { <option value=s.name.clone() selected=s.name == service>{label}</option> }
        })
        .collect_view();
    let agent_options = screen
        .agents
        .iter()
        .map(|a| {
            let label = if a.hostname.is_empty() {
                a.name.clone()
            } else {
                format!("{} ({})", a.name, a.hostname)
            };
            view! { <option value=a.id.clone() selected=a.id == agent>{label}</option> }
        })
        .collect_view();
    let page = format!("/networks/{network_id}/setup");
    let stop = settings.is_some().then(|| {
        let href = confirm_address(&page, STOP_ASKED, "1", "confirm-stop-probe");
        view! { " "<a href=href class="button danger" id="probe-remove">{pt.remove}</a> }
    });
    let confirm = (stop_asked && settings.is_some()).then(|| {
        view! {
            <ConfirmAtAddress id="confirm-stop-probe" explain=pt.remove_explain
                cancel_href=format!("{page}#probe") cancel_id="cancel-probe-remove"
                action=RemoveProbe::PATH value=network_id.clone()
                confirm_id="confirm-probe-remove" label=pt.remove>
                {pt.remove}
            </ConfirmAtAddress>
        }
    });
    // `novalidate`: the server's message, in the form, says what is wrong
    // with the interval, in the page's language.
    view! {
        <form id="probe-form" method="post" action=SaveProbe::PATH novalidate>
            {general}
            <input type="hidden" name="id" value=network_id.clone() />
            <label for="probe-service">{pt.field_service}</label>
            <select id="probe-service" name="service">{service_options}</select>
            {service_error}
            <label for="probe-agent">{pt.field_agent}</label>
            <select id="probe-agent" name="agent_id">{agent_options}</select>
            {agent_error}
            <label for="probe-every">{pt.field_every}</label>
            <input id="probe-every" name="every_minutes" type="number" inputmode="numeric"
                min=EVERY_MIN.to_string() max=EVERY_MAX.to_string() value=every />
            {every_error}
            <p class="form-actions">
                <button type="submit" class="primary" id="probe-save">{pt.save}</button>
                {stop}
            </p>
            {saved.then(|| view! { <p class="muted" role="status" id="probe-saved">{pt.saved}</p> })}
        </form>
        {confirm}
    }
}

/// The recent runs, newest first: when, passed or where it stopped, latency.
fn runs(runs: Vec<ProbeRun>) -> AnyView {
    let lang = use_lang();
    let pt = probe_texts(lang);
    if runs.is_empty() {
        return view! { <p class="muted" id="probe-history-empty">{pt.history_empty}</p> }
            .into_any();
    }
    let items = runs
        .into_iter()
        .map(|r| {
            let (badge, label, state) = if r.ok {
                ("badge ok", pt.passed, "ok")
            } else {
                ("badge bad", pt.failed, "failed")
            };
            let stage = r
                .stage
                .map(|s| pt.stopped_at.replace("{stage}", stage_label(s, lang)));
            view! {
                <li data-probe=state>
                    <span class=badge>{label}</span>" "
                    <time>{r.at}</time>" · "{r.agent_name}
                    {r.ok.then(|| format!(" · {} ms", r.latency_ms))}
                    {stage.map(|s| view! { <br /><span class="muted">{s}</span> })}
                    {(!r.detail.is_empty()).then(|| view! { <br /><span class="muted probe-detail">{r.detail.clone()}</span> })}
                </li>
            }
        })
        .collect_view();
    view! { <ul class="probe-history" id="probe-history">{items}</ul> }.into_any()
}
