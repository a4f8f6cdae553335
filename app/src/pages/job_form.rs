//! The form that queues a job: pick the Agent and what to do, fill in only
//! that kind's fields. The payload is checked in the browser with the same
//! `protocol` rules the server applies, and a refusal is shown at its field.

use super::choice_search::WithChoices;
use super::form_errors::FormErrors;
use crate::api::jobs::CreateJob;
use crate::i18n::jobs::jobs_texts;
use crate::use_lang;
use leptos::prelude::*;
use protocol::api::{AgentChoice, NetworkProfile, NewJob};
use serde_json::{json, Map, Value};

pub const KINDS: [&str; 4] = [
    "deploy_sidecar",
    "deploy_beacon",
    "restart_component",
    "remove_component",
];

/// What the form holds, kept by the Jobs page so that narrowing the Agent or
/// profile list (which redraws the form) keeps what was typed.
#[derive(Clone, Copy)]
pub struct JobDraft {
    agent_id: RwSignal<String>,
    kind: RwSignal<String>,
    fields: RwSignal<Fields>,
}

impl JobDraft {
    pub fn new() -> Self {
        Self {
            agent_id: RwSignal::new(String::new()),
            kind: RwSignal::new(KINDS[0].to_string()),
            fields: RwSignal::new(Fields {
                http_port: "18080".into(),
                ..Default::default()
            }),
        }
    }
}

/// The form's fields, as typed.
#[derive(Clone, Default)]
struct Fields {
    name: String,
    network_id: String,
    beacon_url: String,
    advertise: String,
    http_port: String,
    image: String,
    target: String,
    docker_network: String,
    beacons: String,
    component_id: String,
}

/// The JSON payload for `kind` from the typed fields. Numbers that do not
/// parse are sent as text so the shared rule refuses them with its message.
fn payload(kind: &str, f: &Fields) -> Value {
    let mut p = Map::new();
    let mut put = |key: &str, value: &str| {
        p.insert(key.into(), json!(value.trim()));
    };
    match kind {
        "deploy_beacon" => {
            put("name", &f.name);
            put("network_id", &f.network_id);
            put("beacon_url", &f.beacon_url);
            put("advertise", &f.advertise);
            let port = f.http_port.trim();
            p.insert(
                "http_port".into(),
                port.parse::<u64>()
                    .map(Value::from)
                    .unwrap_or_else(|_| json!(port)),
            );
        }
        "deploy_sidecar" => {
            put("name", &f.name);
            put("network_id", &f.network_id);
            put("target", &f.target);
            put("docker_network", &f.docker_network);
            if !f.advertise.trim().is_empty() {
                put("advertise", &f.advertise);
            }
            let beacons: Vec<&str> = f
                .beacons
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            p.insert("beacons".into(), json!(beacons));
        }
        _ => put("component_id", &f.component_id),
    }
    if kind.starts_with("deploy_") && !f.image.trim().is_empty() {
        p.insert("image".into(), json!(f.image.trim()));
    }
    Value::Object(p)
}

/// The form with its Agent and profile lists, as its own WebAssembly chunk:
/// the Jobs screen loads without it.
#[lazy]
pub async fn job_section(draft: JobDraft) -> AnyView {
    // Made here, in the form's own chunk, so that the screen's island does
    // not carry the server-function client.
    let create = ServerAction::<CreateJob>::new();
    let form = move |agents, networks, searching| {
        view! { <JobForm agents networks searching create draft /> }.into_any()
    };
    view! { <WithChoices prefix="job" deployable=false form /> }.into_any()
}

/// The form, given the Agents (not revoked or moved) and profiles that match
/// the searches above it.
#[component]
fn JobForm(
    agents: Vec<AgentChoice>,
    networks: Vec<NetworkProfile>,
    /// An Agent search is narrowing `agents`.
    searching: bool,
    create: ServerAction<CreateJob>,
    draft: JobDraft,
) -> impl IntoView {
    let lang = use_lang();
    let jt = jobs_texts(lang);
    if agents.is_empty() && !searching {
        return view! {
            <p class="empty" id="jobs-no-agents">{jt.no_agents}" "<a href="/infrastructure">{"→"}</a></p>
        }
        .into_any();
    }
    let JobDraft {
        agent_id,
        kind,
        fields,
    } = draft;
    // A search that hides the chosen entry unchooses it.
    if !agents
        .iter()
        .any(|a| a.id.as_str() == agent_id.get_untracked())
    {
        agent_id.set(String::new());
    }
    if !networks
        .iter()
        .any(|n| fields.with_untracked(|f| f.network_id == n.id.as_str()))
    {
        fields.update(|f| f.network_id.clear());
    }
    let errors = FormErrors::of(create, lang);
    let message_for = move |field: &'static str| errors.for_field(field);
    let networks_for_change = networks.clone();
    let on_network = move |ev: leptos::ev::Event| {
        let id = event_target_value(&ev);
        // Prefill a sidecar's Beacons from the chosen profile.
        let beacons = networks_for_change
            .iter()
            .find(|n| n.id.to_string() == id)
            .map(|n| n.beacons.join("\n"))
            .unwrap_or_default();
        fields.update(|f| {
            f.network_id = id;
            if f.beacons.trim().is_empty() {
                f.beacons = beacons;
            }
        });
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let agent = agent_id.get_untracked();
        let kind = kind.get_untracked();
        let payload = fields.with_untracked(|f| payload(&kind, f));
        let job = NewJob {
            agent_id: agent,
            kind,
            payload,
        };
        if errors.check(job.check()).is_none() {
            return;
        }
        create.dispatch(CreateJob { job });
    };
    // One labelled input bound to one field of `fields`.
    let input = move |id: &'static str,
                      label: &'static str,
                      field: &'static str,
                      get: fn(&Fields) -> String,
                      set: fn(&mut Fields, String)| {
        view! {
            <label for=id>{label}</label>
            <input id=id prop:value=move || fields.with(get)
                on:input=move |ev| { let v = event_target_value(&ev); fields.update(|f| set(f, v)); } />
            <p class="field-error" id=format!("{id}-error")>{move || message_for(field)}</p>
        }
    };
    let is = move |k: &'static str| move || kind.get() == k;
    let deploy = move || kind.get().starts_with("deploy_");
    view! {
            <form on:submit=on_submit novalidate>
                <label for="job-agent">{jt.field_agent}</label>
                <select id="job-agent" on:change=move |ev| agent_id.set(event_target_value(&ev))>
                    <option value="">{jt.select_agent}</option>
                    {agents.into_iter().map(|a| {
                        let id = a.id.to_string();
                        view! {
                            <option value=a.id.to_string() selected=move || agent_id.get() == id>{format!("{} ({})", a.name, a.status)}</option>
                        }
                    }).collect_view()}
                </select>
                <p class="field-error" id="job-agent-error">{move || message_for("agent_id")}</p>
                <label for="job-kind">{jt.field_kind}</label>
                <select id="job-kind" on:change=move |ev| { kind.set(event_target_value(&ev)); errors.clear(); }>
                    {KINDS.iter().map(|k| view! { <option value=*k selected=move || kind.get() == *k>{jt.kind(k)}</option> }).collect_view()}
                </select>
                <Show when=deploy>
                    {input("job-name", jt.field_slug, "name", |f| f.name.clone(), |f, v| f.name = v)}
                    <label for="job-network">{jt.field_network}</label>
                    <select id="job-network" on:change=on_network.clone()>
                        <option value="">{jt.select_network}</option>
                        {networks.iter().map(|n| {
                            let id = n.id.to_string();
                            view! { <option value=n.id.to_string() selected=move || fields.with(|f| f.network_id == id)>{n.name.clone()}</option> }
                        }).collect_view()}
                    </select>
                    <p class="field-error" id="job-network-error">{move || message_for("network_id")}</p>
                </Show>
                <Show when=is("deploy_beacon")>
                    {input("job-beacon-url", jt.field_beacon_url, "beacon_url", |f| f.beacon_url.clone(), |f, v| f.beacon_url = v)}
                    {input("job-advertise", jt.field_advertise, "advertise", |f| f.advertise.clone(), |f, v| f.advertise = v)}
                    {input("job-http-port", jt.field_http_port, "http_port", |f| f.http_port.clone(), |f, v| f.http_port = v)}
                </Show>
                <Show when=is("deploy_sidecar")>
                    {input("job-target", jt.field_target, "target", |f| f.target.clone(), |f, v| f.target = v)}
                    {input("job-docker-network", jt.field_docker_network, "docker_network", |f| f.docker_network.clone(), |f, v| f.docker_network = v)}
                    <label for="job-beacons">{jt.field_beacons}</label>
                    <textarea id="job-beacons" rows="3" prop:value=move || fields.with(|f| f.beacons.clone())
                        on:input=move |ev| { let v = event_target_value(&ev); fields.update(|f| f.beacons = v); }></textarea>
                    <p class="field-error" id="job-beacons-error">{move || message_for("beacons")}</p>
                    {input("job-advertise-optional", jt.field_advertise_optional, "advertise", |f| f.advertise.clone(), |f, v| f.advertise = v)}
                </Show>
                <Show when=deploy>
                    {input("job-image", jt.field_image, "image", |f| f.image.clone(), |f, v| f.image = v)}
                </Show>
                <Show when=move || !deploy()>
                    {input("job-component", jt.field_component_id, "component_id", |f| f.component_id.clone(), |f, v| f.component_id = v)}
                </Show>
                <p class="field-error" role="alert" id="job-error">{move || errors.general()}</p>
                <button type="submit" class="primary" id="queue-job" disabled=move || create.pending().get()>{jt.queue_job}</button>
                {move || create.value().get().and_then(|r| r.ok()).map(|job| view! {
                    <p class="saved" role="status" id="job-queued">{jt.queued}" "<code>{job.id.to_string()}</code></p>
                })}
            </form>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::jobs::JobPayload;

    #[test]
    fn the_form_builds_payloads_the_shared_rules_accept() {
        let network = protocol::NetworkId::from_random_bytes([1; 32]).to_string();
        let sidecar = Fields {
            name: "Web".into(),
            network_id: network.clone(),
            target: "app:8080".into(),
            docker_network: "apps".into(),
            beacons: "https://b.example.net\n\n".into(),
            ..Default::default()
        };
        assert!(
            JobPayload::parse_new("deploy_sidecar", &payload("deploy_sidecar", &sidecar)).is_ok()
        );
        let beacon = Fields {
            name: "main".into(),
            network_id: network,
            beacon_url: "https://b.example.net".into(),
            advertise: "b.example.net:7447".into(),
            http_port: "eighty".into(),
            ..Default::default()
        };
        let refused =
            JobPayload::parse_new("deploy_beacon", &payload("deploy_beacon", &beacon)).unwrap_err();
        assert_eq!(refused.field, "http_port");
    }
}
