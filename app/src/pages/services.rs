//! Services: every published sidecar with its `.knot` address (or why there
//! is none yet), restart and remove behind confirmations, and the form that
//! publishes a service or changes one (which redeploys it, keeping its address).

use super::choice_search::WithChoices;
use super::confirm::ConfirmDialog;
use super::form_errors::FormErrors;
use super::infrastructure::status_class;
use super::layout::Frame;
use super::on_demand::OnDemand;
use super::LoadError;
use crate::api::list_networks;
use crate::i18n::texts;
use crate::i18n_services::{pending_reason, service_texts};
use crate::infra_api::list_services_page;
use crate::jobs_api::CreateJob;
use crate::use_lang;
use leptos::prelude::*;
use leptos_meta::Title;
use protocol::api::{AgentChoice, NetworkProfile, NewJob};
use protocol::services::{address_pending, PublishedService};
use serde_json::json;

/// The publish form's fields; "Change" on a service fills them in.
#[derive(Clone, Copy)]
struct Draft {
    agent_id: RwSignal<String>,
    network_id: RwSignal<String>,
    name: RwSignal<String>,
    target: RwSignal<String>,
    docker_network: RwSignal<String>,
    advertise: RwSignal<String>,
    /// Changing an existing service: its Agent and name are fixed.
    editing: RwSignal<bool>,
    /// This page queued a deployment (kept here: the form is redrawn when the list reloads).
    submitted: RwSignal<bool>,
    /// The form is shown (opened, or a service is being changed).
    open: RwSignal<bool>,
}

impl Draft {
    fn new() -> Self {
        Self {
            agent_id: RwSignal::new(String::new()),
            network_id: RwSignal::new(String::new()),
            name: RwSignal::new(String::new()),
            target: RwSignal::new(String::new()),
            docker_network: RwSignal::new(String::new()),
            advertise: RwSignal::new(String::new()),
            editing: RwSignal::new(false),
            submitted: RwSignal::new(false),
            open: RwSignal::new(false),
        }
    }

    fn load(&self, service: &PublishedService) {
        self.agent_id.set(service.agent.id.clone());
        self.name.set(service.sidecar.name.clone());
        if let Some(spec) = &service.spec {
            self.network_id.set(spec.network_id.to_string());
            self.target.set(spec.target.clone());
            self.docker_network.set(spec.docker_network.clone());
            self.advertise
                .set(spec.advertise.clone().unwrap_or_default());
        }
        self.editing.set(true);
        self.open.set(true);
    }

    fn clear(&self) {
        for field in [
            self.agent_id,
            self.network_id,
            self.name,
            self.target,
            self.docker_network,
            self.advertise,
        ] {
            field.set(String::new());
        }
        self.editing.set(false);
    }
}

/// A job for `agent_id` through the shared Jobs server function.
fn job(agent_id: &str, kind: &str, payload: serde_json::Value) -> CreateJob {
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
    let create = ServerAction::<CreateJob>::new();
    let live = crate::live::use_live();
    let query = leptos_router::hooks::use_query_map();
    let after = move || query.read().get("after").filter(|s| !s.is_empty());
    let services = Resource::new(
        move || (after(), create.version().get(), live.agents()),
        |(after, _, _)| list_services_page(after),
    );
    // The table names each service's network.
    let networks = Resource::new(|| (), |_| list_networks(None, None));
    let draft = Draft::new();
    // Restart and remove share the action; their refusals show at the top.
    let errors = FormErrors::of(create, lang);
    view! {
        <Title text=format!("{} · {}", st.title, t.product) />
        <Frame>
            <h1>{st.title}</h1>
            <p class="muted">{st.intro}</p>
            <p class="field-error" role="alert" id="services-error">{move || errors.general()}</p>
            <Transition fallback=move || view! { <p class="muted">{t.loading}</p> }>
                {move || Suspend::new(async move {
                    match (services.await, networks.await) {
                        (Err(e), _) | (_, Err(e)) => view! { <LoadError error=e /> }.into_any(),
                        (Ok(page), Ok(networks)) => {
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
                        }
                    }
                })}
            </Transition>
            <section class="card" id="publish-service">
                <h2>{move || if draft.editing.get() { st.edit_title } else { st.publish_title }}</h2>
                <p class="muted">{st.publish_intro}</p>
                <p class="muted">{st.keeps_address}</p>
                <OnDemand id="open-publish" label=st.publish_title open=draft.open load=move || publish_section(create, draft) />
            </section>
        </Frame>
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
            " "<span class="muted pending-reason">{pending_reason(reason, lang)}</span>
        }
        .into_any(),
    };
    let status = if service.sidecar.status.is_empty() {
        view! { <span class="muted">{st.not_reported}</span> }.into_any()
    } else {
        let class = if service.sidecar.status == "running" {
            "badge ok"
        } else {
            "badge bad"
        };
        view! { <span class=class>{service.sidecar.status.clone()}</span> }.into_any()
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
    let usable = !matches!(service.agent.status.as_str(), "revoked" | "moved");
    let (agent_id, component_id) = (service.agent.id.clone(), service.sidecar.id.clone());
    let (agent2, component2) = (agent_id.clone(), component_id.clone());
    let can_change = service.spec.is_some() && usable;
    let for_edit = service.clone();
    view! {
        <tr class="service-row" data-service=service.sidecar.name.clone()>
            <td data-label=st.col_service><strong>{service.sidecar.name.clone()}</strong></td>
            <td data-label=st.col_address class="service-address">{address}</td>
            <td data-label=st.col_status>{status}</td>
            <td data-label=st.col_agent>
                <a href=format!("/infrastructure/agents/{}", service.agent.id)>{service.agent.name.clone()}</a>
                " "<span class=status_class(&service.agent.status)>{service.agent.status.clone()}</span>
            </td>
            <td data-label=st.col_network>{network}</td>
            <td data-label=st.col_target><code>{target}</code></td>
            <td class="actions">
                {can_change.then(|| view! {
                    <a class="button change-service" href="#publish-service"
                        on:click=move |_| draft.load(&for_edit)>{st.edit}</a>
                })}
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

/// The publish form, given the Agents (online with Docker) and profiles
/// that match the searches above it.
#[component]
fn PublishForm(
    agents: Vec<AgentChoice>,
    networks: Vec<NetworkProfile>,
    /// An Agent search is narrowing `agents`.
    searching: bool,
    create: ServerAction<CreateJob>,
    draft: Draft,
) -> impl IntoView {
    let lang = use_lang();
    let st = service_texts(lang);
    // A search that hides the chosen entry unchooses it; a service being
    // changed keeps its Agent (the field is locked) and profile.
    if !draft.editing.get_untracked() {
        if !agents
            .iter()
            .any(|a| a.id == draft.agent_id.get_untracked())
        {
            draft.agent_id.set(String::new());
        }
        if !networks
            .iter()
            .any(|n| n.id.as_str() == draft.network_id.get_untracked())
        {
            draft.network_id.set(String::new());
        }
    }
    let eligible = agents;
    let networks = StoredValue::new(networks);
    let chosen_network = move || {
        let id = draft.network_id.get();
        networks.with_value(|list| list.iter().find(|n| n.id.as_str() == id).cloned())
    };
    let without_beacon = move || chosen_network().is_some_and(|n| n.beacons.is_empty());
    let errors = FormErrors::of(create, lang);
    let message_for = move |field: &'static str| errors.for_field(field);
    let queued = move || {
        draft.submitted.get()
            && create.value().get().is_some_and(|r| r.is_ok())
            && !create.pending().get()
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let agent_id = draft.agent_id.get_untracked();
        let beacons = chosen_network().map(|n| n.beacons).unwrap_or_default();
        let mut payload = json!({
            "name": draft.name.get_untracked().trim(),
            "network_id": draft.network_id.get_untracked(),
            "target": draft.target.get_untracked().trim(),
            "docker_network": draft.docker_network.get_untracked().trim(),
            "beacons": beacons,
        });
        let advertise = draft.advertise.get_untracked();
        if !advertise.trim().is_empty() {
            payload["advertise"] = json!(advertise.trim());
        }
        let deploy = job(&agent_id, "deploy_sidecar", payload);
        if errors.check(deploy.job.check()).is_some() {
            draft.submitted.set(true);
            create.dispatch(deploy);
            draft.editing.set(false);
        }
    };
    let no_agents = eligible.is_empty() && !searching;
    let agent_options = eligible
        .into_iter()
        .map(|a| {
            let id = a.id.clone();
            view! { <option value=a.id.clone() selected=move || draft.agent_id.get() == id>{a.name}</option> }
        })
        .collect_view();
    let network_options = networks.with_value(|list| {
        list.iter()
            .map(|n| {
                let id = n.id.to_string();
                view! { <option value=n.id.to_string() selected=move || draft.network_id.get() == id>{n.name.clone()}</option> }
            })
            .collect_view()
    });
    view! {
            {no_agents.then(|| view! { <p class="alert warn" id="services-no-agents">{st.no_agents}</p> })}
            <form on:submit=on_submit novalidate>
                <label for="service-agent">{st.field_agent}</label>
                <select id="service-agent" name="agent_id" disabled=move || draft.editing.get()
                    on:change=move |ev| draft.agent_id.set(event_target_value(&ev))>
                    <option value="">{st.choose_agent}</option>
                    {agent_options}
                </select>
                <p class="field-error" id="service-agent-error">{move || message_for("agent_id")}</p>
                <label for="service-network">{st.field_network}</label>
                <select id="service-network" name="network_id"
                    on:change=move |ev| draft.network_id.set(event_target_value(&ev))>
                    <option value="">{st.choose_network}</option>
                    {network_options}
                </select>
                <p class="field-error" id="service-network-error">{move || message_for("network_id")}</p>
                {move || chosen_network().map(|n| if n.beacons.is_empty() {
                    view! {
                        <p class="alert warn" id="service-no-beacon" role="status">
                            {st.no_beacon}" "<a href=format!("/networks/{}", n.id)>{st.open_profile}</a>
                        </p>
                    }
                        .into_any()
                } else {
                    view! {
                        <p class="muted" id="service-beacons">{st.beacons_used}" "{n.beacons.join(", ")}</p>
                    }
                        .into_any()
                })}
                <p class="field-error" id="service-beacons-error">{move || message_for("beacons")}</p>
                <label for="service-name">{st.field_name}</label>
                <input id="service-name" name="name" maxlength="80" placeholder="web"
                    disabled=move || draft.editing.get()
                    prop:value=move || draft.name.get() on:input=move |ev| draft.name.set(event_target_value(&ev)) />
                <p class="field-error" id="service-name-error">{move || message_for("name")}</p>
                <label for="service-target">{st.field_target}</label>
                <input id="service-target" name="target" placeholder="app:8080"
                    prop:value=move || draft.target.get() on:input=move |ev| draft.target.set(event_target_value(&ev)) />
                <p class="field-error" id="service-target-error">{move || message_for("target")}</p>
                <label for="service-docker-network">{st.field_docker_network}</label>
                <input id="service-docker-network" name="docker_network" placeholder="myapp_default"
                    prop:value=move || draft.docker_network.get()
                    on:input=move |ev| draft.docker_network.set(event_target_value(&ev)) />
                <p class="field-error" id="service-docker-network-error">{move || message_for("docker_network")}</p>
                <details>
                    <summary>{st.advanced}</summary>
                    <label for="service-advertise">{st.field_advertise}</label>
                    <input id="service-advertise" name="advertise" placeholder="203.0.113.10:7447"
                        prop:value=move || draft.advertise.get()
                        on:input=move |ev| draft.advertise.set(event_target_value(&ev)) />
                    <p class="field-error" id="service-advertise-error">{move || message_for("advertise")}</p>
                </details>
                <div class="actions">
                    <button type="submit" class="primary" id="publish-submit"
                        disabled=move || create.pending().get() || without_beacon() || no_agents>
                        {move || if draft.editing.get() { st.redeploy } else { st.publish }}
                    </button>
                    {move || draft.editing.get().then(|| view! {
                        <button type="button" on:click=move |_| draft.clear()>{st.cancel_edit}</button>
                    })}
                </div>
                {move || queued().then(|| view! {
                    <p class="alert" role="status" id="service-queued">
                        {st.queued}" "
                        {create.value().get().and_then(|r| r.ok()).map(|job| view! {
                            <a href=format!("/jobs?agent_id={}", job.agent_id)>{st.see_jobs}</a>
                        })}
                    </p>
                })}
            </form>
    }
}
