//! A network's setup checklist: the guide's ten steps, each with
//! its state as Control sees it, why it matters and the screen that does it;
//! then the "bootstrap complete" criteria. Follows live updates, so a step
//! turns green while the admin works on it in another tab.
//!
//! The server draws all of it: the checklist is a live region
//! (crate::live_region), Skip a plain form (`plain_action`) whose answer is
//! this page again, and so is the probe panel's form (`probe`). The screen
//! has no island.

use super::layout::Frame;
use super::loaded;
use super::plain_action::{refusal_in_address, RowAction};
use super::probe::ProbePanel;
use crate::api::setup::{load_setup, SkipSetupStep};
use crate::i18n::setup::{knowledge_label, setup_texts, state_label};
use crate::i18n::texts;
use crate::live::use_live;
use crate::live_region::LiveRegion;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};
use protocol::actions::ActionKind;
use protocol::live::LiveTopic;
use protocol::setup::{BootstrapCheck, ChecklistStep, Knowledge, SetupChecklist, StepState};

fn state_badge(state: StepState) -> &'static str {
    match state {
        StepState::Done => "badge ok",
        StepState::NotYet => "badge bad",
        StepState::CantTell => "badge warn",
        StepState::Skipped => "badge",
    }
}

#[component]
pub fn SetupPage() -> impl IntoView {
    let lang = use_lang();
    let st = setup_texts(lang);
    let t = texts(lang);
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    view! {
        <Title text=format!("{} · {}", st.title, t.product) />
        <Frame>
            <p><a href=move || format!("/networks/{}", id.get())>{"← "}{st.back_to_network}</a></p>
            // Drawn again when the full build's client router goes to
            // another network's checklist.
            {move || view! { <SetupBody id=id.get() /> }}
        </Frame>
    }
}

/// The checklist with Skip, and the end-to-end probe. The checklist is
/// read again when an Agent or a job changes (the full build; the islands
/// build draws the region again).
#[component]
fn SetupBody(id: String) -> impl IntoView {
    let lang = use_lang();
    let live = use_live();
    let query = use_query_map();
    let skip_error =
        move || refusal_in_address(&query.read(), &[SkipSetupStep::PATH]).map(|e| e.message(lang));
    let network = StoredValue::new(id);
    let checklist = Resource::new(
        move || (network.get_value(), live.agents(), live.jobs()),
        |(id, ..)| load_setup(id),
    );
    view! {
        <p class="alert error" role="alert" id="skip-error" hidden=move || skip_error().is_none()>
            {skip_error}
        </p>
        <LiveRegion id="setup-live" topics=&[LiveTopic::Agents, LiveTopic::Jobs]>
            {loaded(
                move || async move { checklist.await },
                move |c| view! { <Checklist checklist=c /> },
            )}
        </LiveRegion>
        <ProbePanel network_id=network.get_value() />
    }
}

#[component]
fn Checklist(checklist: SetupChecklist) -> impl IntoView {
    let lang = use_lang();
    let st = setup_texts(lang);
    let summary = checklist.summary();
    let mut progress = st
        .progress
        .replace("{done}", &summary.done.to_string())
        .replace("{total}", &summary.total.to_string());
    if summary.skipped > 0 {
        progress.push_str(" · ");
        progress.push_str(
            &st.progress_skipped
                .replace("{n}", &summary.skipped.to_string()),
        );
    }
    let id = checklist.network_id.clone();
    let steps = checklist
        .steps
        .into_iter()
        .map(|step| view! { <StepItem step network_id=id.clone() /> }.into_any())
        .collect_view();
    let warnings = checklist
        .warnings
        .into_iter()
        .map(|w| view! { <p class="alert" role="status" data-warning="network">{w}</p> })
        .collect_view();
    view! {
        <h1>{st.title}" · "{checklist.network_name}</h1>
        <p class="muted">{st.intro}</p>
        <p id="setup-progress"><strong>{progress}</strong></p>
        {warnings}
        <ol class="setup-steps" id="setup-steps">{steps}</ol>
        <Bootstrap checks=checklist.bootstrap />
    }
}

#[component]
fn StepItem(step: ChecklistStep, network_id: String) -> impl IntoView {
    let lang = use_lang();
    let st = setup_texts(lang);
    let slug = step.step.slug();
    let skipped = step.state == StepState::Skipped;
    let can_skip =
        step.step.skippable() && step.state != StepState::Done && may(ActionKind::EditNetworks);
    let skipped_note = step
        .skipped_by
        .zip(step.skipped_at)
        .map(|(by, at)| st.skipped_by.replace("{by}", &by).replace("{at}", &at));
    // Skip, or take the skip back: one form whose answer is this page again.
    let button = can_skip.then(|| {
        let label = if skipped { st.unskip } else { st.skip };
        let more = vec![
            ("step", slug.to_string()),
            ("skipped", (!skipped).to_string()),
        ];
        view! {
            <RowAction action=SkipSetupStep::PATH id=network_id more class="link-button"
                button_id=format!("skip-{slug}") label />
        }
    });
    view! {
        <li class="card setup-step" id=format!("step-{slug}") data-step=slug data-state=step.state.as_str()>
            <h2>
                {step.step.number()}". "{step.title}" "
                <span class=state_badge(step.state)>{state_label(step.state, lang)}</span>
            </h2>
            <p class="step-detail">{step.detail}</p>
            {step.warning.map(|w| view! { <p class="alert" role="status">{w}</p> })}
            <p class="muted">{st.why}" "{step.why}</p>
            {skipped_note.map(|n| view! { <p class="muted">{n}</p> })}
            <div class="step-actions">
                <a href=step.fix_href>{step.fix_label}</a>
                {button.map(|b| view! { " · " {b} })}
            </div>
        </li>
    }
}

#[component]
fn Bootstrap(checks: Vec<BootstrapCheck>) -> impl IntoView {
    let lang = use_lang();
    let st = setup_texts(lang);
    let items = checks
        .into_iter()
        .map(|c| {
            let (badge, known) = match c.knowledge {
                Knowledge::Proven => ("badge ok", "proven"),
                Knowledge::NotYet => ("badge bad", "not_yet"),
                Knowledge::Unknown => ("badge", "unknown"),
            };
            view! {
                <li data-knowledge=known>
                    <strong>{c.title}</strong>" "
                    <span class=badge>{knowledge_label(c.knowledge, lang)}</span>
                    <br /><span class="muted">{c.detail}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="card" id="bootstrap">
            <h2>{st.bootstrap_title}</h2>
            <p class="muted">{st.bootstrap_intro}</p>
            <ul class="bootstrap-criteria">{items}</ul>
        </section>
    }
}
