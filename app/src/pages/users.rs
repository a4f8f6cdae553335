//! Settings' People tab, the owner's only: invite a person
//! with a one-time link (shown once), list people with their role, last
//! sign-in and open sessions; change a role or the networks they see;
//! disable, sign out everywhere, reset two-step sign-in or delete after a
//! confirmation; require two-step sign-in of everyone. For anyone else the
//! tab is not shown, and the server refuses its calls (the page answers 403).
//!
//! Drawn by the server: a role, the networks, the requirement and Enable are
//! plain forms (`plain_action`); Disable, Sign out everywhere, Reset two-step
//! and Delete are links to this page with the question in the address
//! (`?ask=…&person=<id>`), whose confirmation the server draws under the
//! list. Only the invitation is an island (`user_invite`): its link is shown
//! once.

use super::infrastructure::when;
use super::plain_action::{
    confirm_address, refusal_in_address, with_query, ConfirmAtAddress, RowAction,
};
use super::settings::SettingsFrame;
use super::two_step_link::{SetupCandidates, TwoStepSetupLink};
use super::user_invite::{InvitePerson, NetworkChoices};
use super::user_networks::described;
use super::LoadError;
use crate::api::two_step::{RequireTwoStepCall, ResetTwoStepCall};
use crate::api::users::{
    people_screen, ChangeUserCall, DeleteUserCall, EndUserSessionsCall, PeopleScreen,
    SetUserNetworksCall,
};
use crate::i18n::two_step::two_step_texts;
use crate::i18n::users::user_texts;
use crate::islands::DrawnJson;
use crate::use_lang;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_query_map;
use leptos_router::params::ParamsMap;
use protocol::users::{Role, UserView};

/// The People tab, the address its questions are asked at.
const PEOPLE: &str = "/settings/people";

/// What the address asks to confirm about one person.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ask {
    Disable,
    EndSessions,
    Delete,
    ResetTwoStep,
}

impl Ask {
    const ALL: [Ask; 4] = [
        Ask::Disable,
        Ask::EndSessions,
        Ask::Delete,
        Ask::ResetTwoStep,
    ];

    /// Its word in the address.
    fn word(self) -> &'static str {
        match self {
            Ask::Disable => "disable",
            Ask::EndSessions => "end_sessions",
            Ask::Delete => "delete",
            Ask::ResetTwoStep => "reset_two_step",
        }
    }

    /// What the address asks (`?ask=delete&person=<id>`), if anything.
    fn in_address(query: &ParamsMap) -> Option<(Ask, String)> {
        let word = query.get_str("ask")?;
        let ask = Ask::ALL.into_iter().find(|a| a.word() == word)?;
        Some((ask, query.get("person").filter(|p| !p.is_empty())?))
    }

    /// The link that asks it about `user`.
    fn address(self, user: &UserView) -> String {
        let asked = with_query(PEOPLE, "ask", self.word());
        confirm_address(&asked, "person", user.id.as_str(), "user-question")
    }

    /// Whether it can be asked of `user` as they are now.
    fn fits(self, user: &UserView) -> bool {
        match self {
            Ask::Disable => !user.disabled,
            Ask::ResetTwoStep => user.second_factor,
            Ask::EndSessions | Ask::Delete => true,
        }
    }
}

#[component]
pub fn PeoplePage() -> impl IntoView {
    view! {
        <SettingsFrame current="/settings/people">
            <PeopleSection />
        </SettingsFrame>
    }
}

#[component]
fn PeopleSection() -> impl IntoView {
    let lang = use_lang();
    let query = use_query_map();
    // Drawn under a Suspense: its code is named up front.
    crate::islands::preload_island("invite_person_loader");
    crate::islands::preload_island("two_step_setup_link_loader");
    let people = Resource::new(|| (), |_| people_screen());
    let question = Memo::new(move |_| Ask::in_address(&query.read()));
    let refusal = move || {
        let paths = [
            ChangeUserCall::PATH,
            SetUserNetworksCall::PATH,
            EndUserSessionsCall::PATH,
            DeleteUserCall::PATH,
            ResetTwoStepCall::PATH,
            RequireTwoStepCall::PATH,
        ];
        refusal_in_address(&query.read(), &paths).map(|e| e.message(lang))
    };
    view! {
        <Transition fallback=|| ()>
            {move || {
                let question = question.get();
                Suspend::new(async move {
                    match people.await {
                        Ok(screen) => view! { <UsersSection screen question refusal /> }.into_any(),
                        Err(e) => view! { <section class="card" id="users"><LoadError error=e /></section> }.into_any(),
                    }
                })
            }}
        </Transition>
    }
}

#[component]
fn UsersSection(
    screen: PeopleScreen,
    question: Option<(Ask, String)>,
    refusal: impl Fn() -> Option<String> + Send + Sync + 'static,
) -> impl IntoView {
    let lang = use_lang();
    let (ut, tt) = (user_texts(lang), two_step_texts(lang));
    let PeopleScreen {
        people,
        networks,
        two_step_required,
    } = screen;
    // The question, if it is about someone listed whom it still fits.
    let asked = question.and_then(|(ask, id)| {
        let user = people.iter().find(|u| u.id.as_str() == id)?;
        ask.fits(user).then(|| (ask, user.clone()))
    });
    view! {
        <section class="card" id="users">
            <h2>{ut.title}</h2>
            <p class="muted">{ut.intro}</p>
            {
                provide_context(NetworkChoices(DrawnJson::of(&networks)));
                view! { <InvitePerson /> }
            }
            <form method="post" action=RequireTwoStepCall::PATH id="two-step-requirement">
                <div class="check-row">
                    <input type="checkbox" id="require-two-step" name="required" value="true"
                        checked=two_step_required aria-describedby="require-two-step-hint" />
                    <label for="require-two-step">{tt.require}</label>
                </div>
                <p class="muted" id="require-two-step-hint">{tt.require_hint}</p>
                <button type="submit" id="save-two-step-requirement">{ut.save_requirement}</button>
            </form>
            {
                // Who signs in with a password and has no second factor yet.
                let candidates: Vec<(String, String)> = people
                    .iter()
                    .filter(|u| !u.second_factor && !u.single_sign_on && !u.pending)
                    .map(|u| (u.id.to_string(), u.name.clone()))
                    .collect();
                provide_context(SetupCandidates(DrawnJson::of(&candidates)));
                view! { <TwoStepSetupLink /> }
            }
            <p class="field-error" role="alert" id="user-change-error">{refusal}</p>
            {if people.is_empty() {
                view! { <p class="empty" id="users-empty">{ut.empty}</p> }.into_any()
            } else {
                view! { <UserTable list=people networks two_step_required /> }.into_any()
            }}
            {asked.map(|(ask, user)| user_question(ask, user))}
        </section>
    }
}

/// The confirmation the address asks for, under the list.
fn user_question(ask: Ask, user: UserView) -> AnyView {
    let lang = use_lang();
    let (ut, tt) = (user_texts(lang), two_step_texts(lang));
    let (action, more, explain, confirm_id, label) = match ask {
        Ask::Disable => (
            ChangeUserCall::PATH,
            vec![("disabled", "true".to_string())],
            ut.disable_explain,
            "confirm-disable-user",
            ut.disable,
        ),
        Ask::EndSessions => (
            EndUserSessionsCall::PATH,
            Vec::new(),
            ut.end_sessions_explain,
            "confirm-end-sessions",
            ut.end_sessions,
        ),
        Ask::Delete => (
            DeleteUserCall::PATH,
            Vec::new(),
            ut.delete_explain,
            "confirm-delete-user",
            ut.delete,
        ),
        Ask::ResetTwoStep => (
            ResetTwoStepCall::PATH,
            Vec::new(),
            tt.reset_body,
            "confirm-reset-two-step",
            tt.reset,
        ),
    };
    view! {
        <ConfirmAtAddress id="user-question" explain cancel_href=format!("{PEOPLE}#users-table")
            cancel_id="cancel-user-question" action value=user.id.to_string() more confirm_id label>
            {label}": "{user.name.clone()}
        </ConfirmAtAddress>
    }
    .into_any()
}

#[component]
fn UserTable(
    list: Vec<UserView>,
    networks: Vec<(String, String)>,
    two_step_required: bool,
) -> impl IntoView {
    let lang = use_lang();
    let ut = user_texts(lang);
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
                {list.into_iter().map(|user| view! { <UserRow user networks=networks.clone() two_step_required /> }).collect_view()}
            </tbody>
        </table>
    }
}

#[component]
fn UserRow(
    user: UserView,
    networks: Vec<(String, String)>,
    two_step_required: bool,
) -> impl IntoView {
    let lang = use_lang();
    let (ut, tt) = (user_texts(lang), two_step_texts(lang));
    let id = user.id.to_string();
    let ask = |ask: Ask, class: &'static str, element: String, label: &'static str| {
        ask.fits(&user).then(|| {
            view! { " "<a class=format!("button {class}") id=element href=ask.address(&user)>{label}</a> }
        })
    };
    let two_step = user.second_factor.then(|| {
        view! {
            " "<span class="badge ok" id=format!("two-step-{id}")>{tt.badge}</span>
        }
    });
    // The owner requires it and this person has none: they need a setup link.
    let needs_setup =
        (two_step_required && !user.second_factor && !user.single_sign_on).then(|| {
            view! {
                " "<span class="badge warn" id=format!("needs-setup-{id}")>{tt.needs_setup}</span>
            }
        });
    // A person waiting has a placeholder role: choosing one approves them.
    let current = if user.pending { "" } else { user.role.as_str() };
    let waiting = user.pending.then(|| {
        view! {
            " "<span class="badge warn" id=format!("pending-{id}")>{ut.pending}</span>
        }
    });
    let sso = user.single_sign_on.then(|| {
        view! {
            " "<span class="badge" title=ut.single_sign_on>"SSO"</span>
        }
    });
    let enable = user.disabled.then(|| view! {
        <span class="badge bad">{ut.disabled}</span>" "
        <RowAction action=ChangeUserCall::PATH id=id.clone() more=vec![("disabled", "false".to_string())]
            class="enable-user" button_id=format!("enable-{id}") label=ut.enable />
    });
    let seen = described(&user.networks, &networks, ut.all_networks);
    // The owner role sees every network: nothing to choose.
    let scope = if user.role == Role::Owner || networks.is_empty() {
        view! { <span id=format!("networks-{id}")>{seen}</span> }.into_any()
    } else {
        view! {
            <details class="networks-edit" id=format!("networks-{id}")>
                <summary>{seen}</summary>
                <NetworksForm id=id.clone() current=user.networks.clone() networks />
            </details>
        }
        .into_any()
    };
    let sessions = match (&user.newest_session_at, user.open_sessions) {
        (Some(newest), n) if n > 0 => format!("{n} · {}", when(newest)),
        _ => "0".to_string(),
    };
    view! {
        <tr class="user-row">
            <td data-label=ut.col_name>{user.name.clone()}{sso}{two_step}{needs_setup}{waiting}</td>
            <td data-label=ut.col_role>
                <form method="post" action=ChangeUserCall::PATH class="role-form">
                    <input type="hidden" name="id" value=id.clone() />
                    <select id=format!("role-{id}") name="role" aria-label=format!("{} {}", ut.change_role, user.name)>
                        {user.pending.then(|| view! {
                            <option value="" selected disabled>{ut.approve_as}</option>
                        })}
                        {Role::ALL.into_iter().map(|r| view! {
                            <option value=r.as_str() selected=r.as_str() == current>{r.as_str()}</option>
                        }).collect_view()}
                    </select>
                    " "<button type="submit" id=format!("save-role-{id}")>{ut.save_role}</button>
                </form>
            </td>
            <td data-label=ut.col_networks>{scope}</td>
            <td data-label=ut.col_last_sign_in>
                {user.last_sign_in_at.as_deref().map(when).unwrap_or_else(|| ut.never.to_string())}
            </td>
            <td data-label=ut.col_sessions>{sessions}</td>
            <td class="actions">
                {enable}
                {ask(Ask::Disable, "danger", format!("disable-{id}"), ut.disable)}
                {ask(Ask::EndSessions, "", format!("end-sessions-{id}"), ut.end_sessions)}
                {ask(Ask::ResetTwoStep, "", format!("reset-two-step-{id}"), tt.reset)}
                {ask(Ask::Delete, "danger", format!("delete-{id}"), ut.delete)}
            </td>
        </tr>
    }
}

/// The networks a person sees, as a plain form: "All networks", or the
/// boxes checked (`networks[]`). With "All networks" checked the boxes are
/// hidden by the stylesheet (`.network-choice:has(…)`), and ignored by the
/// server (`protocol::users::networks_chosen`).
#[component]
fn NetworksForm(
    id: String,
    current: Vec<String>,
    networks: Vec<(String, String)>,
) -> impl IntoView {
    let ut = user_texts(use_lang());
    let prefix = format!("networks-of-{id}");
    let boxes = networks
        .into_iter()
        .map(|(network, name)| {
            let box_id = format!("{prefix}-{network}");
            let checked = current.contains(&network);
            view! {
                <label class="check" for=box_id.clone()>
                    <input type="checkbox" id=box_id.clone() name="networks[]" data-network=network.clone() value=network checked=checked />
                    " "{name}
                </label>
            }
        })
        .collect_view();
    view! {
        <form method="post" action=SetUserNetworksCall::PATH>
            <input type="hidden" name="id" value=id.clone() />
            <fieldset class="network-choice" id=prefix.clone()>
                <legend>{ut.networks}</legend>
                <label class="check" for=format!("{prefix}-all")>
                    <input type="checkbox" id=format!("{prefix}-all") name="all_networks" value="true"
                        checked=current.is_empty() />
                    " "{ut.all_networks}
                </label>
                <div class="network-boxes">{boxes}</div>
            </fieldset>
            <button type="submit" id=format!("save-networks-{id}")>{ut.save_networks}</button>
        </form>
    }
}
