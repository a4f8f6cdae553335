//! Server functions of two-step sign-in: a person's own (Settings), and the
//! owner's reset and requirement (the Users section). A person's own act on
//! their session only (`Principal::person_in_session`); the domain refuses
//! the break-glass owner, single sign-on and tokens.

use crate::error::UiError;
use leptos::prelude::*;
use protocol::second_factor::{Enrollment, RecoveryCodes, SetupLink};
use protocol::UserId;

#[cfg(feature = "ssr")]
use crate::backend::granted;
#[cfg(feature = "ssr")]
use crate::{
    api::{with_reader, with_services},
    error::ui_error,
};
#[cfg(feature = "ssr")]
use domain::access::roles::ManageUsers;

/// A new secret for the app, kept unconfirmed until [`confirm_two_step`].
#[server(prefix = "/ui", endpoint = "begin_two_step")]
pub async fn begin_two_step() -> Result<Enrollment, UiError> {
    with_reader(|s, who| async move { s.second_factors.begin(&who).await.map_err(ui_error) }).await
}

/// Turns it on with the app's first code; the recovery codes are in the
/// answer only.
#[server(prefix = "/ui", endpoint = "confirm_two_step")]
pub async fn confirm_two_step(code: String) -> Result<RecoveryCodes, UiError> {
    with_reader(|s, who| async move {
        s.second_factors
            .confirm(&who, &code)
            .await
            .map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "renew_recovery_codes")]
pub async fn renew_recovery_codes(code: String) -> Result<RecoveryCodes, UiError> {
    with_reader(|s, who| async move {
        s.second_factors
            .renew_recovery_codes(&who, &code)
            .await
            .map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "turn_off_two_step")]
pub async fn turn_off_two_step(code: String) -> Result<(), UiError> {
    with_reader(|s, who| async move {
        s.second_factors
            .turn_off(&who, &code)
            .await
            .map_err(ui_error)
    })
    .await
}

/// The owner takes a person's second factor away (a lost phone); a plain
/// form of the People tab.
#[server(name = ResetTwoStepCall, prefix = "/ui", endpoint = "reset_two_step")]
pub async fn reset_two_step(id: UserId) -> Result<(), UiError> {
    let done = with_services(|s| async move {
        let by = granted::<ManageUsers>()?;
        s.second_factors.reset(&by, &id).await.map_err(ui_error)
    })
    .await;
    crate::api::answer_plain_form(done, crate::api::users::PEOPLE_DONE)
}

/// The owner requires (or stops requiring) it of every password sign-in: the
/// People tab's checkbox, which a plain form leaves out when unchecked.
#[server(name = RequireTwoStepCall, prefix = "/ui", endpoint = "require_two_step")]
pub async fn require_two_step(required: Option<bool>) -> Result<(), UiError> {
    let required = required.unwrap_or(false);
    let done = with_services(|s| async move {
        let by = granted::<ManageUsers>()?;
        s.second_factors
            .set_required(&by, required)
            .await
            .map_err(ui_error)
    })
    .await;
    crate::api::answer_plain_form(done, crate::api::users::PEOPLE_DONE)
}

/// A one-time link with which person `id` sets up the second factor the
/// owner requires; the People tab's island shows it once.
#[server(prefix = "/ui", endpoint = "create_two_step_link")]
pub async fn create_two_step_link(id: UserId) -> Result<SetupLink, UiError> {
    with_services(|s| async move {
        let by = granted::<ManageUsers>()?;
        s.second_factors
            .setup_link(&by, &id)
            .await
            .map_err(ui_error)
    })
    .await
}
