//! The form that publishes a service on the Services screen, or changes one
//! ("Change" fills it in and redeploys: same Agent, same name, so the same
//! component and volume, and the `.knot` address stays). Its catalog entry is
//! what the KnotRoute apps show. Checked in the browser by the same
//! `protocol` rules as the server; a refusal shows at its field.

use super::choice_search::WithChoices;
use super::form_errors::FormErrors;
use super::on_demand::OnDemand;
use crate::api::jobs::CreateJob;
use crate::i18n::services::service_texts;
use crate::islands::{start_from, DrawnJson};
use crate::use_lang;
use leptos::prelude::*;
use protocol::api::{AgentChoice, NetworkProfile, NewJob};
use protocol::catalog::split_tags;
use protocol::services::PublishedService;
use serde_json::json;

/// A service's fields as the publish form starts from them when "Change"
/// opens it (`?edit=`): read by the server, handed to the form as
/// [`ServiceToChange`]. Plain text only, so that the form decodes no service.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ServiceDraft {
    agent_id: String,
    network_id: String,
    name: String,
    target: String,
    docker_network: String,
    advertise: String,
    title: String,
    description: String,
    /// Separated by commas, as typed.
    tags: String,
    category: String,
    scheme: String,
}

impl ServiceDraft {
    /// `service` as Control deployed it; none when Control did not.
    pub fn of(service: &PublishedService) -> Option<Self> {
        let spec = service.spec.as_ref()?;
        let catalog = &spec.catalog;
        Some(Self {
            agent_id: service.agent.id.to_string(),
            network_id: spec.network_id.to_string(),
            name: service.sidecar.name.clone(),
            target: spec.target.clone(),
            docker_network: spec.docker_network.clone(),
            advertise: spec.advertise.clone().unwrap_or_default(),
            title: catalog.title.clone().unwrap_or_default(),
            description: catalog.description.clone().unwrap_or_default(),
            tags: catalog.tags.join(", "),
            category: catalog.category.clone().unwrap_or_default(),
            scheme: catalog
                .scheme
                .map(|s| s.as_str().to_string())
                .unwrap_or_default(),
        })
    }
}

/// The publish form behind its button; with a [`ServiceToChange`] (the
/// page's `?edit=`), opened with that service filled in once the page is
/// interactive (the server draws the button, and hydration finds what it
/// drew). An island (crate::islands), lazy and preloaded: it holds only the
/// button, and the form with its server-function client is its own chunk
/// (`publish_section`). It takes no props, so that its first load carries
/// no JSON decoder.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
pub(super) fn PublishService() -> impl IntoView {
    crate::islands::preload_island("publish_service_loader");
    let st = service_texts(use_lang());
    let open = RwSignal::new(false);
    let ServiceToChange(editing) =
        start_from(|| ServiceToChange(DrawnJson::drawn(PUBLISH_START_ID)));
    let drawn = editing.as_ref().map(DrawnJson::text);
    let editing = StoredValue::new(editing);
    Effect::new(move |_| {
        if editing.with_value(Option::is_some) {
            open.set(true);
        }
    });
    view! {
        <div class="island-start" id=PUBLISH_START_ID data-start=drawn>
            <OnDemand id="open-publish" label=st.publish_title open
                load=move || publish_section(editing.get_value()) />
        </div>
    }
}

/// The service that "Change" opened the form with (`?edit=`), if any:
/// [`PublishService`]'s start, provided by the Services screen on the
/// server. Only the form decodes it.
#[derive(Clone)]
pub(super) struct ServiceToChange(pub Option<DrawnJson<ServiceDraft>>);

const PUBLISH_START_ID: &str = "publish-start";

/// The publish form with its Agent and profile lists, as its own WebAssembly
/// chunk: the Services screen loads without it.
#[lazy]
async fn publish_section(editing: Option<DrawnJson<ServiceDraft>>) -> AnyView {
    let create = ServerAction::<CreateJob>::new();
    let draft = Draft::new(editing.map(|drawn| drawn.value()));
    let form = move |agents, networks, searching| {
        view! { <PublishForm agents networks searching create draft /> }.into_any()
    };
    view! { <WithChoices prefix="service" deployable=true form /> }.into_any()
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

/// The publish form's fields; "Change" on a service fills them in.
#[derive(Clone, Copy)]
struct Draft {
    agent_id: RwSignal<String>,
    network_id: RwSignal<String>,
    name: RwSignal<String>,
    target: RwSignal<String>,
    docker_network: RwSignal<String>,
    advertise: RwSignal<String>,
    /// The catalog entry, as typed (tags separated by commas).
    title: RwSignal<String>,
    description: RwSignal<String>,
    tags: RwSignal<String>,
    category: RwSignal<String>,
    scheme: RwSignal<String>,
    /// Changing an existing service: its Agent and name are fixed.
    editing: RwSignal<bool>,
    /// This page queued a deployment (kept here: the form is redrawn when a
    /// search changes its choices).
    submitted: RwSignal<bool>,
}

impl Draft {
    /// Empty, or the service being changed.
    fn new(editing: Option<ServiceDraft>) -> Self {
        let changing = editing.is_some();
        let d = editing.unwrap_or_default();
        Self {
            agent_id: RwSignal::new(d.agent_id),
            network_id: RwSignal::new(d.network_id),
            name: RwSignal::new(d.name),
            target: RwSignal::new(d.target),
            docker_network: RwSignal::new(d.docker_network),
            advertise: RwSignal::new(d.advertise),
            title: RwSignal::new(d.title),
            description: RwSignal::new(d.description),
            tags: RwSignal::new(d.tags),
            category: RwSignal::new(d.category),
            scheme: RwSignal::new(d.scheme),
            editing: RwSignal::new(changing),
            submitted: RwSignal::new(false),
        }
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
            .any(|a| a.id.as_str() == draft.agent_id.get_untracked())
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
        // Optional fields go only when given, so an older Agent's payload is unchanged.
        let optional = [
            ("advertise", draft.advertise),
            ("title", draft.title),
            ("description", draft.description),
            ("category", draft.category),
            ("scheme", draft.scheme),
        ];
        for (key, field) in optional {
            let value = field.get_untracked();
            if !value.trim().is_empty() {
                payload[key] = json!(value.trim());
            }
        }
        let tags = split_tags(&draft.tags.get_untracked());
        if !tags.is_empty() {
            payload["tags"] = json!(tags);
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
            let id = a.id.to_string();
            view! { <option value=a.id.to_string() selected=move || draft.agent_id.get() == id>{a.name}</option> }
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
                <input id="service-name" name="name" maxlength="63" placeholder="web"
                    aria-describedby="service-name-rule" disabled=move || draft.editing.get()
                    prop:value=move || draft.name.get() on:input=move |ev| draft.name.set(event_target_value(&ev)) />
                <p class="muted" id="service-name-rule">{st.name_rule}</p>
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
                <CatalogFields draft errors />
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
                    // Back to the page without the service it was changing.
                    {move || draft.editing.get().then(|| view! {
                        <a class="button" href="/services#publish-service" id="cancel-edit">{st.cancel_edit}</a>
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

/// The catalog entry's fields: what the KnotRoute apps show for the service.
#[component]
fn CatalogFields(draft: Draft, errors: FormErrors) -> impl IntoView {
    let st = service_texts(use_lang());
    let message_for = move |field: &'static str| errors.for_field(field);
    let text = move |id: &'static str,
                     label: &'static str,
                     field: &'static str,
                     max: &'static str,
                     value: RwSignal<String>| {
        view! {
            <label for=id>{label}</label>
            <input id=id name=field maxlength=max prop:value=move || value.get()
                on:input=move |ev| value.set(event_target_value(&ev)) />
            <p class="field-error" id=format!("{id}-error")>{move || message_for(field)}</p>
        }
    };
    view! {
        <fieldset id="service-catalog">
            <legend>{st.catalog}</legend>
            <p class="muted">{st.catalog_intro}</p>
            {text("service-title", st.field_title, "title", "80", draft.title)}
            {text("service-description", st.field_description, "description", "500", draft.description)}
            {text("service-tags", st.field_tags, "tags", "400", draft.tags)}
            {text("service-category", st.field_category, "category", "40", draft.category)}
            <label for="service-scheme">{st.field_scheme}</label>
            <select id="service-scheme" name="scheme" on:change=move |ev| draft.scheme.set(event_target_value(&ev))>
                <option value="" selected=move || draft.scheme.get().is_empty()>{st.scheme_any}</option>
                <option value="https" selected=move || draft.scheme.get() == "https">"https"</option>
                <option value="http" selected=move || draft.scheme.get() == "http">"http"</option>
            </select>
            <p class="field-error" id="service-scheme-error">{move || message_for("scheme")}</p>
        </fieldset>
    }
}
