//! Server functions of the setup checklist and the operations policy. The
//! server words every sentence in the reader's language, so the browser
//! carries no tables of them.

use crate::error::UiError;
use leptos::prelude::*;
use protocol::policy::OperationsPolicy;
use protocol::setup::SetupChecklist;
#[cfg(feature = "ssr")]
use protocol::{policy::PolicyInput, setup::SkipInput};

#[cfg(feature = "ssr")]
use crate::backend::granted;
#[cfg(feature = "ssr")]
use crate::{
    api::{parse_id, with_reader, with_services},
    error::ui_error,
};
#[cfg(feature = "ssr")]
use domain::access::roles::{ChangeSettings, EditNetworks};

/// How this request reached Control (the server provides it per request).
#[cfg(feature = "ssr")]
pub(crate) fn transport() -> domain::setup::RequestTransport {
    use_context::<domain::setup::RequestTransport>().unwrap_or_default()
}

#[cfg(feature = "ssr")]
fn lang() -> protocol::Lang {
    use_context::<crate::i18n::Lang>().unwrap_or_default()
}

#[server(prefix = "/ui", endpoint = "setup_checklist")]
pub async fn load_setup(id: String) -> Result<SetupChecklist, UiError> {
    let (transport, lang) = (transport(), lang());
    with_reader(|s, who| async move {
        let id = parse_id(&id)?;
        s.setup
            .checklist(who.networks(), &id, transport, lang)
            .await
            .map_err(ui_error)
    })
    .await
}

/// Skips a step by choice, or takes it back; answers the checklist as it
/// now stands.
#[server(prefix = "/ui", endpoint = "skip_setup_step")]
pub async fn skip_setup_step(
    id: String,
    step: String,
    skipped: bool,
) -> Result<SetupChecklist, UiError> {
    let (transport, lang) = (transport(), lang());
    with_services(|s| async move {
        let id = parse_id(&id)?;
        let by = granted::<EditNetworks>()?;
        s.setup
            .skip(&by, &id, &SkipInput { step, skipped })
            .await
            .map_err(ui_error)?;
        s.setup
            .checklist(by.scope(), &id, transport, lang)
            .await
            .map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "policy")]
pub async fn load_policy() -> Result<OperationsPolicy, UiError> {
    let lang = lang();
    with_services(|s| async move {
        let by = granted::<ChangeSettings>()?;
        s.policy.read(&by, lang).await.map_err(ui_error)
    })
    .await
}

/// Saves the two written parts. Sent by the policy page's form, a plain
/// HTML form (pages::policy): the answer is the page again, saying it was
/// saved (`?saved`), or with the refusal in the address.
#[server(prefix = "/ui", endpoint = "save_policy")]
pub async fn save_policy(relays: String, revocation: String) -> Result<OperationsPolicy, UiError> {
    let lang = lang();
    let input = PolicyInput { relays, revocation };
    let saved = with_services(|s| async move {
        let by = granted::<ChangeSettings>()?;
        s.policy.write(&by, &input, lang).await.map_err(ui_error)
    })
    .await;
    super::answer_plain_form(saved, "/policy?saved=1#policy-form")
}
