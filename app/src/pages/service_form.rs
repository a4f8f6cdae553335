//! The form that publishes a service on the Services screen, or changes one
//! ("Change" fills it in and redeploys: same Agent, same name, so the same
//! component and volume, and the `.knot` address stays). Its catalog entry is
//! what the KnotRoute apps show. Checked in the browser by the same
//! `protocol` rules as the server; a refusal shows at its field.

use super::form_errors::FormErrors;
use super::services::job;
use crate::api::jobs::CreateJob;
use crate::i18n::services::service_texts;
use crate::use_lang;
use leptos::prelude::*;
use protocol::api::{AgentChoice, JobView, NetworkProfile};
use protocol::catalog::split_tags;
use protocol::services::PublishedService;
use serde_json::json;

/// The publish form's fields; "Change" on a service fills them in.
#[derive(Clone, Copy)]
pub struct Draft {
    pub(super) agent_id: RwSignal<String>,
    pub(super) network_id: RwSignal<String>,
    pub(super) name: RwSignal<String>,
    pub(super) target: RwSignal<String>,
    pub(super) docker_network: RwSignal<String>,
    pub(super) advertise: RwSignal<String>,
    /// The catalog entry, as typed (tags separated by commas).
    pub(super) title: RwSignal<String>,
    pub(super) description: RwSignal<String>,
    pub(super) tags: RwSignal<String>,
    pub(super) category: RwSignal<String>,
    pub(super) scheme: RwSignal<String>,
    /// Changing an existing service: its Agent and name are fixed.
    pub(super) editing: RwSignal<bool>,
    /// This page queued a deployment (kept here: the form is redrawn when the list reloads).
    pub(super) submitted: RwSignal<bool>,
    /// The form is shown (opened, or a service is being changed).
    pub(super) open: RwSignal<bool>,
    /// The backups and verifications this page queued, as last read
    /// (`service_backup::follow_backup_jobs`). Kept here because every row is
    /// redrawn when the list reloads, which a queued job itself makes it do.
    pub(super) backup_jobs: RwSignal<Vec<JobView>>,
}

impl Draft {
    pub(super) fn new() -> Self {
        Self {
            agent_id: RwSignal::new(String::new()),
            network_id: RwSignal::new(String::new()),
            name: RwSignal::new(String::new()),
            target: RwSignal::new(String::new()),
            docker_network: RwSignal::new(String::new()),
            advertise: RwSignal::new(String::new()),
            title: RwSignal::new(String::new()),
            description: RwSignal::new(String::new()),
            tags: RwSignal::new(String::new()),
            category: RwSignal::new(String::new()),
            scheme: RwSignal::new(String::new()),
            editing: RwSignal::new(false),
            submitted: RwSignal::new(false),
            open: RwSignal::new(false),
            backup_jobs: RwSignal::new(Vec::new()),
        }
    }

    pub(super) fn load(&self, service: &PublishedService) {
        self.agent_id.set(service.agent.id.to_string());
        self.name.set(service.sidecar.name.clone());
        if let Some(spec) = &service.spec {
            self.network_id.set(spec.network_id.to_string());
            self.target.set(spec.target.clone());
            self.docker_network.set(spec.docker_network.clone());
            self.advertise
                .set(spec.advertise.clone().unwrap_or_default());
            let catalog = &spec.catalog;
            self.title.set(catalog.title.clone().unwrap_or_default());
            self.description
                .set(catalog.description.clone().unwrap_or_default());
            self.tags.set(catalog.tags.join(", "));
            self.category
                .set(catalog.category.clone().unwrap_or_default());
            self.scheme.set(
                catalog
                    .scheme
                    .map(|s| s.as_str().to_string())
                    .unwrap_or_default(),
            );
        }
        self.editing.set(true);
        self.open.set(true);
    }

    pub(super) fn clear(&self) {
        for field in [
            self.agent_id,
            self.network_id,
            self.name,
            self.target,
            self.docker_network,
            self.advertise,
            self.title,
            self.description,
            self.tags,
            self.category,
            self.scheme,
        ] {
            field.set(String::new());
        }
        self.editing.set(false);
    }
}

/// The publish form, given the Agents (online with Docker) and profiles
/// that match the searches above it.
#[component]
pub(super) fn PublishForm(
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
