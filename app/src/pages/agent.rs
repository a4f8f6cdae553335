//! One Agent: its status and why, its components with their errors and
//! warnings, and the lifecycle actions (disable/enable, move, revoke, delete),
//! each destructive one behind a confirmation that says what it does.

use super::agent_jobs::{latest_jobs, AgentJobs};
use super::badges::agent_badge;
use super::confirm::ConfirmDialog;
use super::infrastructure::{when, TokenSnippets};
use super::layout::Frame;
use super::{loaded, LastSeen};
use crate::api::infra::{get_agent, AgentAction, AgentActionCall, MoveAgent, RemoveLeftoverCall};
use crate::api::jobs::JobListPage;
use crate::error::UiError;
use crate::i18n::infra::infra_texts;
use crate::i18n::texts;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
use protocol::actions::ActionKind;
use protocol::api::{AgentView, ComponentView};
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

/// The Agent, its components and jobs, and its lifecycle actions; re-read
/// when an Agent changes or after an action. An island (crate::islands),
/// lazy and preloaded.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn AgentBody(id: String) -> impl IntoView {
    crate::islands::preload_island("agent_body_loader");
    let id = crate::islands::prop_reader(id);
    let act = ServerAction::<AgentActionCall>::new();
    let moving = ServerAction::<MoveAgent>::new();
    let remove = ServerAction::<RemoveLeftoverCall>::new();
    let live = crate::live::use_live();
    let agent = Resource::new(
        move || {
            (
                id(),
                act.version().get(),
                moving.version().get(),
                remove.version().get(),
                live.agents(),
            )
        },
        |(id, ..)| async move {
            // A malformed ID in the address names no Agent.
            match AgentId::parse(&id) {
                Ok(id) => get_agent(id).await,
                Err(_) => Err(UiError::NotFound),
            }
        },
    );
    let jobs = latest_jobs(Signal::derive(id));
    view! {
        {loaded(
            move || async move { agent.await },
            move |a| view! { <AgentDetails agent=a act moving remove jobs /> }.into_any(),
        )}
        {move || moving.value().get().and_then(|r| r.ok()).map(|created| view! { <TokenSnippets created /> })}
    }
}

#[component]
fn AgentDetails(
    agent: AgentView,
    jobs: Resource<Result<JobListPage, UiError>>,
    act: ServerAction<AgentActionCall>,
    moving: ServerAction<MoveAgent>,
    remove: ServerAction<RemoveLeftoverCall>,
) -> impl IntoView {
    let it = infra_texts(use_lang());
    let retired = agent.status.is_retired();
    // A move can be asked again while no new host has taken the record over.
    let movable = !retired || (agent.status == AgentStatus::Moved && agent.moved_to.is_none());
    let disabled = agent.status == AgentStatus::Disabled;
    let components = agent.components.clone();
    let id = agent.id.clone();
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

        <h2>{it.col_components}</h2>
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
                        view! { <ComponentRow c agent_id remove /> }
                    }).collect_view()}</tbody>
                </table>
            }
                .into_any()
        }}

        <AgentJobs agent_id=id.to_string() jobs />

        {may(ActionKind::ManageAgents).then(|| view! {
            <section class="danger-zone" id="agent-actions">
                <AgentActions id disabled retired movable act moving />
            </section>
        })}
    }
}

#[component]
fn ComponentRow(
    c: ComponentView,
    agent_id: AgentId,
    /// Removes an unmanaged leftover through the shared Jobs server function.
    remove: ServerAction<RemoveLeftoverCall>,
) -> impl IntoView {
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
                    <RemoveLeftover agent_id=agent_id.to_string() component_id=c.id.clone() remove lang />
                })}
            </td>
        </tr>
    }
}

/// The Remove button of an unmanaged leftover, behind a confirmation.
#[component]
fn RemoveLeftover(
    agent_id: String,
    component_id: String,
    remove: ServerAction<RemoveLeftoverCall>,
    lang: crate::i18n::Lang,
) -> impl IntoView {
    let it = infra_texts(lang);
    let open = RwSignal::new(false);
    let error = Signal::derive(move || {
        remove
            .value()
            .get()
            .and_then(|r| r.err())
            .map(|e| e.message(lang))
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = remove.value().get() {
            open.set(false);
        }
    });
    let button_id = format!("remove-{component_id}");
    view! {
        <button type="button" class="danger" id=button_id on:click=move |_| open.set(true)>{it.remove_leftover}</button>
        <ConfirmDialog open title={it.remove_leftover} explain={it.remove_leftover_explain}
            confirm_label={it.remove_leftover} confirm_id="confirm-remove-leftover"
            error pending=remove.pending()
            on_confirm=move || {
                remove.dispatch(RemoveLeftoverCall {
                    agent_id: agent_id.clone(),
                    component_id: component_id.clone(),
                });
            } />
    }
}

/// The buttons, and one confirmation dialog per destructive action.
#[component]
fn AgentActions(
    id: AgentId,
    disabled: bool,
    retired: bool,
    movable: bool,
    act: ServerAction<AgentActionCall>,
    moving: ServerAction<MoveAgent>,
) -> impl IntoView {
    let lang = use_lang();
    let it = infra_texts(lang);
    let navigate = crate::islands::navigator();
    let confirm_disable = RwSignal::new(false);
    let confirm_move = RwSignal::new(false);
    let confirm_revoke = RwSignal::new(false);
    let confirm_delete = RwSignal::new(false);
    let last = RwSignal::new(None::<AgentAction>);
    let error = Signal::derive(move || {
        act.value()
            .get()
            .and_then(|r| r.err())
            .or_else(|| moving.value().get().and_then(|r| r.err()))
            .map(|e| e.message(lang))
    });
    let pending = Signal::derive(move || act.pending().get() || moving.pending().get());
    // Close the dialog once its action succeeded; leave the deleted Agent's page.
    Effect::new(move |_| {
        if let Some(Ok(())) = act.value().get() {
            confirm_disable.set(false);
            confirm_revoke.set(false);
            if last.get_untracked() == Some(AgentAction::Delete) {
                navigate("/infrastructure");
            }
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = moving.value().get() {
            confirm_move.set(false);
        }
    });
    let dispatch = move |id: AgentId, action: AgentAction| {
        last.set(Some(action));
        act.dispatch(AgentActionCall { id, action });
    };
    let (id1, id2, id3, id4, id5) = (id.clone(), id.clone(), id.clone(), id.clone(), id);
    view! {
        <p class="field-error" role="alert">{move || error.get()}</p>
        <div class="actions">
            {(!retired && !disabled).then(|| view! {
                <button type="button" id="disable-agent" on:click=move |_| confirm_disable.set(true)>{it.disable}</button>
            })}
            {(!retired && disabled).then(|| {
                let id = id1.clone();
                view! {
                    <button type="button" id="enable-agent" disabled=move || pending.get()
                        on:click=move |_| dispatch(id.clone(), AgentAction::Enable)>{it.enable}</button>
                }
            })}
            {movable.then(|| view! {
                <button type="button" id="move-agent" on:click=move |_| confirm_move.set(true)>{it.move_agent}</button>
            })}
            {(!retired).then(|| view! {
                <button type="button" class="danger" id="revoke-agent" on:click=move |_| confirm_revoke.set(true)>{it.revoke}</button>
            })}
            <button type="button" class="danger" id="delete-agent" on:click=move |_| confirm_delete.set(true)>{it.delete_agent}</button>
        </div>
        <ConfirmDialog open=confirm_disable title={it.disable} explain={it.disable_explain} confirm_label={it.disable}
            error pending on_confirm=move || dispatch(id2.clone(), AgentAction::Disable) />
        <ConfirmDialog open=confirm_move title={it.move_agent} explain={it.move_explain} confirm_label={it.move_agent}
            error pending on_confirm=move || { moving.dispatch(MoveAgent { id: id3.clone() }); } />
        <ConfirmDialog open=confirm_revoke title={it.revoke} explain={it.revoke_explain} confirm_label={it.revoke}
            error pending on_confirm=move || dispatch(id4.clone(), AgentAction::Revoke) />
        <ConfirmDialog open=confirm_delete title={it.delete_agent} explain={it.delete_agent_explain} confirm_label={it.delete_agent}
            error pending on_confirm=move || dispatch(id5.clone(), AgentAction::Delete) />
    }
}
