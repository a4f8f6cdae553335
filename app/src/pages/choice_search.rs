//! The search box of a form's choice list (Agents, network profiles). A list
//! offers the first entries by name (`infra_api::CHOICES_MAX` Agents, a page
//! of profiles); once the server says more match, the box appears and what is typed narrows the
//! list in the database. Small installations never see it.

use super::loaded;
use crate::api::infra::agent_choices;
use crate::api::{list_networks, NetworkListPage};
use crate::error::UiError;
use crate::i18n::texts;
use crate::use_lang;
use leptos::prelude::*;
use protocol::api::{AgentChoice, Choices, NetworkProfile};
use std::time::Duration;

/// A list reloads this long after the last key, not on every key.
const TYPING_PAUSE: Duration = Duration::from_millis(300);

/// The Agents and profiles a form chooses from, each list with its search
/// box, and the form drawn from what they hold (again whenever a search
/// changes them; keep what is typed in signals outside the form). `form`
/// gets the Agents, the profiles, and whether an Agent search is narrowing
/// the Agents (so "no Agent" is not mistaken for "nothing matches").
#[component]
pub fn WithChoices<F>(
    /// Prefix of the boxes' IDs: `{prefix}-agent-search`, `{prefix}-network-search`.
    prefix: &'static str,
    /// Only Agents a Beacon or sidecar can be deployed on now.
    deployable: bool,
    form: F,
) -> impl IntoView
where
    F: Fn(Vec<AgentChoice>, Vec<NetworkProfile>, bool) -> AnyView + Copy + Send + Sync + 'static,
{
    let t = texts(use_lang());
    // Not live: redrawing the form while someone types would take their focus.
    let agent_search = RwSignal::new(String::new());
    let network_search = RwSignal::new(String::new());
    let agents = Resource::new(
        move || agent_search.get(),
        move |search| agent_choices(as_search(search), deployable),
    );
    let networks = Resource::new(
        move || network_search.get(),
        |search| list_networks(None, as_search(search)),
    );
    view! {
        <ChoiceSearch id=format!("{prefix}-agent-search") label=t.find_agent search=agent_search more=more_agents(agents) />
        <ChoiceSearch id=format!("{prefix}-network-search") label=t.find_network search=network_search more=more_profiles(networks) />
        {loaded(
            move || async move { Ok::<_, UiError>((agents.await?, networks.await?)) },
            move |(agents, networks)| {
                let searching = !agent_search.get_untracked().is_empty();
                let nothing = nothing_matches(&[
                    (agent_search, agents.items.is_empty()),
                    (network_search, networks.items.is_empty()),
                ]);
                view! { {nothing} {form(agents.items, networks.items, searching)} }.into_any()
            },
        )}
    }
}

/// The search to send: `None` for an empty box.
pub fn as_search(typed: String) -> Option<String> {
    Some(typed).filter(|s| !s.trim().is_empty())
}

/// Whether the Agent list's last answer held back more matches.
fn more_agents(list: Resource<Result<Choices<AgentChoice>, UiError>>) -> Signal<bool> {
    Signal::derive(move || list.get().and_then(Result::ok).is_some_and(|c| c.more))
}

/// Whether the profile list's last answer has a next page.
pub fn more_profiles(list: Resource<Result<NetworkListPage, UiError>>) -> Signal<bool> {
    Signal::derive(move || {
        list.get()
            .and_then(Result::ok)
            .is_some_and(|page| page.next.is_some())
    })
}

/// "Nothing matches" under the boxes when a search found nothing; one
/// `(search, found nothing)` per list.
fn nothing_matches(lists: &[(RwSignal<String>, bool)]) -> Option<impl IntoView> {
    let t = texts(use_lang());
    lists
        .iter()
        .any(|(search, empty)| *empty && !search.get_untracked().is_empty())
        .then(|| view! { <p class="muted">{t.no_match}</p> })
}

/// The box: rendered outside the list's `Transition`, so reloading the list
/// does not take the typist's focus. `search` receives the text once typing
/// pauses (or at once on Enter, which must not submit the form).
#[component]
pub fn ChoiceSearch(
    /// The input's ID.
    #[prop(into)]
    id: String,
    label: &'static str,
    search: RwSignal<String>,
    /// Whether the last answer said more entries match than it listed.
    #[prop(into)]
    more: Signal<bool>,
) -> impl IntoView {
    let t = texts(use_lang());
    let typed = RwSignal::new(String::new());
    let on_input = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        typed.set(value.clone());
        set_timeout(
            move || {
                // Only the last key's timer, when nothing was typed since, applies.
                if typed.try_get_untracked().as_deref() == Some(value.as_str()) {
                    search.set(value);
                }
            },
            TYPING_PAUSE,
        );
    };
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Enter" {
            ev.prevent_default();
            search.set(typed.get_untracked());
        }
    };
    let help = format!("{id}-help");
    // The server renders no box (its list is not loaded when this renders);
    // the browser shows it only once hydrated, so both render the same.
    let mounted = RwSignal::new(false);
    Effect::new(move |_| mounted.set(true));
    move || {
        (mounted.get() && (more.get() || !search.get().is_empty())).then(|| {
            view! {
                <div class="choice-search">
                    <label for=id.clone()>{label}</label>
                    <input type="search" id=id.clone() autocomplete="off" aria-describedby=help.clone()
                        prop:value=move || typed.get() on:input=on_input on:keydown=on_keydown />
                    <p class="help" id=help.clone()>{t.find_hint}</p>
                </div>
            }
        })
    }
}
