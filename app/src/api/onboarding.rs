//! Server functions of the Onboarding screen: a profile's guide per platform
//! and the invites.

use crate::error::UiError;
use leptos::prelude::*;
use protocol::onboarding::{CreatedInvite, InviteView, NewInvite, OnboardingGuide, Platform};
use protocol::InviteId;
use protocol::Lang;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::backend::granted;
#[cfg(feature = "ssr")]
use crate::{
    api::{with_reader, with_services},
    error::ui_error,
};
#[cfg(feature = "ssr")]
use domain::access::roles::ManageInvites;

/// Invites per page on the screen.
pub const INVITES_PAGE: u64 = 20;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InviteListPage {
    pub items: Vec<InviteView>,
    /// Cursor of the next page, when there is one.
    pub next: Option<String>,
}

#[server(prefix = "/ui", endpoint = "load_onboarding_guide", input = leptos::server_fn::codec::Json)]
pub async fn load_onboarding_guide(
    network_id: String,
    platform: Platform,
    lang: Lang,
) -> Result<OnboardingGuide, UiError> {
    with_reader(|s, who| async move {
        let id = protocol::NetworkId::parse(&network_id).map_err(|_| UiError::NotFound)?;
        let profile = s
            .networks
            .get(who.networks(), &id)
            .await
            .map_err(ui_error)?;
        Ok(domain::onboarding::guide::guide(
            &profile, "", platform, lang,
        ))
    })
    .await
}

#[server(prefix = "/ui", endpoint = "create_invite", input = leptos::server_fn::codec::Json)]
pub async fn create_invite(input: NewInvite) -> Result<CreatedInvite, UiError> {
    with_services(|s| async move {
        let by = granted::<ManageInvites>()?;
        s.invites.create(&by, &input).await.map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "list_invites")]
pub async fn list_invites(after: Option<String>) -> Result<InviteListPage, UiError> {
    let after = after.filter(|a| !a.trim().is_empty());
    with_reader(|s, who| async move {
        let (items, next) = s
            .invites
            .list(who.networks(), None, after.as_deref(), INVITES_PAGE)
            .await
            .map_err(ui_error)?;
        Ok(InviteListPage { items, next })
    })
    .await
}

#[server(prefix = "/ui", endpoint = "revoke_invite")]
pub async fn revoke_invite(id: InviteId) -> Result<(), UiError> {
    with_services(|s| async move {
        let by = granted::<ManageInvites>()?;
        s.invites.revoke(&by, &id).await.map(drop).map_err(ui_error)
    })
    .await
}
