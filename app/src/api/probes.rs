//! Server functions of the end-to-end probe panel. The rules are
//! `domain::probes`'. The panel's form is a plain HTML form (pages::probe):
//! a plain post is answered with the setup page again.

use crate::error::UiError;
use leptos::prelude::*;
use protocol::probes::ProbeScreen;

#[cfg(feature = "ssr")]
use crate::backend::granted;
#[cfg(feature = "ssr")]
use crate::{
    api::{parse_id, with_reader, with_services},
    error::ui_error,
};
#[cfg(feature = "ssr")]
use domain::access::roles::EditNetworks;

#[server(prefix = "/ui", endpoint = "probe")]
pub async fn load_probe(id: String) -> Result<ProbeScreen, UiError> {
    with_reader(|s, who| async move {
        let id = parse_id(&id)?;
        domain::probes::screen(&s.db, &s.inventory, who.networks(), &id)
            .await
            .map_err(ui_error)
    })
    .await
}

/// Chooses the service, the Agent and the interval; the first probe is
/// queued at once. The interval comes as the form sends it: what is not a
/// number is refused at its field, as an interval out of range is.
#[server(prefix = "/ui", endpoint = "save_probe")]
pub async fn save_probe(
    id: String,
    service: String,
    agent_id: String,
    every_minutes: String,
) -> Result<ProbeScreen, UiError> {
    let saved = with_services(|s| async move {
        let id = parse_id(&id)?;
        let by = granted::<EditNetworks>()?;
        let input = protocol::probes::ProbeSettings {
            service,
            agent_id,
            // 0 is out of range: refused as such.
            every_minutes: every_minutes.trim().parse().unwrap_or(0),
        };
        domain::probes::save(&s.db, &s.jobs, &by, &id, &input)
            .await
            .map_err(ui_error)?;
        let screen = domain::probes::screen(&s.db, &s.inventory, by.scope(), &id)
            .await
            .map_err(ui_error)?;
        Ok((id, screen))
    })
    .await;
    answer_plain_form(saved, "?probe_saved=1#probe")
}

/// Stops probing the network (asked after a confirmation).
#[server(prefix = "/ui", endpoint = "remove_probe")]
pub async fn remove_probe(id: String) -> Result<ProbeScreen, UiError> {
    let removed = with_services(|s| async move {
        let id = parse_id(&id)?;
        let by = granted::<EditNetworks>()?;
        domain::probes::remove(&s.db, &s.jobs, &by, &id)
            .await
            .map_err(ui_error)?;
        let screen = domain::probes::screen(&s.db, &s.inventory, by.scope(), &id)
            .await
            .map_err(ui_error)?;
        Ok((id, screen))
    })
    .await;
    // Back to the page without the question the confirmation was asked at.
    answer_plain_form(removed, "#probe")
}

/// The screen a probe action answers with; a plain form's post done is
/// sent on to the network's setup page, at `then` (a refusal goes back to
/// where the form was, with it in the address: `api::with_status`).
#[cfg(feature = "ssr")]
fn answer_plain_form(
    done: Result<(protocol::NetworkId, ProbeScreen), UiError>,
    then: &str,
) -> Result<ProbeScreen, UiError> {
    let (id, screen) = done?;
    crate::api::plain_form_done_at(&format!("/networks/{id}/setup{then}"));
    Ok(screen)
}
