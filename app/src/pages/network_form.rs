//! The form that creates or edits a network profile. The rules run in the
//! browser as the admin types (from `protocol`) and again on the server; a
//! server refusal is shown next to its field the same way. An edit carries
//! the profile's version it started from, so saving over someone else's
//! change is refused (and said so, with a way to reload) instead of undoing it.

use crate::api::{CreateNetwork, UpdateNetwork};
use crate::error::UiError;
use crate::i18n::texts;
use crate::islands::{navigator, preload_island};
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

/// An island (crate::islands). Lazy: in the islands build the form is a
/// chunk of its own, loaded only by the screens that show it.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
pub fn NetworkForm(existing: Option<NetworkProfile>) -> impl IntoView {
    preload_island("network_form_loader");
    let lang = use_lang();
    let t = texts(lang);
    let is_new = existing.is_none();
    // Someone who may not edit still reads the profile here, in fields they cannot change.
    let read_only = !may(ActionKind::EditNetworks);
    let existing_id = existing.as_ref().map(|n| n.id.to_string());
    let reload_href = existing_id
        .as_ref()
        .map(|id| format!("/networks/{id}"))
        .unwrap_or_default();
    let name = RwSignal::new(
        existing
            .as_ref()
            .map(|n| n.name.clone())
            .unwrap_or_default(),
    );
    let description = RwSignal::new(
        existing
            .as_ref()
            .map(|n| n.description.clone())
            .unwrap_or_default(),
    );
    let id = RwSignal::new(existing_id.clone().unwrap_or_default());
    let beacons = RwSignal::new(
        existing
            .as_ref()
            .map(|n| n.beacons.join("\n"))
            .unwrap_or_default(),
    );
    // The version this form's content is based on; a save sends it back.
    let version = RwSignal::new(existing.as_ref().map(|n| n.version));
    let touched = RwSignal::new(Vec::<&'static str>::new());
    let submitted = RwSignal::new(false);
    let server_error = RwSignal::new(None::<UiError>);
    let saved = RwSignal::new(false);

    let input = Memo::new(move |_| NetworkInput {
        id: is_new.then(|| id.get()),
        name: name.get(),
        description: Some(description.get()),
        beacons: beacon_lines(&beacons.get()),
        version: version.get(),
    });
    let local_errors = Memo::new(move |_| input.get().validate().err().unwrap_or_default());

    // A field shows its local problem once edited (or after a submit), else a server refusal.
    let problem_for = move |field: &'static str| -> Option<FieldError> {
        let shown = submitted.get() || touched.with(|t| t.contains(&field));
        let local = local_errors.with(|errors| errors.iter().find(|e| e.field == field).cloned());
        match local {
            Some(e) if shown => Some(e),
            _ => server_error.with(|e| e.as_ref().and_then(|e| e.for_field(field).cloned())),
        }
    };
    let message_for = move |field: &'static str| problem_for(field).map(|e| e.message(lang));
    let hint_for = move |field: &'static str| problem_for(field).and_then(|e| e.problem.hint(lang));
    let edit = move |field: &'static str, signal: RwSignal<String>, value: String| {
        signal.set(value);
        saved.set(false);
        server_error.set(None);
        if !touched.with(|t| t.contains(&field)) {
            touched.update(|t| t.push(field));
        }
    };

    let create = ServerAction::<CreateNetwork>::new();
    let update = ServerAction::<UpdateNetwork>::new();
    let pending = move || create.pending().get() || update.pending().get();
    let navigate = navigator();
    Effect::new(move |_| match create.value().get() {
        Some(Ok(profile)) => navigate(&format!("/networks/{}", profile.id)),
        Some(Err(e)) => server_error.set(Some(e)),
        None => {}
    });
    Effect::new(move |_| match update.value().get() {
        Some(Ok(profile)) => {
            name.set(profile.name);
            description.set(profile.description);
            beacons.set(profile.beacons.join("\n"));
            version.set(Some(profile.version));
            saved.set(true);
        }
        Some(Err(e)) => server_error.set(Some(e)),
        None => {}
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        submitted.set(true);
        saved.set(false);
        server_error.set(None);
        if !local_errors.get_untracked().is_empty() {
            return;
        }
        match existing_id.clone() {
            None => {
                create.dispatch(CreateNetwork {
                    input: input.get_untracked(),
                });
            }
            Some(id) => {
                update.dispatch(UpdateNetwork {
                    id,
                    input: input.get_untracked(),
                });
            }
        }
    };
    // A refusal that names no field (not found, session ended, server error).
    let general_error = move || {
        server_error.with(|e| match e {
            Some(UiError::Invalid(_)) | None => None,
            Some(other) => Some(other.message(lang)),
        })
    };
    let no_beacons = move || beacon_lines(&beacons.get()).is_empty();
    // Someone saved meanwhile: what was typed stays in the form; the full
    // reload (on the admin's click only) shows their version.
    let stale =
        move || server_error.with(|e| matches!(e, Some(UiError::Refused(Refusal::StaleProfile))));

    view! {
        <form class="card form" id="network-form" novalidate on:submit=on_submit>
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
                    prop:value=move || name.get()
                    on:input=move |ev| edit("name", name, event_target_value(&ev))
                    aria-invalid=move || message_for("name").is_some().then_some("true")
                    aria-describedby="network-name-error"
                />
                <p class="field-error" id="network-name-error">{move || message_for("name")}</p>
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
                    prop:value=move || id.get()
                    on:input=move |ev| edit("id", id, event_target_value(&ev))
                    aria-invalid=move || message_for("id").is_some().then_some("true")
                    aria-describedby="network-id-help network-id-error"
                />
                <p class="help" id="network-id-help">
                    {if is_new { t.network_id_help_new } else { t.network_id_help_existing }}
                </p>
                <p class="field-error" id="network-id-error">
                    {move || message_for("id")}
                    <span class="hint">{move || hint_for("id")}</span>
                </p>
            </div>
            <div class="field">
                <label for="network-description">{t.field_description}</label>
                <textarea
                    id="network-description"
                    name="description"
                    rows="2"
                    prop:value=move || description.get()
                    on:input=move |ev| edit("description", description, event_target_value(&ev))
                    aria-invalid=move || message_for("description").is_some().then_some("true")
                ></textarea>
                <p class="field-error" id="network-description-error">{move || message_for("description")}</p>
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
                    prop:value=move || beacons.get()
                    on:input=move |ev| edit("beacons", beacons, event_target_value(&ev))
                    aria-invalid=move || message_for("beacons").is_some().then_some("true")
                    aria-describedby="network-beacons-help network-beacons-error"
                ></textarea>
                <p class="help" id="network-beacons-help">{t.beacons_help}</p>
                <p class="field-error" id="network-beacons-error">
                    {move || message_for("beacons")}
                    <span class="hint">{move || hint_for("beacons")}</span>
                </p>
                <Show when=no_beacons>
                    <p class="alert warn" id="no-beacon-warning">{t.beacons_none_warning}</p>
                </Show>
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
                        if pending() {
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
