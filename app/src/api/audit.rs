//! Server function of the Audit log screen: one filtered page, newest first.

use crate::error::UiError;
use leptos::prelude::*;
use protocol::api::AuditEntry;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::{api::with_reader, error::ui_error};

/// Lines shown per page.
pub const AUDIT_PAGE: u64 = 50;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditPage {
    pub items: Vec<AuditEntry>,
    /// `before` for the next (older) page, when there is one.
    pub next: Option<i64>,
}

#[server(prefix = "/ui", endpoint = "list_audit")]
pub async fn list_audit(
    action: Option<String>,
    person: Option<String>,
    subject: Option<String>,
    before: Option<i64>,
) -> Result<AuditPage, UiError> {
    let blank_is_any =
        |v: Option<String>| v.map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    let filter = domain::audit::AuditFilter {
        action: blank_is_any(action),
        person: blank_is_any(person),
        subject: blank_is_any(subject),
        before,
        // One more than a page tells whether an older page exists.
        limit: Some(AUDIT_PAGE + 1),
    };
    with_reader(|s, who| async move {
        let mut items = domain::audit::list(&s.db, &who, &filter)
            .await
            .map_err(ui_error)?;
        let next = domain::split_page(&mut items, AUDIT_PAGE, |e| e.id.to_string())
            .and_then(|id| id.parse().ok());
        Ok(AuditPage { items, next })
    })
    .await
}
