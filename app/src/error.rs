//! The error every server function returns, as the browser sees it: enough to
//! mark a field or explain a refusal, never internal detail.

use crate::i18n::{texts, Lang};
use leptos::prelude::{FromServerFnError, ServerFnErrorErr};
use leptos::server_fn::codec::JsonEncoding;
use protocol::refusals::Refusal;
use protocol::FieldError;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, thiserror::Error)]
pub enum UiError {
    /// Input refused; each refused field with its reason.
    #[error("invalid input")]
    Invalid(Vec<FieldError>),
    #[error("not found")]
    NotFound,
    #[error("sign-in required")]
    Unauthenticated,
    /// A wrong password, or a name no enabled person has (not told apart).
    #[error("wrong name or password")]
    WrongPassword,
    #[error("too many failed sign-in attempts")]
    Throttled { retry_after_minutes: u32 },
    /// The password was right; a code from the authenticator app is needed
    /// too (a wrong code is `Invalid` on the `code` field).
    #[error("a code is needed")]
    CodeNeeded,
    /// The password was right; the owner requires a second factor, so add
    /// Control to an authenticator app with this and send its first code.
    #[error("a second factor must be set up")]
    SetUpSecondFactor(Box<protocol::second_factor::Enrollment>),
    /// Understood and turned down (e.g. enabling a revoked Agent): the
    /// catalogue entry, with its code and field, said in the reader's language.
    #[error("refused: {}", .0.code())]
    Refused(Refusal),
    /// The database cannot be reached right now; try again after this long.
    #[error("database unavailable")]
    Unavailable { retry_after_secs: u32 },
    /// Detail is in the server's log only.
    #[error("internal error")]
    Internal,
    #[error("{0}")]
    ServerFn(ServerFnErrorErr),
}

impl FromServerFnError for UiError {
    type Encoder = JsonEncoding;
    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        UiError::ServerFn(value)
    }
}

impl UiError {
    /// The refusal as it may travel in a page's address, where server_fn
    /// puts it when it answers a plain form's post (pages::plain_action).
    /// An address stays in the browser's history and in proxies' logs, so a
    /// second factor's set-up keeps its sentence there but not its secret;
    /// the form, once hydrated, asks again and gets it in the answer's body.
    pub fn for_address(self) -> UiError {
        match self {
            UiError::SetUpSecondFactor(_) => {
                UiError::SetUpSecondFactor(Box::new(protocol::second_factor::Enrollment {
                    secret: String::new(),
                    otpauth_uri: String::new(),
                    qr_svg: String::new(),
                }))
            }
            other => other,
        }
    }

    /// A sentence for the person at the screen.
    pub fn message(&self, lang: Lang) -> String {
        let t = texts(lang);
        match self {
            UiError::Invalid(errors) => match errors.as_slice() {
                [only] => only.message(lang),
                _ => t.fix_fields.to_string(),
            },
            UiError::NotFound => t.not_found.to_string(),
            UiError::Unauthenticated => t.session_expired.to_string(),
            UiError::WrongPassword => t.wrong_password.to_string(),
            UiError::Throttled {
                retry_after_minutes,
            } => t.throttled.replace("{n}", &retry_after_minutes.to_string()),
            UiError::CodeNeeded => crate::i18n::two_step::two_step_texts(lang)
                .code_needed
                .to_string(),
            UiError::SetUpSecondFactor(_) => crate::i18n::two_step::two_step_texts(lang)
                .set_up_needed
                .to_string(),
            // The form that meets this offers to reload, so it says so.
            UiError::Refused(Refusal::StaleProfile) => t.stale_profile.to_string(),
            UiError::Refused(refusal) => refusal.message(lang),
            UiError::Unavailable { .. } => t.database_unavailable.to_string(),
            UiError::Internal | UiError::ServerFn(_) => t.internal_error.to_string(),
        }
    }

    /// The refusal for one form field, if this error names it.
    pub fn for_field(&self, field: &str) -> Option<&FieldError> {
        match self {
            UiError::Invalid(errors) => errors.iter().find(|e| e.field == field),
            _ => None,
        }
    }
}

/// A domain error as a server function answers it: the same catalogue
/// entry the JSON API uses (both are made from a `Failure`), which the
/// browser then says in the reader's language. Store failures are logged
/// here and shown only as "unavailable" or "internal".
#[cfg(feature = "ssr")]
pub fn ui_error(e: impl Into<domain::failure::Failure>) -> UiError {
    use domain::failure::{is_database_unavailable, Failure, DATABASE_RETRY_AFTER_SECS};
    match e.into() {
        Failure::Invalid(errors) => UiError::Invalid(errors),
        Failure::Refused(refusal) => UiError::Refused(refusal),
        Failure::Store(e) => {
            if is_database_unavailable(&e.0) {
                tracing::warn!(error = %e, "database unreachable; answering 503");
                return UiError::Unavailable {
                    retry_after_secs: DATABASE_RETRY_AFTER_SECS as u32,
                };
            }
            tracing::error!(error = %e, "request failed");
            UiError::Internal
        }
        Failure::Fault(detail) => {
            tracing::error!(error = %detail, "request failed");
            UiError::Internal
        }
    }
}

/// A sign-in's refusal: the password, the throttle, or the store.
#[cfg(feature = "ssr")]
pub fn ui_auth_error(e: domain::access::sign_in::AuthError) -> UiError {
    use domain::access::sign_in::AuthError;
    match e {
        AuthError::WrongPassword => UiError::WrongPassword,
        AuthError::Throttled { retry_after } => UiError::Throttled {
            retry_after_minutes: domain::failure::minutes_until(retry_after),
        },
        AuthError::CodeNeeded => UiError::CodeNeeded,
        AuthError::WrongCode(error) => UiError::Invalid(vec![error]),
        AuthError::SetUpSecondFactor(enrollment) => UiError::SetUpSecondFactor(enrollment),
        AuthError::SetupNeedsLink => UiError::Refused(Refusal::SecondFactorSetupLinkNeeded),
        AuthError::Store(e) => ui_error(e),
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use domain::StoreError;
    use sea_orm::{ConnAcquireErr, DbErr};

    #[test]
    fn an_unreachable_database_is_unavailable_and_a_fault_internal() {
        assert!(matches!(
            ui_error(StoreError(DbErr::ConnectionAcquire(
                ConnAcquireErr::Timeout
            ))),
            UiError::Unavailable {
                retry_after_secs: 2
            }
        ));
        assert!(matches!(
            ui_error(StoreError(DbErr::Custom("bug".into()))),
            UiError::Internal
        ));
    }
}
