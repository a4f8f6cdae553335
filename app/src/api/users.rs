//! Server functions of Settings' People tab (the owner only).

use crate::error::UiError;
use leptos::prelude::*;
use protocol::users::{CreatedUserInvite, UserView};
use protocol::UserId;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::backend::granted;
#[cfg(feature = "ssr")]
use crate::{
    api::{with_reader, with_services},
    error::ui_error,
};
#[cfg(feature = "ssr")]
use domain::access::roles::ManageUsers;

/// What the People tab shows, read in one call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeopleScreen {
    pub people: Vec<UserView>,
    /// Every network's ID and name, for choosing the networks a person sees.
    pub networks: Vec<(String, String)>,
    /// Whether the owner requires two-step sign-in of everyone.
    pub two_step_required: bool,
}

/// Refused (403) to a role that manages no people: the tab is the owner's.
#[server(name = PeopleScreenCall, prefix = "/ui", endpoint = "people_screen")]
pub async fn people_screen() -> Result<PeopleScreen, UiError> {
    with_reader(|s, who| async move {
        let by = granted::<ManageUsers>()?;
        let networks = s.networks.all(who.networks()).await.map_err(ui_error)?;
        Ok(PeopleScreen {
            people: s.users.list(&by).await.map_err(ui_error)?,
            networks: networks
                .into_iter()
                .map(|n| (n.id.to_string(), n.name))
                .collect(),
            two_step_required: s
                .second_factors
                .status(&who)
                .await
                .map_err(ui_error)?
                .required,
        })
    })
    .await
}

/// `networks` empty: every network.
#[server(prefix = "/ui", endpoint = "invite_user", input = leptos::server_fn::codec::Json)]
pub async fn invite_user(
    role: String,
    networks: Vec<String>,
) -> Result<CreatedUserInvite, UiError> {
    let input = protocol::users::UserInviteInput { role, networks };
    with_services(|s| async move {
        let by = granted::<ManageUsers>()?;
        s.users.invite(&by, &input).await.map_err(ui_error)
    })
    .await
}

/// Where the People tab's plain forms lead once done: its list.
pub const PEOPLE_DONE: &str = "/settings/people#users";

/// A person's role, or whether they are disabled, as the People tab's plain
/// forms send it; what is left out (`None`) stays as it is.
#[server(name = ChangeUserCall, prefix = "/ui", endpoint = "change_user")]
pub async fn change_user(
    id: UserId,
    role: Option<String>,
    disabled: Option<bool>,
) -> Result<UserView, UiError> {
    let change = protocol::users::UserChange {
        role,
        disabled,
        networks: None,
    };
    let done = with_services(|s| async move {
        let by = granted::<ManageUsers>()?;
        s.users.change(&by, &id, &change).await.map_err(ui_error)
    })
    .await;
    crate::api::answer_plain_form(done, PEOPLE_DONE)
}

/// The networks a person sees, as a plain form's checkboxes send them:
/// `all_networks`, or the IDs checked (`networks[]`), by the rule
/// `protocol::users::networks_chosen`.
#[server(name = SetUserNetworksCall, prefix = "/ui", endpoint = "set_user_networks")]
pub async fn set_user_networks(
    id: UserId,
    all_networks: Option<bool>,
    networks: Option<Vec<String>>,
) -> Result<UserView, UiError> {
    let done = async {
        let chosen = protocol::users::networks_chosen(
            all_networks.unwrap_or(false),
            networks.unwrap_or_default(),
        )
        .map_err(|e| UiError::Invalid(vec![e]))?;
        let change = protocol::users::UserChange {
            role: None,
            disabled: None,
            networks: Some(chosen),
        };
        with_services(|s| async move {
            let by = granted::<ManageUsers>()?;
            s.users.change(&by, &id, &change).await.map_err(ui_error)
        })
        .await
    }
    .await;
    crate::api::answer_plain_form(done, PEOPLE_DONE)
}

#[server(name = EndUserSessionsCall, prefix = "/ui", endpoint = "end_user_sessions")]
pub async fn end_user_sessions(id: UserId) -> Result<UserView, UiError> {
    let done = with_services(|s| async move {
        let by = granted::<ManageUsers>()?;
        s.users.end_sessions(&by, &id).await.map_err(ui_error)
    })
    .await;
    crate::api::answer_plain_form(done, PEOPLE_DONE)
}

#[server(name = DeleteUserCall, prefix = "/ui", endpoint = "delete_user")]
pub async fn delete_user(id: UserId) -> Result<(), UiError> {
    let done = with_services(|s| async move {
        let by = granted::<ManageUsers>()?;
        s.users.delete(&by, &id).await.map_err(ui_error)
    })
    .await;
    crate::api::answer_plain_form(done, PEOPLE_DONE)
}
