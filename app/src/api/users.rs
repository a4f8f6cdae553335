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

#[server(prefix = "/ui", endpoint = "invite_user")]
pub async fn invite_user(role: String) -> Result<CreatedUserInvite, UiError> {
    let input = protocol::users::UserInviteInput { role };
    with_services(|s| async move {
        let by = granted::<ManageUsers>()?;
        s.users.invite(&by, &input).await.map_err(ui_error)
    })
    .await
}

/// `role` and `disabled` left out stay as they are.
#[server(prefix = "/ui", endpoint = "change_user")]
pub async fn change_user(
    id: UserId,
    role: Option<String>,
    disabled: Option<bool>,
) -> Result<UserView, UiError> {
    let change = protocol::users::UserChange { role, disabled };
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
