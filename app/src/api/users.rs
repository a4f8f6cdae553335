//! Server functions of the Users section of Settings (the owner only).
//! The list itself comes with `settings_screen`, so that reaching Settings
//! costs one request fewer.

use crate::error::UiError;
use leptos::prelude::*;
use protocol::users::{CreatedUserInvite, UserView};
use protocol::UserId;

#[cfg(feature = "ssr")]
use crate::backend::granted;
#[cfg(feature = "ssr")]
use crate::{api::with_services, error::ui_error};
#[cfg(feature = "ssr")]
use domain::access::roles::ManageUsers;

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

/// What is left out (`None`) stays as it is; `networks` empty: every network.
#[server(prefix = "/ui", endpoint = "change_user", input = leptos::server_fn::codec::Json)]
pub async fn change_user(
    id: UserId,
    role: Option<String>,
    disabled: Option<bool>,
    networks: Option<Vec<String>>,
) -> Result<UserView, UiError> {
    let change = protocol::users::UserChange {
        role,
        disabled,
        networks,
    };
    with_services(|s| async move {
        let by = granted::<ManageUsers>()?;
        s.users.change(&by, &id, &change).await.map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "end_user_sessions")]
pub async fn end_user_sessions(id: UserId) -> Result<UserView, UiError> {
    with_services(|s| async move {
        let by = granted::<ManageUsers>()?;
        s.users.end_sessions(&by, &id).await.map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "delete_user")]
pub async fn delete_user(id: UserId) -> Result<(), UiError> {
    with_services(|s| async move {
        let by = granted::<ManageUsers>()?;
        s.users.delete(&by, &id).await.map_err(ui_error)
    })
    .await
}
