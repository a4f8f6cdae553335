//! Webhook alerts in the admin API: the settings screen's values, what was
//! delivered lately, and the rule for the webhook URL (shared by the form
//! and the server).

use crate::validation::{FieldError, Problem};
use serde::{Deserialize, Serialize};

pub const WEBHOOK_URL_MAX: usize = 2048;

/// A webhook URL, trimmed; `None` when empty (alerts off). A path and query
/// are allowed: chat services put their token there.
pub fn webhook_url(input: &str) -> Result<Option<String>, FieldError> {
    let text = input.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let refuse = |problem| Err(FieldError::new("webhook_url", problem));
    if text.len() > WEBHOOK_URL_MAX {
        return refuse(Problem::TooLong {
            max: WEBHOOK_URL_MAX,
        });
    }
    if text.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return refuse(Problem::WebhookUrl);
    }
    match url::Url::parse(text) {
        Ok(url)
            if (url.scheme() == "https" || url.scheme() == "http")
                && url.host_str().is_some_and(|h| !h.is_empty()) =>
        {
            Ok(Some(text.to_string()))
        }
        _ => refuse(Problem::WebhookUrl),
    }
}

/// The webhook URL with its path and query hidden (they may hold a token):
/// what screens and logs show.
pub fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) => match (u.host_str(), u.port()) {
            (Some(host), Some(port)) => format!("{}://{host}:{port}/…", u.scheme()),
            (Some(host), None) => format!("{}://{host}/…", u.scheme()),
            _ => "…".into(),
        },
        Err(_) => "…".into(),
    }
}

/// `GET /api/v1/settings/alerts`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AlertSettings {
    /// The webhook in use, redacted; `None` when alerts are off.
    pub webhook: Option<String>,
    /// Set by KNOTROUTE_CONTROL_ALERT_WEBHOOK: the screen cannot change it.
    pub from_environment: bool,
    /// The latest alerts, newest first.
    pub recent: Vec<AlertView>,
}

/// `PUT /api/v1/settings/alerts`: an empty URL turns alerts off.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AlertSettingsInput {
    pub webhook_url: String,
}

/// One alert and how its delivery went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AlertView {
    pub id: i64,
    /// `agent.offline`, `agent.online`, `job.failed`, `beacon.down`,
    /// `beacon.up`, `service.address_lost`, `service.address_restored`,
    /// `probe.failed`, `probe.ok`, `test`.
    pub event: String,
    pub text: String,
    /// RFC 3339 UTC.
    pub created_at: String,
    pub status: crate::status::AlertStatus,
    pub attempts: i32,
    pub last_error: String,
}

/// `POST /api/v1/settings/alerts/test`: how the test delivery went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TestAlertOutcome {
    pub delivered: bool,
    /// The receiver's HTTP status, or why nothing was delivered.
    pub detail: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webhook_urls_need_a_scheme_and_host_and_may_carry_a_token() {
        assert_eq!(webhook_url("  ").unwrap(), None);
        assert_eq!(
            webhook_url(" https://hooks.example.net/services/T0/B0/x?y=1 ").unwrap(),
            Some("https://hooks.example.net/services/T0/B0/x?y=1".into())
        );
        for bad in [
            "hooks.example.net",
            "ftp://x.example",
            "https://",
            "https://a b.example",
        ] {
            let e = webhook_url(bad).unwrap_err();
            assert_eq!(e.field, "webhook_url", "{bad}");
        }
    }

    #[test]
    fn the_redacted_form_hides_path_and_query() {
        assert_eq!(
            redacted("https://hooks.example.net:8443/services/SECRET?t=1"),
            "https://hooks.example.net:8443/…"
        );
    }
}
