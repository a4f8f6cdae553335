//! "Deploy new Beacon": the wizard that queues a `deploy_beacon` job on an
//! online Agent with Docker. Checked in the browser with the same
//! `JobPayload::parse_new` the server applies; refusals appear at their field.

use super::choice_search::WithChoices;
use super::form_errors::FormErrors;
use super::on_demand::OnDemand;
use crate::api::jobs::CreateJob;
use crate::i18n::deploy::deploy_texts;
use crate::use_lang;
use leptos::prelude::*;
use protocol::api::{AgentChoice, NetworkProfile, NewJob};
use protocol::jobs::DEFAULT_BEACON_HTTP_PORT;
use serde_json::json;

/// The payload the form's fields make. A port that is not a number is sent
/// as text, so the check refuses it at its field.
fn payload(network: &str, name: &str, url: &str, advertise: &str, port: &str) -> serde_json::Value {
    let port = port.trim();
    let http_port = if port.is_empty() {
        json!(DEFAULT_BEACON_HTTP_PORT)
    } else {
        port.parse::<u64>()
            .map(|p| json!(p))
            .unwrap_or_else(|_| json!(port))
    };
    json!({
        "name": name.trim(),
        "network_id": network,
        "beacon_url": url.trim(),
        "advertise": advertise.trim(),
        "http_port": http_port,
    })
}

/// The wizard's card: what it is for, then the form on request.
#[component]
pub fn DeployBeaconCard() -> impl IntoView {
    let lang = use_lang();
    let dt = deploy_texts(lang);
    let open = RwSignal::new(false);
    view! {
        <section class="card" id="deploy-beacon">
            <h2>{dt.title}</h2>
            <p class="muted">{dt.intro}</p>
            <p class="alert warn">{dt.not_for_running}</p>
            <OnDemand id="open-deploy" label=dt.title open load=deploy_beacon_form />
        </section>
    }
}

/// The form as its own WebAssembly chunk: the Beacons tab loads without it.
#[lazy]
async fn deploy_beacon_form() -> AnyView {
    view! { <DeployBeaconForm /> }.into_any()
}

#[component]
fn DeployBeaconForm() -> impl IntoView {
    let lang = use_lang();
    let dt = deploy_texts(lang);
    let create = ServerAction::<CreateJob>::new();
    let agent = RwSignal::new(String::new());
    let network = RwSignal::new(String::new());
    let name = RwSignal::new(String::new());
    let url = RwSignal::new(String::new());
    let advertise = RwSignal::new(String::new());
    let port = RwSignal::new(DEFAULT_BEACON_HTTP_PORT.to_string());
    let errors = FormErrors::of(create, lang);
    let message_for = move |field: &'static str| errors.for_field(field);
    let queued = move || create.value().get().and_then(|r| r.ok());
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let agent_id = agent.get_untracked();
        let body = payload(
            &network.get_untracked(),
            &name.get_untracked(),
            &url.get_untracked(),
            &advertise.get_untracked(),
            &port.get_untracked(),
        );
        let job = NewJob {
            agent_id,
            kind: "deploy_beacon".into(),
            payload: body,
        };
        if errors.check(job.check()).is_some() {
            create.dispatch(CreateJob { job });
        }
    };
    let text_field = move |id: &'static str,
                           field: &'static str,
                           label: &'static str,
                           help: &'static str,
                           placeholder: &'static str,
                           value: RwSignal<String>| {
        view! {
            <label for=id>{label}</label>
            <input id=id name=field placeholder=placeholder aria-describedby=format!("{id}-help")
                aria-invalid=move || message_for(field).is_some().then_some("true")
                prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) />
            <p class="help" id=format!("{id}-help")>{help}</p>
            <p class="field-error" id=format!("{id}-error")>{move || message_for(field)}</p>
        }
    };
    let form = move |agents: Vec<AgentChoice>, networks: Vec<NetworkProfile>, searching: bool| {
        // A search that hides the chosen entry unchooses it.
        if !agents
            .iter()
            .any(|a| a.id.as_str() == agent.get_untracked())
        {
            agent.set(String::new());
        }
        if !networks
            .iter()
            .any(|n| n.id.as_str() == network.get_untracked())
        {
            network.set(String::new());
        }
        let no_agents = agents.is_empty() && !searching;
        let agent_options = agents
                                .into_iter()
                                .map(|a| {
                                    let id = a.id.to_string();
                                    view! { <option value=a.id.to_string() selected=move || agent.get() == id>{a.name}</option> }
                                })
                                .collect_view();
        let network_options = networks
                                .into_iter()
                                .map(|n| {
                                    let id = n.id.to_string();
                                    view! { <option value=n.id.to_string() selected=move || network.get() == id>{n.name}</option> }
                                })
                                .collect_view();
        view! {
                                {no_agents.then(|| view! { <p class="alert warn" id="deploy-no-agents">{dt.no_agents}</p> })}
                                <form on:submit=on_submit novalidate>
                                    <label for="deploy-agent">{dt.field_agent}</label>
                                    <select id="deploy-agent" name="agent_id" aria-describedby="deploy-agent-help"
                                        on:change=move |ev| agent.set(event_target_value(&ev))>
                                        <option value="">{dt.choose_agent}</option>
                                        {agent_options}
                                    </select>
                                    <p class="help" id="deploy-agent-help">{dt.agent_help}</p>
                                    <p class="field-error" id="deploy-agent-error">{move || message_for("agent_id")}</p>
                                    <label for="deploy-network">{dt.field_network}</label>
                                    <select id="deploy-network" name="network_id"
                                        on:change=move |ev| network.set(event_target_value(&ev))>
                                        <option value="">{dt.choose_network}</option>
                                        {network_options}
                                    </select>
                                    <p class="field-error" id="deploy-network-error">{move || message_for("network_id")}</p>
                                    {text_field("deploy-name", "name", dt.field_name, dt.name_help, "edge-1", name)}
                                    {text_field("deploy-url", "beacon_url", dt.field_url, dt.url_help, "https://beacon.example.net", url)}
                                    {text_field("deploy-advertise", "advertise", dt.field_advertise, dt.advertise_help, "beacon.example.net:7447", advertise)}
                                    {text_field("deploy-http-port", "http_port", dt.field_http_port, dt.http_port_help, "18080", port)}
                                    <p class="field-error" role="alert" id="deploy-refused">{move || errors.general()}</p>
                                    <button type="submit" class="primary" id="deploy-submit"
                                        disabled=move || create.pending().get() || no_agents>
                                        {dt.submit}
                                    </button>
                                </form>
                            }
                                .into_any()
    };
    view! {
            <WithChoices prefix="deploy" deployable=true form />
            {move || queued().map(|job| view! {
                <p class="alert" role="status" id="deploy-queued">
                    {dt.queued}" "<a href=format!("/jobs/{}", job.id) id="deploy-job-link">{dt.open_job}</a>
                    <br />{dt.then_add}
                </p>
            })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::jobs::JobPayload;

    fn network() -> String {
        protocol::NetworkId::from_random_bytes([1; 32]).to_string()
    }

    #[test]
    fn the_form_makes_a_payload_the_server_accepts() {
        let body = payload(
            &network(),
            " edge-1 ",
            "https://b.example.net",
            "b.example.net:7447",
            "18081",
        );
        let parsed = JobPayload::parse_new("deploy_beacon", &body).expect("valid");
        assert_eq!(parsed.component_id(), "beacon-edge-1");
        assert_eq!(body["http_port"], 18081);
    }

    #[test]
    fn a_port_that_is_not_a_number_is_refused_at_its_field() {
        let body = payload(
            &network(),
            "edge-1",
            "https://b.example.net",
            "b.example.net:7447",
            "http",
        );
        let refused = JobPayload::parse_new("deploy_beacon", &body).unwrap_err();
        assert_eq!(refused.field, "http_port");
    }
}
