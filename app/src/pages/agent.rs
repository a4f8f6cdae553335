//! One Agent: its status and why, its key fingerprint, its components with
//! their errors and warnings, and the lifecycle actions (approve or reject a
//! newcomer; disable/enable, move, revoke, delete), each destructive one
//! behind a confirmation that says what it does.
//!
//! Drawn by the server: the Agent, its components and its latest jobs are a
//! live region (crate::live_region), drawn again when an Agent or a job
//! changes. Enable, Disable, Revoke, Delete and removing a leftover are plain
//! forms (`plain_action`); the destructive ones are links to this page with
//! the question in the address (`ask`, `remove_leftover`), whose confirmation
//! the server draws. Only Move is an island: its answer is an install token,
//! shown once.

use super::agent_jobs::{latest_jobs, AgentJobs};
use super::badges::agent_badge;
use super::infrastructure::{when, TokenSnippets};
use super::layout::Frame;
use super::on_demand::OnDemand;
use super::plain_action::{confirm_address, refusal_in_address, ConfirmAtAddress, RowAction};
use super::{loaded, LastSeen};
use crate::api::infra::{get_agent, AgentActionCall, MoveAgent, RemoveLeftoverCall};
use crate::api::jobs::JobListPage;
use crate::error::UiError;
use crate::i18n::infra::infra_texts;
use crate::i18n::texts;
use crate::islands::{drawn_attribute, start_from};
use crate::live_region::LiveRegion;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};
use leptos_router::params::ParamsMap;
use protocol::actions::ActionKind;
use protocol::api::{AgentView, ComponentView};
use protocol::live::LiveTopic;
use protocol::{AgentId, AgentStatus};

#[component]
pub fn AgentPage() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let it = infra_texts(lang);
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    view! {
        <Title text=format!("{} · {}", it.agent_title, t.product) />
        <Frame>
            <p><a href="/infrastructure">{"← "}{it.back_to_infra}</a></p>
            // Drawn again when the full build's client router goes to
            // another Agent (the link to where it moved).
            {move || view! { <AgentBody id=id.get() /> }}
        </Frame>
    }
}

/// What the address asks to confirm (`?ask=…`, `?remove_leftover=…`).
#[derive(Clone, Debug, PartialEq)]
enum Question {
    Disable,
    Revoke,
    Delete,
    Approve,
    Reject,
    /// Removing the unmanaged leftover with this component ID.
    RemoveLeftover(String),
}

impl Question {
    fn in_address(query: &ParamsMap) -> Option<Self> {
        if let Some(component) = query.get("remove_leftover").filter(|c| !c.is_empty()) {
            return Some(Self::RemoveLeftover(component));
        }
        match query.get_str("ask")? {
            "disable" => Some(Self::Disable),
            "revoke" => Some(Self::Revoke),
            "delete" => Some(Self::Delete),
            "approve" => Some(Self::Approve),
            "reject" => Some(Self::Reject),
            _ => None,
        }
    }
}

/// The Agent's page under its title: the region the server draws, then the
/// lifecycle actions. The actions sit outside the region because Move is an
/// island, which a region drawn again from the server's HTML would replace
/// unhydrated (with the token it shows).
#[component]
fn AgentBody(id: String) -> impl IntoView {
    let lang = use_lang();
    let live = crate::live::use_live();
    let query = use_query_map();
    let manages = may(ActionKind::ManageAgents);
    if manages {
        // Drawn under the Agent's Suspense: its code is named up front.
        crate::islands::preload_island("move_agent_button_loader");
    }
    let asked = StoredValue::new(id);
    // Read again when an Agent changes (the full build; the islands build
    // draws the region again).
    let agent = Resource::new(
        move || (asked.get_value(), live.agents()),
        |(id, _)| read_agent(id),
    );
    let jobs = latest_jobs(Signal::derive(move || asked.get_value()));
    let question = Memo::new(move |_| Question::in_address(&query.read()));
    let refusal = move || {
        refusal_in_address(
            &query.read(),
            &[AgentActionCall::PATH, RemoveLeftoverCall::PATH],
        )
        .map(|e| e.message(lang))
    };
    view! {
        <LiveRegion id="agent-live" topics=&[LiveTopic::Agents, LiveTopic::Jobs]>
            {loaded(
                move || {
                    let question = question.get();
                    async move { agent.await.map(|a| (a, question)) }
                },
                move |(agent, question)| view! { <AgentDetails agent jobs question /> }.into_any(),
            )}
        </LiveRegion>
        <p class="field-error" role="alert" id="agent-action-error">{refusal}</p>
        {manages.then(|| loaded(
            move || {
                let question = question.get();
                async move { agent.await.map(|a| (a, question)) }
            },
            move |(agent, question)| view! { <AgentActions agent question /> }.into_any(),
        ))}
    }
}

/// The Agent the address names; a malformed ID in the address names none.
async fn read_agent(id: String) -> Result<AgentView, UiError> {
    match AgentId::parse(&id) {
        Ok(id) => get_agent(id).await,
        Err(_) => Err(UiError::NotFound),
    }
}

#[component]
fn AgentDetails(
    agent: AgentView,
    jobs: Resource<Result<JobListPage, UiError>>,
    question: Option<Question>,
) -> impl IntoView {
    let it = infra_texts(use_lang());
    let components = agent.components.clone();
    let id = agent.id.clone();
    // The leftover the address asks to remove, if this Agent still has it.
    let removing = match question {
        Some(Question::RemoveLeftover(component)) => components
            .iter()
            .find(|c| c.id == component && c.is_leftover())
            .map(|c| c.id.clone()),
        _ => None,
    }
    .filter(|_| may(ActionKind::RunJobs));
    view! {
        <h1>{agent.name.clone()}</h1>
        <p>
            <span class=agent_badge(agent.status) id="agent-status">{agent.status.as_str()}</span>
            " "<span id="agent-reason">{agent.reason_text.clone()}</span>
        </p>
        <dl class="facts">
            <dt>"Agent ID"</dt><dd><code class="id">{agent.id.to_string()}</code></dd>
            <dt>{it.hostname}</dt><dd>{agent.hostname.clone()}</dd>
            <dt>{it.col_version}</dt><dd>{agent.version.clone()}</dd>
            <dt>{it.docker}</dt>
            <dd>{match (agent.last_heartbeat_at.is_some(), agent.docker_available) {
                (false, _) => "—".to_string(),
                (true, true) => agent.docker_version.clone(),
                (true, false) => it.docker_missing.to_string(),
            }}</dd>
            <dt>{it.tags}</dt><dd>{agent.tags.join(", ")}</dd>
            <dt>{it.key_fingerprint}</dt>
            <dd><code class="fingerprint" id="agent-key-fingerprint">{agent.key_fingerprint.clone()}</code></dd>
            <dt>{it.col_last_heartbeat}</dt>
            <dd><LastSeen at=agent.last_heartbeat_at.clone() secs=agent.last_seen_secs /></dd>
            {agent.moved_to.clone().map(|to| view! {
                <dt>{it.moved_to}</dt>
                <dd><a href=format!("/infrastructure/agents/{to}")><code class="id">{to.to_string()}</code></a></dd>
            })}
            {agent.control_trust.clone().map(|trust| view! {
                <dt>{it.control_pin}</dt>
                <dd id="agent-control-pin">{if trust.pinned_fingerprint.is_empty() {
                    it.control_pin_none.to_string().into_any()
                } else {
                    view! {
                        <code class="fingerprint">{trust.pinned_fingerprint.clone()}</code>
                        " "<span class="muted">{trust.pin_state.clone()}</span>
                    }
                    .into_any()
                }}</dd>
                {trust.refused_at.clone().map(|at| view! {
                    <dt>{it.control_refused}</dt>
                    <dd id="agent-control-refused">
                        {format!("{} · {}", when(&at), trust.refused_count)}
                        <br /><code class="check-detail">{trust.refused_detail.clone()}</code>
                    </dd>
                })}
            })}
        </dl>

        <h2 id="components">{it.col_components}</h2>
        {if components.is_empty() {
            view! { <p class="empty">{it.components_empty}</p> }.into_any()
        } else {
            view! {
                <table class="list" id="components-table">
                    <thead><tr>
                        <th scope="col">{it.col_component}</th>
                        <th scope="col">{it.col_status}</th>
                        <th scope="col">{it.col_image}</th>
                        <th scope="col">{it.col_service}</th>
                        <th scope="col">{it.col_problems}</th>
                    </tr></thead>
                    <tbody>{components.into_iter().map(|c| {
                        let agent_id = id.clone();
                        view! { <ComponentRow c agent_id /> }
                    }).collect_view()}</tbody>
                </table>
            }
                .into_any()
        }}
        {removing.map(|component| view! {
            <ConfirmAtAddress id="remove-leftover-question" explain=it.remove_leftover_explain
                cancel_href=agent_page(&id) cancel_id="cancel-remove-leftover"
                action=RemoveLeftoverCall::PATH field="component_id" value=component.clone()
                more=vec![("agent_id", id.to_string())]
                confirm_id="confirm-remove-leftover" label=it.remove_leftover>
                {it.remove_leftover}" "<code>{component}</code>
            </ConfirmAtAddress>
        })}

        <AgentJobs agent_id=id.to_string() jobs />
    }
}

/// The Agent's page, the address its questions are asked at.
fn agent_page(id: &AgentId) -> String {
    format!("/infrastructure/agents/{id}")
}

#[component]
fn ComponentRow(c: ComponentView, agent_id: AgentId) -> impl IntoView {
    let lang = use_lang();
    let it = infra_texts(lang);
    let leftover = c.is_leftover();
    let removable = leftover && may(ActionKind::RunJobs);
    let status = if c.status.is_reported() {
        c.status.as_str()
    } else {
        it.not_reported
    };
    let class = if !c.last_error.is_empty() {
        "badge bad"
    } else if leftover {
        "badge warn"
    } else {
        "badge ok"
    };
    view! {
        <tr class="component-row">
            <td data-label=it.col_component>
                <code>{c.id.clone()}</code>
                {c.desired.then(|| view! { " "<span class="badge">{it.desired}</span> })}
                {leftover.then(|| view! { " "<span class="badge warn leftover">{it.leftover}</span> })}
            </td>
            <td data-label=it.col_status><span class=class>{status}</span></td>
            <td data-label=it.col_image>{c.image.clone()}</td>
            <td data-label=it.col_service>{c.service.clone()}</td>
            <td data-label=it.col_problems class="problems">
                {(!c.last_error.is_empty()).then(|| view! { <p class="field-error">{c.last_error.clone()}</p> })}
                {c.next_retry_at.as_deref().map(|at| view! { <p class="muted">{it.retry_at}": "{when(at)}</p> })}
                {c.warnings.iter().map(|w| view! { <p class="warn-text">{w.clone()}</p> }).collect_view()}
                {leftover.then(|| view! { <p class="warn-text">{it.leftover_explain}</p> })}
                {removable.then(|| view! {
                    <a class="button danger" id=format!("remove-{}", c.id)
                        href=confirm_address(&agent_page(&agent_id), "remove_leftover", &c.id, "remove-leftover-question")>
                        {it.remove_leftover}
                    </a>
                })}
            </td>
        </tr>
    }
}

/// The lifecycle actions, and the confirmation the address asks for. Enable
/// is a plain form; Disable, Revoke and Delete are links that ask first;
/// Move is an island ([`MoveAgentButton`]).
#[component]
fn AgentActions(agent: AgentView, question: Option<Question>) -> impl IntoView {
    let it = infra_texts(use_lang());
    let retired = agent.status.is_retired();
    // A move can be asked again while no new host has taken the record over.
    let movable = !retired || (agent.status == AgentStatus::Moved && agent.moved_to.is_none());
    let disabled = agent.status == AgentStatus::Disabled;
    let pending = agent.status == AgentStatus::Pending;
    let page = agent_page(&agent.id);
    let id = agent.id.to_string();
    let ask = |what: &str, button_id: &'static str, class: &'static str, label: &'static str| {
        view! {
            <a href=confirm_address(&page, "ask", what, "agent-question") class=class id=button_id>{label}</a>
        }
    };
    // Only what the Agent's state still allows is asked.
    let asked = question.and_then(|q| match q {
        Question::Disable if !retired && !disabled => Some((
            "disable",
            it.disable,
            it.disable_explain,
            "confirm-disable-agent",
        )),
        Question::Revoke if !retired => Some((
            "revoke",
            it.revoke,
            it.revoke_explain,
            "confirm-revoke-agent",
        )),
        Question::Delete => Some((
            "delete",
            it.delete_agent,
            it.delete_agent_explain,
            "confirm-delete-agent",
        )),
        Question::Approve if pending => Some((
            "approve",
            it.approve,
            it.approve_explain,
            "confirm-approve-agent",
        )),
        Question::Reject if pending => Some((
            "reject",
            it.reject,
            it.reject_explain,
            "confirm-reject-agent",
        )),
        _ => None,
    });
    // A pending Agent is approved or rejected; the rest waits until then.
    let settled = !retired && !pending;
    view! {
        <section class="danger-zone" id="agent-actions">
            <div class="actions">
                {pending.then(|| ask("approve", "approve-agent", "button", it.approve))}
                {pending.then(|| ask("reject", "reject-agent", "button danger", it.reject))}
                {(settled && !disabled).then(|| ask("disable", "disable-agent", "button", it.disable))}
                {(settled && disabled).then(|| view! {
                    <RowAction action=AgentActionCall::PATH id=id.clone() more=vec![("action", "enable".to_string())]
                        class="enable-agent" button_id="enable-agent" label=it.enable />
                })}
                {(movable && !pending).then(|| {
                    provide_context(AgentToMove(id.clone()));
                    view! { <MoveAgentButton /> }
                })}
                {settled.then(|| ask("revoke", "revoke-agent", "button danger", it.revoke))}
                {ask("delete", "delete-agent", "button danger", it.delete_agent)}
            </div>
            {asked.map(|(action, title, explain, confirm_id)| view! {
                <ConfirmAtAddress id="agent-question" explain
                    cancel_href=page.clone() cancel_id="cancel-agent-question"
                    action=AgentActionCall::PATH value=id.clone()
                    more=vec![("action", action.to_string())]
                    confirm_id label=title>
                    {title}
                </ConfirmAtAddress>
            })}
        </section>
    }
}

/// Move to a new host. An island (crate::islands), lazy; [`AgentBody`]
/// names its code among the preloads. It holds only the button: the
/// confirmation, with its server-function client, is its own chunk, fetched
/// on the first press (`move_agent_form`). It takes no props, so that its
/// first load carries no JSON decoder: it starts from [`AgentToMove`].
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn MoveAgentButton() -> impl IntoView {
    crate::islands::preload_island("move_agent_button_loader");
    let it = infra_texts(use_lang());
    let open = RwSignal::new(false);
    let AgentToMove(id) = start_from(|| {
        AgentToMove(drawn_attribute(MOVE_START_ID, "data-agent").unwrap_or_default())
    });
    let drawn = id.clone();
    let id = StoredValue::new(id);
    view! {
        <div class="island-start" id=MOVE_START_ID data-agent=drawn>
            <OnDemand id="move-agent" class="" label=it.move_agent open
                load=move || move_agent_form(id.get_value(), open) />
        </div>
    }
}

/// The Agent that [`MoveAgentButton`] moves: its start, as context
/// ([`crate::islands::start_from`]), drawn around it for the islands
/// build's browser.
#[derive(Clone)]
struct AgentToMove(String);

const MOVE_START_ID: &str = "move-agent-start";

/// The Move confirmation as its own WebAssembly chunk.
#[lazy]
async fn move_agent_form(id: String, open: RwSignal<bool>) -> AnyView {
    view! { <MoveAgentForm id open /> }.into_any()
}

/// What moving does, Cancel and Move; once moved, the new install token,
/// shown once, in its place.
#[component]
fn MoveAgentForm(id: String, open: RwSignal<bool>) -> impl IntoView {
    let lang = use_lang();
    let (t, it) = (texts(lang), infra_texts(lang));
    let moving = ServerAction::<MoveAgent>::new();
    let id = StoredValue::new(id);
    // Keyboard focus starts on Cancel, as in the other confirmations.
    let cancel = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(button) = cancel.get() {
            let _ = button.focus();
        }
    });
    let error = move || {
        moving
            .value()
            .get()
            .and_then(|r| r.err())
            .map(|e| e.message(lang))
    };
    let confirm = move |_| {
        // The page only draws the button for an Agent it read.
        if let Ok(id) = AgentId::parse(&id.get_value()) {
            moving.dispatch(MoveAgent { id });
        }
    };
    move || {
        match moving.value().get().and_then(|r| r.ok()) {
        Some(created) => view! { <TokenSnippets created /> }.into_any(),
        None => view! {
            <div class="card confirm-inline" id="move-agent-question" role="alertdialog"
                aria-labelledby="move-agent-title" aria-describedby="move-agent-explain">
                <h3 id="move-agent-title">{it.move_agent}</h3>
                <p id="move-agent-explain">{it.move_explain}</p>
                <p class="field-error" role="alert" id="move-agent-error">{error}</p>
                <div class="actions">
                    <button type="button" id="cancel-move-agent" data-cancel="" node_ref=cancel
                        on:click=move |_| open.set(false)>{t.cancel}</button>
                    <button type="button" class="danger" id="confirm-move-agent"
                        disabled=move || moving.pending().get() on:click=confirm>{it.move_agent}</button>
                </div>
            </div>
        }
        .into_any(),
    }
    }
}
