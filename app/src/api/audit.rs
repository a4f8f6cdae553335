//! Server function of the Audit log screen: one filtered page, newest first.

use crate::error::UiError;
use leptos::prelude::*;
use protocol::api::AuditEntry;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::api::with_backend;

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
    subject: Option<String>,
    before: Option<i64>,
) -> Result<AuditPage, UiError> {
    let blank_is_any =
        |v: Option<String>| v.map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    with_backend(|backend| async move {
        backend
            .list_audit(blank_is_any(action), blank_is_any(subject), before)
            .await
    })
    .await
}
