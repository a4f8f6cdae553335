//! The People tab's invitation: a role, the networks the person will see,
//! and a one-time link, shown once. The only island of the tab, because its
//! answer is that link; the form, with its server-function client, is its
//! own chunk, fetched on the first press (`invite_form`).

use super::infrastructure::when;
use super::on_demand::OnDemand;
use super::user_networks::{NetworkChoice, NetworkPick};
use crate::api::users::InviteUser;
use crate::i18n::users::user_texts;
use crate::islands::{start_from, DrawnJson};
use crate::use_lang;
use leptos::prelude::*;
use protocol::users::Role;

/// "Invite a person" and, once pressed, its form. An island
/// (crate::islands), lazy and preloaded. It takes no props, so that its
/// first load carries no JSON decoder: it starts from [`NetworkChoices`],
/// which only the form decodes.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
pub(super) fn InvitePerson() -> impl IntoView {
    crate::islands::preload_island("invite_person_loader");
    let ut = user_texts(use_lang());
    let open = RwSignal::new(false);
    let NetworkChoices(networks) =
        start_from(|| NetworkChoices(DrawnJson::drawn(INVITE_START_ID).unwrap_or_default()));
    let drawn = networks.text();
    let networks = StoredValue::new(networks);
    view! {
        <div class="island-start" id=INVITE_START_ID data-start=drawn>
            <OnDemand id="open-invite" label=ut.invite_title open
                load=move || invite_form(networks.get_value()) />
        </div>
    }
}

/// Every network's ID and name, to choose from: [`InvitePerson`]'s start,
/// provided by the People tab on the server.
#[derive(Clone)]
pub(super) struct NetworkChoices(pub DrawnJson<Vec<(String, String)>>);

const INVITE_START_ID: &str = "invite-person-start";

/// The invitation form as its own WebAssembly chunk.
#[lazy]
async fn invite_form(networks: DrawnJson<Vec<(String, String)>>) -> AnyView {
    view! { <InviteForm networks=networks.value() /> }.into_any()
}

#[component]
fn InviteForm(networks: Vec<(String, String)>) -> impl IntoView {
    let lang = use_lang();
    let ut = user_texts(lang);
    let invite = ServerAction::<InviteUser>::new();
    let role = RwSignal::new(Role::Operator.as_str().to_string());
    let pick = NetworkPick::of(&[]);
    // A refusal found before sending (no network checked) or by the server.
    let unsent = RwSignal::new(None::<String>);
    pick.clears(unsent);
    let invite_error = move || {
        unsent.get().or_else(|| {
            invite
                .value()
                .get()
                .and_then(|r| r.err())
                .map(|e| e.message(lang))
        })
    };
    let created = move || {
        invite.value().get().and_then(|r| r.ok()).map(|c| {
            view! {
                <div class="alert" role="status" id="new-user-invite">
                    <p><strong>{ut.link_once}</strong></p>
                    <p><code id="user-invite-link" class="secret">{c.link}</code></p>
                    <p class="muted">{ut.link_expires}": "{when(&c.expires_at)}" · "{c.role.as_str()}
                        " · "{if c.networks.is_empty() { ut.all_networks.to_string() } else { c.networks.len().to_string() + " " + ut.networks }}</p>
                </div>
            }
        })
    };
    let is_owner = move || role.get() == Role::Owner.as_str();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        // The owner role sees every network whatever is checked.
        let networks = if is_owner() {
            Ok(Vec::new())
        } else {
            pick.to_send(lang)
        };
        match networks {
            Ok(networks) => {
                unsent.set(None);
                invite.dispatch(InviteUser {
                    role: role.get_untracked(),
                    networks,
                });
            }
            Err(message) => unsent.set(Some(message)),
        }
    };
    view! {
        <form id="user-invite-form" on:submit=on_submit>
            <label for="invite-role">{ut.role_field}</label>
            <select id="invite-role" name="role" prop:value=move || role.get()
                on:change=move |ev| role.set(event_target_value(&ev))>
                {Role::ALL.into_iter().map(|r| view! { <option value=r.as_str()>{r.as_str()}</option> }).collect_view()}
            </select>
            <div hidden=is_owner>
                {if networks.is_empty() {
                    view! { <p class="muted" id="invite-no-networks">{ut.no_networks_yet}</p> }.into_any()
                } else {
                    view! { <NetworkChoice prefix="invite-networks".to_string() pick networks /> }.into_any()
                }}
            </div>
            <p class="field-error" role="alert" id="invite-error">{invite_error}</p>
            <div class="actions">
                <button type="submit" class="primary" id="invite-user" disabled=move || invite.pending().get()>
                    {ut.invite}
                </button>
            </div>
        </form>
        {created}
    }
}
