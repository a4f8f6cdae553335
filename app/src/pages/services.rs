//! Services: every published sidecar with its `.knot` address (or why there
//! is none yet), restart and remove behind confirmations, and the form that
//! publishes a service or changes one (which redeploys it, keeping its address).

use super::badges::{agent_badge, component_badge};
use super::choice_search::WithChoices;
use super::confirm::ConfirmDialog;
use super::form_errors::FormErrors;
use super::layout::Frame;
use super::loaded;
use super::on_demand::OnDemand;
use super::service_backup::{backup_cell, follow_backup_jobs, BackupActions};
use super::service_form::{Draft, PublishForm};
use crate::api::infra::list_services_page;
use crate::api::jobs::CreateJob;
use crate::api::list_networks;
use crate::error::UiError;
use crate::i18n::services::service_texts;
use crate::i18n::texts;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos_meta::Title;
use protocol::actions::ActionKind;
use protocol::api::NewJob;
use protocol::services::{address_pending, PublishedService};
use serde_json::json;

/// A job for `agent_id` through the shared Jobs server function.
pub(super) fn job(agent_id: &str, kind: &str, payload: serde_json::Value) -> CreateJob {
    CreateJob {
        job: NewJob {
            agent_id: agent_id.to_string(),
            kind: kind.to_string(),
            payload,
        },
    }
}

#[component]
pub fn ServicesPage() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let st = service_texts(lang);
    let query = leptos_router::hooks::use_query_map();
    let after = Memo::new(move |_| query.read().get("after").filter(|s| !s.is_empty()));
    view! {
        <Title text=format!("{} · {}", st.title, t.product) />
        <Frame>
            <h1>{st.title}</h1>
            <p class="muted">{st.intro}</p>
            // Drawn again when the full build's client router changes the
            // query in place (the pager's links).
            {move || view! { <ServicesBody after=after.get() /> }}
        </Frame>
    }
}

/// The services, restart, remove and backup on each, and the publish form;
/// re-read on live updates and after each job queued here. An island
/// (crate::islands), lazy and preloaded.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn ServicesBody(after: Option<String>) -> impl IntoView {
    crate::islands::preload_island("services_body_loader");
    let lang = use_lang();
    let t = texts(lang);
    let st = service_texts(lang);
    let create = ServerAction::<CreateJob>::new();
    let live = crate::live::use_live();
    let after = crate::islands::prop_reader(after);
    // A finished job (a backup, a verification) changes a row as much as a heartbeat.
    let services = Resource::new(
        move || (after(), create.version().get(), live.agents(), live.jobs()),
        |(after, ..)| list_services_page(after),
    );
    // The table names each service's network.
    let networks = Resource::new(|| (), |_| list_networks(None, None));
    let draft = Draft::new();
    follow_backup_jobs(create, draft.backup_jobs);
    // Restart and remove share the action; their refusals show at the top.
    let errors = FormErrors::of(create, lang);
    view! {
        <p class="field-error" role="alert" id="services-error">{move || errors.general()}</p>
        {loaded(
            move || async move { Ok::<_, UiError>((services.await?, networks.await?)) },
            move |(page, networks)| {
                let next = page.next.clone();
                let services = page.items;
                let table = if services.is_empty() && after().is_none() {
                    view! { <p class="empty" id="services-empty">{st.empty}</p> }.into_any()
                } else {
                    let rows = services
                        .into_iter()
                        .map(|service| {
                            let network_name = service
                                .network_id()
                                .and_then(|id| networks.items.iter().find(|n| n.id.as_str() == id))
                                .map(|n| n.name.clone());
                            view! { <ServiceRow service network_name create draft /> }
                        })
                        .collect_view();
                    view! {
                        <table class="list" id="services-table">
                            <thead><tr>
                                <th scope="col">{st.col_service}</th>
                                <th scope="col">{st.col_address}</th>
                                <th scope="col">{st.col_status}</th>
                                <th scope="col">{st.col_agent}</th>
                                <th scope="col">{st.col_network}</th>
                                <th scope="col">{st.col_target}</th>
                                <th scope="col">{st.col_backup}</th>
                                <th scope="col"></th>
                            </tr></thead>
                            <tbody>{rows}</tbody>
                        </table>
                        <nav class="pager" aria-label="Pages">
                            {after().map(|_| view! { <a href="/services">{t.first_page}</a> })}
                            {next.map(|c| view! {
                                <a href=format!("/services?after={c}") rel="next">{t.next_page}</a>
                            })}
                        </nav>
                    }
                        .into_any()
                };
                table
            },
        )}
        {may(ActionKind::RunJobs).then(|| view! {
            <section class="card" id="publish-service">
                <h2>{move || if draft.editing.get() { st.edit_title } else { st.publish_title }}</h2>
                <p class="muted">{st.publish_intro}</p>
                <p class="muted">{st.keeps_address}</p>
                <OnDemand id="open-publish" label=st.publish_title open=draft.open load=move || publish_section(create, draft) />
            </section>
        })}
    }
}

/// The publish form with its Agent and profile lists, as its own WebAssembly
/// chunk: the Services screen loads without it.
#[lazy]
async fn publish_section(create: ServerAction<CreateJob>, draft: Draft) -> AnyView {
    let form = move |agents, networks, searching| {
        view! { <PublishForm agents networks searching create draft /> }.into_any()
    };
    view! { <WithChoices prefix="service" deployable=true form /> }.into_any()
}

#[component]
fn ServiceRow(
    service: PublishedService,
    network_name: Option<String>,
    create: ServerAction<CreateJob>,
    draft: Draft,
) -> impl IntoView {
    let lang = use_lang();
    let st = service_texts(lang);
    let confirm_restart = RwSignal::new(false);
    let confirm_remove = RwSignal::new(false);
    let pending = address_pending(&service.agent, &service.sidecar);
    let address = match pending {
        None => {
            view! { <code class="knot-address">{service.sidecar.service.clone()}</code> }.into_any()
        }
        Some(reason) => view! {
            <span class="badge warn">{st.not_yet}</span>
            " "<span class="muted pending-reason">{reason.explained(lang)}</span>
        }
        .into_any(),
    };
    let status = if service.sidecar.status.is_reported() {
        let state = service.sidecar.status;
        view! { <span class=component_badge(state)>{state.as_str()}</span> }.into_any()
    } else {
        view! { <span class="muted">{st.not_reported}</span> }.into_any()
    };
    let network = match (service.network_id(), network_name) {
        (Some(id), Some(name)) => view! { <a href=format!("/networks/{id}")>{name}</a> }.into_any(),
        (Some(id), None) => view! { <code class="id">{id.clone()}</code> }.into_any(),
        (None, _) => view! { <span class="muted">"—"</span> }.into_any(),
    };
    let target = service
        .spec
        .as_ref()
        .map(|s| s.target.clone())
        .unwrap_or_default();
    // Every change to a service is a job for its Agent.
    let usable = !service.agent.status.is_retired() && may(ActionKind::RunJobs);
    let (agent_id, component_id) = (service.agent.id.to_string(), service.sidecar.id.clone());
    let (agent2, component2) = (agent_id.clone(), component_id.clone());
    let can_change = service.spec.is_some() && usable;
    let backup = backup_cell(&service, st);
    // Only a sidecar with an address can be backed up and checked against
    // it, by an Agent that takes Docker jobs.
    let backs_up = usable
        && pending.is_none()
        && service.agent.docker_available
        && service.agent.status != protocol::AgentStatus::Disabled;
    let for_backup = service.clone();
    let for_edit = service.clone();
    // The catalog title when there is one, with the name it is deployed under.
    let titled = service.sidecar.catalog.title.is_some();
    view! {
        <tr class="service-row" data-service=service.sidecar.name.clone()>
            <td data-label=st.col_service>
                <strong class="service-title">{service.sidecar.display_name().to_string()}</strong>
                {titled.then(|| view! { " "<code class="muted service-name">{service.sidecar.name.clone()}</code> })}
            </td>
            <td data-label=st.col_address class="service-address">{address}</td>
            <td data-label=st.col_status>{status}</td>
            <td data-label=st.col_agent>
                <a href=format!("/infrastructure/agents/{}", service.agent.id)>{service.agent.name.clone()}</a>
                " "<span class=agent_badge(service.agent.status)>{service.agent.status.as_str()}</span>
            </td>
            <td data-label=st.col_network>{network}</td>
            <td data-label=st.col_target><code>{target}</code></td>
            <td data-label=st.col_backup class="service-backup">{backup}</td>
            <td class="actions">
                {can_change.then(|| view! {
                    <a class="button change-service" href="#publish-service"
                        on:click=move |_| draft.load(&for_edit)>{st.edit}</a>
                })}
                {backs_up.then(|| view! { <BackupActions service=for_backup create draft /> })}
                {usable.then(|| view! {
                    <button type="button" class="restart-service" on:click=move |_| confirm_restart.set(true)>{st.restart}</button>
                    <button type="button" class="danger remove-service" on:click=move |_| confirm_remove.set(true)>{st.remove}</button>
                })}
            </td>
        </tr>
        <ConfirmDialog open=confirm_restart title=st.restart explain=st.restart_explain confirm_label=st.restart
            confirm_id="confirm-restart-service" error=Signal::derive(|| None::<String>) pending=create.pending()
            on_confirm=move || {
                draft.submitted.set(false);
                create.dispatch(job(&agent_id, "restart_component", json!({"component_id": component_id})));
                confirm_restart.set(false);
            } />
        <ConfirmDialog open=confirm_remove title=st.remove explain=st.remove_explain confirm_label=st.remove
            confirm_id="confirm-remove-service" error=Signal::derive(|| None::<String>) pending=create.pending()
            on_confirm=move || {
                draft.submitted.set(false);
                create.dispatch(job(&agent2, "remove_component", json!({"component_id": component2})));
                confirm_remove.set(false);
            } />
    }
}
