//! Settings' People tab, the owner's only: invite a person
//! with a one-time link (shown once), list people with their role, last
//! sign-in and open sessions; change a role or the networks they see;
//! disable, sign out everywhere, reset two-step sign-in or delete after a
//! confirmation; require two-step sign-in of everyone. For anyone else the
//! tab is not shown, and the server refuses its calls (the page answers 403).

use super::confirm::ConfirmDialog;
use super::infrastructure::when;
use super::settings::SettingsFrame;
use super::user_networks::{described, NetworkChoice, NetworkPick};
use super::LoadError;
use crate::api::two_step::{RequireTwoStep, ResetTwoStep};
use crate::api::users::{
    people_screen, ChangeUser, DeleteUser, EndUserSessions, InviteUser, PeopleScreen,
};
use crate::error::UiError;
use crate::i18n::two_step::two_step_texts;
use crate::i18n::users::user_texts;
use crate::use_lang;
use leptos::prelude::*;
use protocol::users::{Role, UserView};
use protocol::UserId;

/// What a confirmation is about.
#[derive(Clone, Copy, PartialEq)]
enum Ask {
    Disable,
    EndSessions,
    Delete,
    ResetTwoStep,
}

/// The actions that change the list of people, which is read again when any
/// of them has run.
#[derive(Clone, Copy)]
struct UserChanges {
    change: ServerAction<ChangeUser>,
    end: ServerAction<EndUserSessions>,
    delete: ServerAction<DeleteUser>,
    reset: ServerAction<ResetTwoStep>,
    require: ServerAction<RequireTwoStep>,
}

impl UserChanges {
    /// Call inside a component: the actions belong to its reactive owner.
    fn new() -> Self {
        Self {
            change: ServerAction::new(),
            end: ServerAction::new(),
            delete: ServerAction::new(),
            reset: ServerAction::new(),
            require: ServerAction::new(),
        }
    }

    /// Tracked: changes whenever one of the actions has finished.
    fn version(&self) -> [usize; 5] {
        [
            self.change.version().get(),
            self.end.version().get(),
            self.delete.version().get(),
            self.reset.version().get(),
            self.require.version().get(),
        ]
    }
}

#[component]
pub fn PeoplePage() -> impl IntoView {
    view! {
        <SettingsFrame current="/settings/people">
            <PeopleBody />
        </SettingsFrame>
    }
}

/// An island (crate::islands), lazy and preloaded.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn PeopleBody() -> impl IntoView {
    crate::islands::preload_island("people_body_loader");
    let changes = UserChanges::new();
    let people = Resource::new(move || changes.version(), |_| people_screen());
    view! { <UsersSection people changes /> }
}

#[component]
fn UsersSection(
    people: Resource<Result<PeopleScreen, UiError>>,
    changes: UserChanges,
) -> impl IntoView {
    let lang = use_lang();
    let ut = user_texts(lang);
    let invite = ServerAction::<InviteUser>::new();
    let tt = two_step_texts(lang);
    let UserChanges {
        change,
        end,
        delete,
        reset,
        require,
    } = changes;
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
    let change_error = move || {
        change
            .value()
            .get()
            .and_then(|r| r.err())
            .map(|e| e.message(lang))
    };
    // Which person and which action the open confirmation is about.
    let target = RwSignal::new(None::<(Ask, UserId)>);
    let dialog = |ask: Ask| {
        let open = RwSignal::new(false);
        Effect::new(move |_| open.set(matches!(target.get(), Some((a, _)) if a == ask)));
        Effect::new(move |_| {
            if !open.get() && matches!(target.get_untracked(), Some((a, _)) if a == ask) {
                target.set(None);
            }
        });
        open
    };
    let (disable_open, end_open, delete_open, reset_open) = (
        dialog(Ask::Disable),
        dialog(Ask::EndSessions),
        dialog(Ask::Delete),
        dialog(Ask::ResetTwoStep),
    );
    let error_of = move |failed: Option<Result<(), UiError>>| {
        failed.and_then(|r| r.err()).map(|e| e.message(lang))
    };
    let disable_error =
        Signal::derive(move || error_of(change.value().get().map(|r| r.map(|_| ()))));
    let end_error = Signal::derive(move || error_of(end.value().get().map(|r| r.map(|_| ()))));
    let delete_error = Signal::derive(move || error_of(delete.value().get()));
    let reset_error = Signal::derive(move || error_of(reset.value().get()));
    let require_error = move || error_of(require.value().get());
    // A finished action closes its dialog.
    Effect::new(move |_| {
        let done = change.value().get().is_some_and(|r| r.is_ok())
            || end.value().get().is_some_and(|r| r.is_ok())
            || delete.value().get().is_some_and(|r| r.is_ok())
            || reset.value().get().is_some_and(|r| r.is_ok());
        if done {
            target.set(None);
        }
    });
    let confirmed = move |ask: Ask| {
        if let Some((a, id)) = target.get_untracked().filter(|(a, _)| *a == ask) {
            match a {
                Ask::Disable => {
                    change.dispatch(ChangeUser {
                        id,
                        role: None,
                        disabled: Some(true),
                        networks: None,
                    });
                }
                Ask::EndSessions => {
                    end.dispatch(EndUserSessions { id });
                }
                Ask::Delete => {
                    delete.dispatch(DeleteUser { id });
                }
                Ask::ResetTwoStep => {
                    reset.dispatch(ResetTwoStep { id });
                }
            }
        }
    };
    let ask = Callback::new(move |asked: (Ask, UserId)| target.set(Some(asked)));
    let set_role = Callback::new(move |(id, role): (UserId, String)| {
        change.dispatch(ChangeUser {
            id,
            role: Some(role),
            disabled: None,
            networks: None,
        });
    });
    let enable = Callback::new(move |id: UserId| {
        change.dispatch(ChangeUser {
            id,
            role: None,
            disabled: Some(false),
            networks: None,
        });
    });
    let set_networks = Callback::new(move |(id, networks): (UserId, Vec<String>)| {
        change.dispatch(ChangeUser {
            id,
            role: None,
            disabled: None,
            networks: Some(networks),
        });
    });
    let section = move |list: Vec<UserView>, networks: Vec<(String, String)>, required: bool| {
        let choice = networks.clone();
        let is_owner = move || role.get() == Role::Owner.as_str();
        view! {
            <section class="card" id="users">
                <h2>{ut.title}</h2>
                <p class="muted">{ut.intro}</p>
                <form id="user-invite-form" on:submit=move |ev: leptos::ev::SubmitEvent| {
                    ev.prevent_default();
                    // The owner role sees every network whatever is checked.
                    let networks = if is_owner() { Ok(Vec::new()) } else { pick.to_send(lang) };
                    match networks {
                        Ok(networks) => {
                            unsent.set(None);
                            invite.dispatch(InviteUser { role: role.get_untracked(), networks });
                        }
                        Err(message) => unsent.set(Some(message)),
                    }
                }>
                    <label for="invite-role">{ut.role_field}</label>
                    <select id="invite-role" name="role" prop:value=move || role.get()
                        on:change=move |ev| role.set(event_target_value(&ev))>
                        {Role::ALL.into_iter().map(|r| view! { <option value=r.as_str()>{r.as_str()}</option> }).collect_view()}
                    </select>
                    <div hidden=is_owner>
                        {if choice.is_empty() {
                            view! { <p class="muted" id="invite-no-networks">{ut.no_networks_yet}</p> }.into_any()
                        } else {
                            view! { <NetworkChoice prefix="invite-networks".to_string() pick networks=choice /> }.into_any()
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
                <div class="check-row">
                    <input type="checkbox" id="require-two-step" prop:checked=required
                        aria-describedby="require-two-step-hint"
                        disabled=move || require.pending().get()
                        on:change=move |ev| { require.dispatch(RequireTwoStep { required: event_target_checked(&ev) }); } />
                    <label for="require-two-step">{tt.require}</label>
                </div>
                <p class="muted" id="require-two-step-hint">{tt.require_hint}</p>
                <p class="field-error" role="alert" id="require-two-step-error">{require_error}</p>
                <p class="field-error" role="alert" id="user-change-error">{change_error}</p>
                {if list.is_empty() {
                    view! { <p class="empty" id="users-empty">{ut.empty}</p> }.into_any()
                } else {
                    view! { <UserTable list networks ask set_role set_networks enable /> }.into_any()
                }}
            </section>
        }
    };
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                match people.await {
                    Ok(screen) => section(screen.people, screen.networks, screen.two_step_required).into_any(),
                    Err(e) => view! { <section class="card" id="users"><LoadError error=e /></section> }.into_any(),
                }
            })}
        </Transition>
        <ConfirmDialog open=disable_open title=ut.disable explain=ut.disable_explain
            confirm_label=ut.disable confirm_id="confirm-disable-user"
            error=disable_error pending=change.pending()
            on_confirm=move || confirmed(Ask::Disable) />
        <ConfirmDialog open=end_open title=ut.end_sessions explain=ut.end_sessions_explain
            confirm_label=ut.end_sessions confirm_id="confirm-end-sessions"
            error=end_error pending=end.pending()
            on_confirm=move || confirmed(Ask::EndSessions) />
        <ConfirmDialog open=delete_open title=ut.delete explain=ut.delete_explain
            confirm_label=ut.delete confirm_id="confirm-delete-user"
            error=delete_error pending=delete.pending()
            on_confirm=move || confirmed(Ask::Delete) />
        <ConfirmDialog open=reset_open title=tt.reset_title explain=tt.reset_body
            confirm_label=tt.reset confirm_id="confirm-reset-two-step"
            error=reset_error pending=reset.pending()
            on_confirm=move || confirmed(Ask::ResetTwoStep) />
    }
}

#[component]
fn UserTable(
    list: Vec<UserView>,
    networks: Vec<(String, String)>,
    ask: Callback<(Ask, UserId)>,
    set_role: Callback<(UserId, String)>,
    set_networks: Callback<(UserId, Vec<String>)>,
    enable: Callback<UserId>,
) -> impl IntoView {
    let lang = use_lang();
    let ut = user_texts(lang);
    let tt = two_step_texts(lang);
    view! {
        <table class="list" id="users-table">
            <thead><tr>
                <th scope="col">{ut.col_name}</th>
                <th scope="col">{ut.col_role}</th>
                <th scope="col">{ut.col_networks}</th>
                <th scope="col">{ut.col_last_sign_in}</th>
                <th scope="col">{ut.col_sessions}</th>
                <th scope="col"></th>
            </tr></thead>
            <tbody>
                {list.into_iter().map(|user| {
                    let id = user.id.clone();
                    let (id_role, id_disable, id_end, id_delete, id_reset) =
                        (id.clone(), id.clone(), id.clone(), id.clone(), id.clone());
                    let two_step = user.second_factor.then(|| view! {
                        " "<span class="badge ok" id=format!("two-step-{id}")>{tt.badge}</span>
                    });
                    let reset_button = user.second_factor.then(|| view! {
                        " "<button type="button" id=format!("reset-two-step-{id}")
                            on:click=move |_| ask.run((Ask::ResetTwoStep, id_reset.clone()))>{tt.reset}</button>
                    });
                    // A person waiting has a placeholder role: choosing one approves them.
                    let current = if user.pending { "" } else { user.role.as_str() };
                    let waiting = user.pending.then(|| view! {
                        " "<span class="badge warn" id=format!("pending-{id}")>{ut.pending}</span>
                    });
                    let sso = user.single_sign_on.then(|| view! {
                        " "<span class="badge" title=ut.single_sign_on>"SSO"</span>
                    });
                    let on_off = if user.disabled {
                        view! {
                            <span class="badge bad">{ut.disabled}</span>" "
                            <button type="button" id=format!("enable-{id}")
                                on:click=move |_| enable.run(id_disable.clone())>{ut.enable}</button>
                        }.into_any()
                    } else {
                        view! {
                            <button type="button" class="danger" id=format!("disable-{id}")
                                on:click=move |_| ask.run((Ask::Disable, id_disable.clone()))>{ut.disable}</button>
                        }.into_any()
                    };
                    let seen = described(&user.networks, &networks, ut.all_networks);
                    // The owner role sees every network: nothing to choose.
                    let scope = if user.role == Role::Owner || networks.is_empty() {
                        view! { <span id=format!("networks-{id}")>{seen}</span> }.into_any()
                    } else {
                        let pick = NetworkPick::of(&user.networks);
                        let unsent = RwSignal::new(None::<String>);
                        pick.clears(unsent);
                        let id_save = id.clone();
                        view! {
                            <details class="networks-edit" id=format!("networks-{id}")>
                                <summary>{seen}</summary>
                                <NetworkChoice prefix=format!("networks-of-{id}") pick networks=networks.clone() />
                                <p class="field-error" role="alert">{move || unsent.get()}</p>
                                <button type="button" id=format!("save-networks-{id}") on:click=move |_| {
                                    match pick.to_send(lang) {
                                        Ok(chosen) => {
                                            unsent.set(None);
                                            set_networks.run((id_save.clone(), chosen));
                                        }
                                        Err(message) => unsent.set(Some(message)),
                                    }
                                }>{ut.save_networks}</button>
                            </details>
                        }.into_any()
                    };
                    let sessions = match (&user.newest_session_at, user.open_sessions) {
                        (Some(newest), n) if n > 0 => format!("{n} · {}", when(newest)),
                        _ => "0".to_string(),
                    };
                    view! {
                        <tr class="user-row">
                            <td data-label=ut.col_name>{user.name.clone()}{sso}{two_step}{waiting}</td>
                            <td data-label=ut.col_role>
                                <select id=format!("role-{id}") aria-label=format!("{} {}", ut.change_role, user.name)
                                    on:change=move |ev| set_role.run((id_role.clone(), event_target_value(&ev)))>
                                    {user.pending.then(|| view! {
                                        <option value="" selected disabled>{ut.approve_as}</option>
                                    })}
                                    {Role::ALL.into_iter().map(|r| view! {
                                        <option value=r.as_str() selected=r.as_str() == current>{r.as_str()}</option>
                                    }).collect_view()}
                                </select>
                            </td>
                            <td data-label=ut.col_networks>{scope}</td>
                            <td data-label=ut.col_last_sign_in>
                                {user.last_sign_in_at.as_deref().map(when).unwrap_or_else(|| ut.never.to_string())}
                            </td>
                            <td data-label=ut.col_sessions>{sessions}</td>
                            <td class="actions">
                                {on_off}" "
                                <button type="button" id=format!("end-sessions-{id}")
                                    on:click=move |_| ask.run((Ask::EndSessions, id_end.clone()))>{ut.end_sessions}</button>
                                {reset_button}" "
                                <button type="button" class="danger" id=format!("delete-{id}")
                                    on:click=move |_| ask.run((Ask::Delete, id_delete.clone()))>{ut.delete}</button>
                            </td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}
