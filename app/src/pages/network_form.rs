//! The form that creates or edits a network profile. The rules run in the
//! browser as the admin types (from `protocol`) and again on the server; a
//! server refusal is shown next to its field the same way. An edit carries
//! the profile's version it started from, so saving over someone else's
//! change is refused (and said so, with a way to reload) instead of undoing it.
//!
//! The island's own chunk holds only the form. The rules and the server
//! functions' client, with every message they can say, are a second chunk
//! (`check_network`, `save_network`), fetched when the admin first types or
//! saves: on a phone the page is interactive before it arrives.

use crate::api::{create_network, update_network};
use crate::error::UiError;
use crate::i18n::{texts, Lang};
use crate::islands::{drawn_attribute, navigator, preload_island, start_from};
use crate::{may, use_lang};
use leptos::prelude::*;
use protocol::actions::ActionKind;
use protocol::api::{NetworkInput, NetworkProfile};
use protocol::refusals::Refusal;
use protocol::FieldError;

/// Splits the Beacon textarea into URLs, one per non-blank line.
pub fn beacon_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

/// What the rules or the server said of the form, in words.
#[derive(Clone, Debug, Default, PartialEq)]
struct Said {
    /// Per field refused: its name, the message and a hint.
    fields: Vec<(String, String, Option<&'static str>)>,
    /// A refusal that names no field (not found, session ended, server error).
    general: Option<String>,
    /// Someone saved the profile meanwhile.
    stale: bool,
}

impl Said {
    fn of_fields(errors: &[FieldError], lang: Lang) -> Self {
        let fields = errors
            .iter()
            .map(|e| (e.field.clone(), e.message(lang), e.problem.hint(lang)))
            .collect();
        Self {
            fields,
            ..Self::default()
        }
    }

    fn of_refusal(error: &UiError, lang: Lang) -> Self {
        match error {
            UiError::Invalid(errors) => Self::of_fields(errors, lang),
            other => Self {
                general: Some(other.message(lang)),
                stale: matches!(other, UiError::Refused(Refusal::StaleProfile)),
                ..Self::default()
            },
        }
    }

    fn field(&self, name: &str) -> Shown {
        self.fields
            .iter()
            .find(|(field, ..)| field == name)
            .map(|(_, message, hint)| (message.clone(), *hint))
    }
}

/// A field's problem as shown: the message and a hint.
type Shown = Option<(String, Option<&'static str>)>;

/// What a field's problem is now (reactive); one closure type serves the
/// four fields.
trait Problem: Fn() -> Shown + Copy + Send + Sync + 'static {}
impl<F: Fn() -> Shown + Copy + Send + Sync + 'static> Problem for F {}

/// `aria-invalid` while the field has a problem.
fn invalid(problem: impl Problem) -> impl Fn() -> Option<&'static str> + Send + Sync + 'static {
    move || problem().is_some().then_some("true")
}

/// The line under a field saying what is wrong with it, and how to fix it
/// where there is a hint. One function for all four fields, so the island
/// carries its code once.
fn field_error(id: &'static str, problem: impl Problem) -> impl IntoView {
    view! {
        <p class="field-error" id=id>
            {move || problem().map(|(message, _)| message)}
            <span class="hint">{move || problem().and_then(|(_, hint)| hint)}</span>
        </p>
    }
}

/// How a press of Save ended.
enum Answer {
    Saved(NetworkProfile),
    /// The rules found problems: nothing was sent.
    Invalid(Said),
    Refused(Said),
}

/// The rules' findings on `input` (its own WebAssembly chunk).
#[lazy]
async fn check_network(input: NetworkInput, lang: Lang) -> Said {
    Said::of_fields(&input.validate().err().unwrap_or_default(), lang)
}

/// Checks `input`, then creates the profile, or saves it over `existing`
/// (its own WebAssembly chunk, with the server functions' client).
#[lazy]
async fn save_network(existing: Option<String>, input: NetworkInput, lang: Lang) -> Answer {
    if let Err(errors) = input.validate() {
        return Answer::Invalid(Said::of_fields(&errors, lang));
    }
    let answer = match existing {
        None => create_network(input).await,
        Some(id) => update_network(id, input).await,
    };
    match answer {
        Ok(profile) => Answer::Saved(profile),
        Err(e) => Answer::Refused(Said::of_refusal(&e, lang)),
    }
}

/// The profile the form starts from, the page's context
/// ([`crate::islands::start_from`]); the default is a new network's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FormStart {
    id: String,
    name: String,
    description: String,
    /// One Beacon URL per line.
    beacons: String,
    /// The profile's version; none for a new network.
    version: Option<i64>,
}

impl FormStart {
    pub fn of(profile: &NetworkProfile) -> Self {
        Self {
            id: profile.id.to_string(),
            name: profile.name.clone(),
            description: profile.description.clone(),
            beacons: profile.beacons.join("\n"),
            version: Some(profile.version),
        }
    }

    /// What the server drew on `#network-form` (the form's `data-`
    /// attributes, and its text boxes' `data-value`); a new network's start
    /// where it drew none.
    fn drawn() -> Self {
        let read = |name: &str| drawn_attribute(FORM_ID, name).unwrap_or_default();
        let text_of = |id: &str| drawn_attribute(id, "data-value").unwrap_or_default();
        Self {
            id: read("data-id"),
            name: read("data-name"),
            description: text_of("network-description"),
            beacons: text_of("network-beacons"),
            version: read("data-version").parse().ok(),
        }
    }
}

const FORM_ID: &str = "network-form";

/// An island (crate::islands). Lazy: in the islands build the form is a
/// chunk of its own, loaded only by the screens that show it. It starts
/// from the page's [`FormStart`].
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
pub fn NetworkForm() -> impl IntoView {
    preload_island("network_form_loader");
    let lang = use_lang();
    let t = texts(lang);
    let start = start_from(FormStart::drawn);
    let is_new = start.version.is_none();
    // Someone who may not edit still reads the profile here, in fields they cannot change.
    let read_only = !may(ActionKind::EditNetworks);
    let existing_id = (!is_new).then(|| start.id.clone());
    let reload_href = existing_id
        .as_ref()
        .map(|id| format!("/networks/{id}"))
        .unwrap_or_default();
    // Drawn on the form and its text boxes, for the islands build's
    // browser (FormStart::drawn).
    let drawn = start.clone();
    let name = RwSignal::new(start.name);
    let description = RwSignal::new(start.description);
    let id = RwSignal::new(start.id);
    let beacons = RwSignal::new(start.beacons);
    // The version this form's content is based on; a save sends it back.
    let version = RwSignal::new(start.version);
    let touched = RwSignal::new(Vec::<&'static str>::new());
    let submitted = RwSignal::new(false);
    // What the rules say of what is typed now, and what the server said of the last save.
    let local = RwSignal::new(Said::default());
    let server = RwSignal::new(Said::default());
    let pending = RwSignal::new(false);
    let saved = RwSignal::new(false);

    let input = move || NetworkInput {
        id: is_new.then(|| id.get_untracked()),
        name: name.get_untracked(),
        description: Some(description.get_untracked()),
        beacons: beacon_lines(&beacons.get_untracked()),
        version: version.get_untracked(),
    };
    // Checks run as the admin types; only the newest one's answer counts
    // (the first waits for the rules' chunk).
    let checks = StoredValue::new(0u64);
    let check = move || {
        let n = checks.get_value() + 1;
        checks.set_value(n);
        let input = input();
        leptos::task::spawn_local(async move {
            let said = check_network(input, lang).await;
            if checks.get_value() == n {
                local.set(said);
            }
        });
    };

    // A field shows its local problem once edited (or after a submit), else a server refusal.
    // One closure type for the four fields (a `Signal::derive` would bring
    // more of the reactive system's code into the island).
    let problem_of = move |field: &'static str| {
        move || {
            let shown = submitted.get() || touched.with(|t| t.contains(&field));
            match local.with(|said| said.field(field)) {
                Some(problem) if shown => Some(problem),
                _ => server.with(|said| said.field(field)),
            }
        }
    };
    let edit = move |field: &'static str, signal: RwSignal<String>, value: String| {
        signal.set(value);
        saved.set(false);
        server.set(Said::default());
        if !touched.with(|t| t.contains(&field)) {
            touched.update(|t| t.push(field));
        }
        check();
    };
    // Each distinct closure in a view is code of its own in the island's
    // WebAssembly, which a phone downloads before the form reacts: the four
    // fields share these, one closure type each.
    let on_typed = move |field: &'static str, signal: RwSignal<String>| {
        move |ev: leptos::ev::Event| edit(field, signal, event_target_value(&ev))
    };
    let value_of = |signal: RwSignal<String>| move || signal.get();
    let (name_problem, id_problem) = (problem_of("name"), problem_of("id"));
    let (description_problem, beacons_problem) = (problem_of("description"), problem_of("beacons"));

    let navigate = navigator();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if pending.get_untracked() {
            return;
        }
        submitted.set(true);
        saved.set(false);
        server.set(Said::default());
        pending.set(true);
        let (existing, input, navigate) = (existing_id.clone(), input(), navigate.clone());
        leptos::task::spawn_local(async move {
            let answer = save_network(existing.clone(), input, lang).await;
            pending.set(false);
            match answer {
                Answer::Saved(profile) if existing.is_none() => {
                    navigate(&format!("/networks/{}", profile.id));
                }
                Answer::Saved(profile) => {
                    name.set(profile.name);
                    description.set(profile.description);
                    beacons.set(profile.beacons.join("\n"));
                    version.set(Some(profile.version));
                    saved.set(true);
                }
                Answer::Invalid(said) => local.set(said),
                Answer::Refused(said) => server.set(said),
            }
        });
    };
    let general_error = move || server.with(|said| said.general.clone());
    let no_beacons = move || beacon_lines(&beacons.get()).is_empty();
    // Someone saved meanwhile: what was typed stays in the form; the full
    // reload (on the admin's click only) shows their version.
    let stale = move || server.with(|said| said.stale);

    view! {
        <form class="card form" id=FORM_ID novalidate on:submit=on_submit
            data-id=drawn.id data-name=drawn.name
            data-version=drawn.version.map(|v| v.to_string())>
            <fieldset class="bare" disabled=read_only>
            <div class="field">
                <label for="network-name">{t.field_name}</label>
                <input
                    id="network-name"
                    name="name"
                    maxlength=protocol::validation::NAME_MAX.to_string()
                    required
                    autocomplete="off"
                    // Also in the server's HTML, before the form hydrates.
                    value=name.get_untracked()
                    prop:value=value_of(name)
                    on:input=on_typed("name", name)
                    aria-invalid=invalid(name_problem)
                    aria-describedby="network-name-error"
                />
                {field_error("network-name-error", name_problem)}
            </div>
            <div class="field">
                <label for="network-id">{t.field_network_id}</label>
                <input
                    id="network-id"
                    name="id"
                    class="mono"
                    autocomplete="off"
                    spellcheck="false"
                    placeholder=is_new.then_some("kn_…")
                    readonly=!is_new
                    // Also in the server's HTML, before the form hydrates.
                    value=id.get_untracked()
                    prop:value=value_of(id)
                    on:input=on_typed("id", id)
                    aria-invalid=invalid(id_problem)
                    aria-describedby="network-id-help network-id-error"
                />
                <p class="help" id="network-id-help">
                    {if is_new { t.network_id_help_new } else { t.network_id_help_existing }}
                </p>
                {field_error("network-id-error", id_problem)}
            </div>
            <div class="field">
                <label for="network-description">{t.field_description}</label>
                <textarea
                    id="network-description"
                    name="description"
                    rows="2"
                    // Its text, which the early script puts in before the
                    // form hydrates (a textarea's value is not in the HTML).
                    data-value=drawn.description
                    prop:value=value_of(description)
                    on:input=on_typed("description", description)
                    aria-invalid=invalid(description_problem)
                ></textarea>
                {field_error("network-description-error", description_problem)}
            </div>
            <div class="field">
                <label for="network-beacons">{t.field_beacons}</label>
                <textarea
                    id="network-beacons"
                    name="beacons"
                    class="mono"
                    rows="3"
                    spellcheck="false"
                    placeholder="https://beacon.example.net"
                    data-value=drawn.beacons
                    prop:value=value_of(beacons)
                    on:input=on_typed("beacons", beacons)
                    aria-invalid=invalid(beacons_problem)
                    aria-describedby="network-beacons-help network-beacons-error"
                ></textarea>
                <p class="help" id="network-beacons-help">{t.beacons_help}</p>
                {field_error("network-beacons-error", beacons_problem)}
                {move || no_beacons().then(|| view! {
                    <p class="alert warn" id="no-beacon-warning">{t.beacons_none_warning}</p>
                })}
            </div>
            </fieldset>
            <p class="alert error" role="alert" id="form-error">
                {general_error}
                {move || stale().then(|| view! {
                    " " <a id="reload-profile" href=reload_href.clone() rel="external">{t.reload}</a>
                })}
            </p>
            <div class="actions" hidden=read_only>
                <button type="submit" class="primary" id="save-network" disabled=pending>
                    {move || {
                        if pending.get() {
                            t.saving
                        } else if is_new {
                            t.create
                        } else {
                            t.save
                        }
                    }}
                </button>
                <span class="saved" role="status" id="saved-status">
                    {move || saved.get().then_some(t.saved)}
                </span>
            </div>
        </form>
    }
}

#[cfg(test)]
mod tests {
    use super::beacon_lines;

    #[test]
    fn blank_lines_in_the_beacon_box_are_ignored() {
        assert_eq!(
            beacon_lines("\n https://a.example \n\n https://b.example\n"),
            ["https://a.example", "https://b.example"]
        );
        assert!(beacon_lines("  \n").is_empty());
    }
}
