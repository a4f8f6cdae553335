//! The end-to-end probe panel of a network's setup screen (issue 25): which
//! service is opened, from which Agent, how often; "Save and probe now",
//! "Stop probing" (confirmed), and the recent runs. Follows live updates, so
//! a run shows as soon as its job finishes.

use super::confirm::ConfirmDialog;
use super::loaded;
use crate::api::probes::{load_probe, RemoveProbe, SaveProbe};
use crate::error::UiError;
use crate::i18n::probe::{probe_texts, stage_label};
use crate::live::use_live;
use crate::{may, use_lang};
use leptos::prelude::*;
use protocol::actions::ActionKind;
use protocol::probes::{ProbeRun, ProbeScreen, ProbeSettings, EVERY_DEFAULT, EVERY_MAX, EVERY_MIN};
use protocol::FieldError;

#[component]
pub fn ProbePanel(#[prop(into)] network_id: Signal<String>) -> impl IntoView {
    let lang = use_lang();
    let pt = probe_texts(lang);
    let live = use_live();
    let save = ServerAction::<SaveProbe>::new();
    let remove = ServerAction::<RemoveProbe>::new();
    let screen = Resource::new(
        move || {
            (
                network_id.get(),
                live.jobs(),
                save.version().get(),
                remove.version().get(),
            )
        },
        |(id, ..)| load_probe(id),
    );
    view! {
        <section class="card" id="probe">
            <h2>{pt.title}</h2>
            <p class="muted">{pt.intro}</p>
            {loaded(
                move || async move { screen.await },
                move |s| view! { <ProbeBody screen=s network_id save remove /> },
            )}
        </section>
    }
}

#[component]
fn ProbeBody(
    screen: ProbeScreen,
    network_id: Signal<String>,
    save: ServerAction<SaveProbe>,
    remove: ServerAction<RemoveProbe>,
) -> impl IntoView {
    let lang = use_lang();
    let pt = probe_texts(lang);
    let settings = screen.view.settings.clone();
    let current = settings.as_ref().map(|s| {
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
    let history = runs(screen.view.runs.clone());
    let form = if !may(ActionKind::EditNetworks) {
        view! { <p class="muted">{pt.not_for_role}</p> }.into_any()
    } else if screen.services.is_empty() {
        view! { <p class="alert" role="status" id="probe-no-services">{pt.no_services}</p> }
            .into_any()
    } else if screen.agents.is_empty() {
        view! { <p class="alert" role="status" id="probe-no-agents">{pt.no_agents}</p> }.into_any()
    } else {
        view! { <ProbeForm screen settings network_id save remove /> }.into_any()
    };
    view! {
        <p id="probe-current">
            {current.unwrap_or_else(|| pt.none_yet.to_string())}
        </p>
        {form}
        <h3>{pt.history_title}</h3>
        {history}
    }
}

#[component]
fn ProbeForm(
    screen: ProbeScreen,
    settings: Option<ProbeSettings>,
    network_id: Signal<String>,
    save: ServerAction<SaveProbe>,
    remove: ServerAction<RemoveProbe>,
) -> impl IntoView {
    let lang = use_lang();
    let pt = probe_texts(lang);
    let service = RwSignal::new(
        settings
            .as_ref()
            .map(|s| s.service.clone())
            .unwrap_or_else(|| screen.services[0].name.clone()),
    );
    // By default an Agent other than the first service's own.
    let first_host = screen.services[0].agent_id.clone();
    let agent = RwSignal::new(
        settings
            .as_ref()
            .map(|s| s.agent_id.clone())
            .unwrap_or_else(|| {
                screen
                    .agents
                    .iter()
                    .find(|a| a.id != first_host)
                    .unwrap_or(&screen.agents[0])
                    .id
                    .clone()
            }),
    );
    let every = RwSignal::new(
        settings
            .as_ref()
            .map_or(EVERY_DEFAULT, |s| s.every_minutes)
            .to_string(),
    );
    let local = RwSignal::new(None::<FieldError>);
    let confirm_open = RwSignal::new(false);
    let remove_error = Signal::derive(move || {
        remove
            .value()
            .get()
            .and_then(|r| r.err())
            .map(|e| e.message(lang))
    });
    let server_error = move || save.value().get().and_then(|r| r.err());
    let field_error = move |field: &'static str| {
        move || {
            local
                .get()
                .filter(|e| e.field == field)
                .map(|e| e.message(lang))
                .or_else(|| {
                    server_error().and_then(|e| e.for_field(field).map(|f| f.message(lang)))
                })
                .map(|m| view! { <p class="field-error" id=format!("probe-{field}-error")>{m}</p> })
        }
    };
    let general = move || {
        server_error()
            .filter(|e| !matches!(e, UiError::Invalid(_)))
            .map(|e| view! { <p class="alert error" role="alert">{e.message(lang)}</p> })
    };
    let saved = move || {
        matches!(save.value().get(), Some(Ok(_)))
            .then(|| view! { <p class="muted" role="status" id="probe-saved">{pt.saved}</p> })
    };
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        // The interval's rule, checked here first as the server checks it.
        let input = ProbeSettings {
            service: service.get_untracked(),
            agent_id: agent.get_untracked(),
            every_minutes: every.get_untracked().trim().parse().unwrap_or(0),
        };
        match input.check() {
            Err(e) => local.set(Some(e)),
            Ok(ok) => {
                local.set(None);
                save.dispatch(SaveProbe {
                    id: network_id.get_untracked(),
                    service: ok.service,
                    agent_id: ok.agent_id,
                    every_minutes: ok.every_minutes,
                });
            }
        }
    };
    let has_settings = settings.is_some();
    let service_options = screen
        .services
        .iter()
        .map(|s| {
            let label = pt
                .service_option
                .replace("{name}", &s.name)
                .replace("{agent}", &s.agent_name);
            let name = s.name.clone();
            let value = name.clone();
            view! { <option value=value selected=move || service.get() == name>{label}</option> }
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
            let id = a.id.clone();
            let value = id.clone();
            view! { <option value=value selected=move || agent.get() == id>{label}</option> }
        })
        .collect_view();
    view! {
        <form id="probe-form" on:submit=submit novalidate>
            {general}
            <label for="probe-service">{pt.field_service}</label>
            <select id="probe-service" name="service" on:change=move |ev| service.set(event_target_value(&ev))>
                {service_options}
            </select>
            {field_error("service")}
            <label for="probe-agent">{pt.field_agent}</label>
            <select id="probe-agent" name="agent_id" on:change=move |ev| agent.set(event_target_value(&ev))>
                {agent_options}
            </select>
            {field_error("agent_id")}
            <label for="probe-every">{pt.field_every}</label>
            <input id="probe-every" name="every_minutes" type="number" inputmode="numeric"
                min=EVERY_MIN.to_string() max=EVERY_MAX.to_string()
                prop:value=move || every.get() on:input=move |ev| every.set(event_target_value(&ev)) />
            {field_error("every_minutes")}
            <p class="form-actions">
                <button type="submit" class="primary" id="probe-save" disabled=move || save.pending().get()>
                    {move || if save.pending().get() { pt.saving } else { pt.save }}
                </button>
                {has_settings.then(|| view! {
                    " "
                    <button type="button" class="danger" id="probe-remove"
                        on:click=move |_| confirm_open.set(true)>{pt.remove}</button>
                })}
            </p>
            {saved}
        </form>
        <ConfirmDialog open=confirm_open title=pt.remove explain=pt.remove_explain confirm_label=pt.remove
            confirm_id="confirm-probe-remove" error=remove_error pending=remove.pending()
            on_confirm=move || {
                remove.dispatch(RemoveProbe { id: network_id.get_untracked() });
                confirm_open.set(false);
            } />
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
