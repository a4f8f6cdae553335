//! A network's setup checklist (issue 25): the guide's ten steps, each with
//! its state as Control sees it, why it matters and the screen that does it;
//! then the "bootstrap complete" criteria. Follows live updates, so a step
//! turns green while the admin works on it in another tab.

use super::layout::Frame;
use super::loaded;
use super::probe::ProbePanel;
use crate::api::setup::{load_setup, SkipSetupStep};
use crate::i18n::setup::{knowledge_label, setup_texts, state_label};
use crate::i18n::texts;
use crate::live::use_live;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
use protocol::actions::ActionKind;
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

/// The checklist with Skip, and the end-to-end probe; re-read on live
/// updates. An island (crate::islands), lazy and preloaded.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn SetupBody(id: String) -> impl IntoView {
    crate::islands::preload_island("setup_body_loader");
    let lang = use_lang();
    let id = crate::islands::prop_reader(id);
    let live = use_live();
    let skip = ServerAction::<SkipSetupStep>::new();
    let checklist = Resource::new(
        move || (id(), live.agents(), live.jobs(), skip.version().get()),
        |(id, ..)| load_setup(id),
    );
    let skip_error = move || {
        skip.value().get().and_then(|r| r.err()).map(
            |e| view! { <p class="alert error" role="alert" id="skip-error">{e.message(lang)}</p> },
        )
    };
    view! {
        {skip_error}
        {loaded(
            move || async move { checklist.await },
            move |c| view! { <Checklist checklist=c skip /> },
        )}
        <ProbePanel network_id=Signal::derive(id) />
    }
}

#[component]
fn Checklist(checklist: SetupChecklist, skip: ServerAction<SkipSetupStep>) -> impl IntoView {
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
        .map(|step| view! { <StepItem step network_id=id.clone() skip /> }.into_any())
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
fn StepItem(
    step: ChecklistStep,
    network_id: String,
    skip: ServerAction<SkipSetupStep>,
) -> impl IntoView {
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
    let button = can_skip.then(|| {
        let label = if skipped { st.unskip } else { st.skip };
        view! {
            <button
                type="button"
                class="link-button"
                id=format!("skip-{slug}")
                disabled=move || skip.pending().get()
                on:click=move |_| {
                    skip.dispatch(SkipSetupStep {
                        id: network_id.clone(),
                        step: slug.to_string(),
                        skipped: !skipped,
                    });
                }
            >
                {label}
            </button>
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
            <p class="step-actions">
                <a href=step.fix_href>{step.fix_label}</a>
                {button.map(|b| view! { " · " {b} })}
            </p>
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
