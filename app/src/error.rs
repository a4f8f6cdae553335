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
    #[error("wrong password")]
    WrongPassword,
    #[error("too many failed sign-in attempts")]
    Throttled { retry_after_minutes: u32 },
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
