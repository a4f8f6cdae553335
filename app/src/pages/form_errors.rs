//! Where a form's refusals come from and where they show, the same for every
//! form: a refusal found in the browser (by the shared `protocol` rules) or
//! returned by the server; a field's refusal beside that field, any other
//! refusal in the form's alert line.

use crate::error::UiError;
use crate::i18n::Lang;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

#[derive(Clone, Copy)]
pub struct FormErrors {
    /// Found in the browser before sending; cleared when the input passes.
    local: RwSignal<Option<UiError>>,
    server: Signal<Option<UiError>>,
    lang: Lang,
}

impl FormErrors {
    /// The refusals of a form that submits through `action`.
    pub fn of<S>(action: ServerAction<S>, lang: Lang) -> Self
    where
        S: ServerFn<Error = UiError> + Clone + Send + Sync + 'static,
        S::Output: Clone + Send + Sync + 'static,
    {
        Self {
            local: RwSignal::new(None),
            server: Signal::derive(move || action.value().get().and_then(|r| r.err())),
            lang,
        }
    }

    /// The refusal in force: the browser's check, else the server's answer.
    pub fn current(&self) -> Option<UiError> {
        self.local.get().or_else(|| self.server.get())
    }

    /// The sentence to show beside `field`, when it is refused.
    pub fn for_field(&self, field: &str) -> Option<String> {
        self.current()
            .and_then(|e| e.for_field(field).map(|f| f.message(self.lang)))
    }

    /// A refusal that names no field (a conflict, an expired session…).
    pub fn general(&self) -> Option<String> {
        self.current()
            .filter(|e| !matches!(e, UiError::Invalid(_)))
            .map(|e| e.message(self.lang))
    }

    /// Forgets the browser's verdict (the form changed shape).
    pub fn clear(&self) {
        self.local.set(None);
    }

    /// Records the browser's verdict on the input: `Err` shows the refused
    /// fields and stops the submission; `Ok` clears them and lets it go on.
    pub fn check<T>(&self, verdict: Result<T, Vec<protocol::FieldError>>) -> Option<T> {
        match verdict {
            Ok(value) => {
                self.local.set(None);
                Some(value)
            }
            Err(fields) => {
                self.local.set(Some(UiError::Invalid(fields)));
                None
            }
        }
    }
}
