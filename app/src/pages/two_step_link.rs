//! The People tab's two-step setup link: for a person who signs in with a
//! password and has not set two-step sign-in up, a one-time link, shown
//! once (`domain::access::second_factor::setup_link`). An island, because
//! its answer is that link; the form, with its server-function client, is
//! its own chunk, fetched on the first press, as the invitation's is.

use super::infrastructure::when;
use super::on_demand::OnDemand;
use crate::api::two_step::CreateTwoStepLink;
use crate::i18n::two_step::two_step_texts;
use crate::islands::{start_from, DrawnJson};
use crate::use_lang;
use leptos::prelude::*;
use protocol::UserId;

/// "Two-step setup link" and, once pressed, its form. An island, lazy and
/// preloaded; it takes no props and starts from [`SetupCandidates`].
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
pub(super) fn TwoStepSetupLink() -> impl IntoView {
    crate::islands::preload_island("two_step_setup_link_loader");
    let tt = two_step_texts(use_lang());
    let open = RwSignal::new(false);
    let SetupCandidates(people) =
        start_from(|| SetupCandidates(DrawnJson::drawn(START_ID).unwrap_or_default()));
    let drawn = people.text();
    let people = StoredValue::new(people);
    view! {
        <div class="island-start" id=START_ID data-start=drawn>
            <OnDemand id="open-two-step-link" class="" label=tt.setup_link open
                load=move || link_form(people.get_value()) />
        </div>
    }
}

/// The people (ID and name) who sign in with a password and have no second
/// factor: [`TwoStepSetupLink`]'s start, provided by the People tab.
#[derive(Clone)]
pub(super) struct SetupCandidates(pub DrawnJson<Vec<(String, String)>>);

const START_ID: &str = "two-step-link-start";

/// The form as its own WebAssembly chunk.
#[lazy]
async fn link_form(people: DrawnJson<Vec<(String, String)>>) -> AnyView {
    view! { <LinkForm people=people.value() /> }.into_any()
}

#[component]
fn LinkForm(people: Vec<(String, String)>) -> impl IntoView {
    let lang = use_lang();
    let tt = two_step_texts(lang);
    let create = ServerAction::<CreateTwoStepLink>::new();
    let chosen = RwSignal::new(people.first().map(|(id, _)| id.clone()).unwrap_or_default());
    let error = move || {
        create
            .value()
            .get()
            .and_then(|r| r.err())
            .map(|e| e.message(lang))
    };
    let created = move || {
        create.value().get().and_then(|r| r.ok()).map(|link| {
            view! {
                <div class="alert" role="status" id="new-two-step-link">
                    <p><strong>{tt.setup_link_once}</strong></p>
                    <p><code id="two-step-link" class="secret">{link.link}</code></p>
                    <p class="muted">{tt.setup_link_expires}": "{when(&link.expires_at)}</p>
                </div>
            }
        })
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if let Ok(id) = UserId::parse(&chosen.get_untracked()) {
            create.dispatch(CreateTwoStepLink { id });
        }
    };
    if people.is_empty() {
        return view! { <p class="muted" id="two-step-link-nobody">{tt.setup_link_nobody}</p> }
            .into_any();
    }
    view! {
        <form id="two-step-link-form" on:submit=on_submit>
            <p class="muted">{tt.setup_link_intro}</p>
            <label for="two-step-link-person">{tt.setup_link_for}</label>
            <select id="two-step-link-person" name="id" prop:value=move || chosen.get()
                on:change=move |ev| chosen.set(event_target_value(&ev))>
                {people.into_iter().map(|(id, name)| view! { <option value=id>{name}</option> }).collect_view()}
            </select>
            <p class="field-error" role="alert" id="two-step-link-error">{error}</p>
            <div class="actions">
                <button type="submit" class="primary" id="create-two-step-link"
                    disabled=move || create.pending().get()>{tt.setup_link_create}</button>
            </div>
        </form>
        {created}
    }
    .into_any()
}
