//! Server functions of the Settings screen: alert webhook, test alert,
//! Control's identity, and its API tokens tab (the People tab's are in
//! `api::users`).

use crate::error::UiError;
use leptos::prelude::*;
use protocol::alerts::{AlertSettings, TestAlertOutcome};
use protocol::api::ControlIdentityView;
use protocol::tokens::{CreatedToken, TokenView};
use protocol::ApiTokenId;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::backend::granted;
#[cfg(feature = "ssr")]
use crate::{
    api::{with_reader, with_services},
    error::ui_error,
};
#[cfg(feature = "ssr")]
use domain::access::roles::{ChangeSettings, ManageOwnApiTokens};

/// Where alerts go, Control's identity and the person's own two-step
/// sign-in, read in one call: on a phone every request is a round trip. The
/// people and the API tokens have tabs of their own (`people_screen`,
/// `list_api_tokens`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SettingsScreen {
    pub alerts: AlertSettings,
    /// Whether Agents enrolled with the shared token wait for approval.
    pub agent_approval: protocol::api::AgentApprovalSettings,
    pub identity: ControlIdentityView,
    /// The signed-in person's own two-step sign-in, and whether the owner
    /// requires it.
    pub second_factor: protocol::second_factor::SecondFactorStatus,
}

#[server(name = SettingsScreenCall, prefix = "/ui", endpoint = "settings_screen")]
pub async fn settings_screen() -> Result<SettingsScreen, UiError> {
    with_reader(|s, who| async move {
        Ok(SettingsScreen {
            alerts: s.alerts.settings(who.networks()).await.map_err(ui_error)?,
            agent_approval: s.approval.settings().await.map_err(ui_error)?,
            identity: s.identity.describe().await.map_err(ui_error)?,
            second_factor: s.second_factors.status(&who).await.map_err(ui_error)?,
        })
    })
    .await
}

/// Sets where alerts go; with `turn_off`, forgets the webhook instead. Sent
/// by the Settings screen's plain forms (pages::settings): Save never turns
/// alerts off by an empty field, which is refused at the field, because
/// turning them off is its own confirmed button. A plain form's answer is
/// the screen again, saying it was saved (`?saved`).
#[server(prefix = "/ui", endpoint = "save_alert_webhook")]
pub async fn save_alert_webhook(
    #[server(default)] webhook_url: String,
    turn_off: Option<bool>,
) -> Result<AlertSettings, UiError> {
    let turn_off = turn_off == Some(true);
    let input = protocol::alerts::AlertSettingsInput {
        webhook_url: if turn_off { String::new() } else { webhook_url },
    };
    let saved = with_services(|s| async move {
        let by = granted::<ChangeSettings>()?;
        if !turn_off && input.webhook_url.trim().is_empty() {
            return Err(UiError::Invalid(vec![protocol::FieldError::new(
                "webhook_url",
                protocol::Problem::Required,
            )]));
        }
        s.alerts.set_webhook(&by, &input).await.map_err(ui_error)
    })
    .await?;
    super::plain_form_done_at("/settings?saved=1#alerts");
    Ok(saved)
}

/// Whether Agents enrolled with the shared token wait for approval, from
/// Settings' plain form (a checkbox: absent when unticked). Its answer is
/// the screen again, saying it was saved.
#[server(prefix = "/ui", endpoint = "save_agent_approval")]
pub async fn save_agent_approval(
    required: Option<bool>,
) -> Result<protocol::api::AgentApprovalSettings, UiError> {
    let input = protocol::api::AgentApprovalSettings {
        required: required == Some(true),
    };
    let saved = with_services(|s| async move {
        let by = granted::<ChangeSettings>()?;
        s.approval.set_required(&by, &input).await.map_err(ui_error)
    })
    .await?;
    super::plain_form_done_at("/settings?approval_saved=1#new-agents");
    Ok(saved)
}

/// Sends a test alert now. A plain form's answer is the screen again,
/// saying whether it was delivered (`?tested=delivered|failed`); why not is
/// in the recent alerts, never in the address (the receiver's answer could
/// name the webhook, secret and all).
#[server(prefix = "/ui", endpoint = "send_test_alert")]
pub async fn send_test_alert() -> Result<TestAlertOutcome, UiError> {
    let outcome = with_services(|s| async move {
        let by = granted::<ChangeSettings>()?;
        s.alerts.send_test(&by).await.map_err(ui_error)
    })
    .await?;
    let tested = if outcome.delivered {
        "delivered"
    } else {
        "failed"
    };
    super::plain_form_done_at(&format!("/settings?tested={tested}#alerts"));
    Ok(outcome)
}

/// The caller's own tokens; `None` for a role that may have none (a viewer),
/// whose Settings has no API tokens section.
#[server(prefix = "/ui", endpoint = "list_api_tokens")]
pub async fn list_api_tokens() -> Result<Option<Vec<TokenView>>, UiError> {
    with_services(|s| async move {
        let Some(by) = crate::backend::granted_or_none::<ManageOwnApiTokens>()? else {
            return Ok(None);
        };
        s.api_tokens.list(&by).await.map(Some).map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "create_api_token")]
pub async fn create_api_token(name: String, scope: String) -> Result<CreatedToken, UiError> {
    let input = protocol::tokens::TokenInput { name, scope };
    with_services(|s| async move {
        let by = granted::<ManageOwnApiTokens>()?;
        s.api_tokens.create(&by, &input).await.map_err(ui_error)
    })
    .await
}

/// Revokes one of one's tokens. Sent by the confirmation's plain form
/// (pages::api_tokens): its answer is the tab without the question.
#[server(prefix = "/ui", endpoint = "revoke_api_token")]
pub async fn revoke_api_token(id: ApiTokenId) -> Result<TokenView, UiError> {
    let revoked = with_services(|s| async move {
        let by = granted::<ManageOwnApiTokens>()?;
        s.api_tokens.revoke(&by, &id).await.map_err(ui_error)
    })
    .await?;
    super::plain_form_done_at("/settings/tokens#api-tokens");
    Ok(revoked)
}
