//! Server functions of the end-to-end probe panel (issue 25). The rules are
//! `domain::probes`'; the browser checks the interval first with the same
//! `protocol` rule.

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
/// queued at once.
#[server(prefix = "/ui", endpoint = "save_probe")]
pub async fn save_probe(
    id: String,
    service: String,
    agent_id: String,
    every_minutes: u32,
) -> Result<ProbeScreen, UiError> {
    with_services(|s| async move {
        let id = parse_id(&id)?;
        let by = granted::<EditNetworks>()?;
        let input = protocol::probes::ProbeSettings {
            service,
            agent_id,
            every_minutes,
        };
        domain::probes::save(&s.db, &s.jobs, &by, &id, &input)
            .await
            .map_err(ui_error)?;
        domain::probes::screen(&s.db, &s.inventory, by.scope(), &id)
            .await
            .map_err(ui_error)
    })
    .await
}

/// Stops probing the network (asked after a confirmation).
#[server(prefix = "/ui", endpoint = "remove_probe")]
pub async fn remove_probe(id: String) -> Result<ProbeScreen, UiError> {
    with_services(|s| async move {
        let id = parse_id(&id)?;
        let by = granted::<EditNetworks>()?;
        domain::probes::remove(&s.db, &s.jobs, &by, &id)
            .await
            .map_err(ui_error)?;
        domain::probes::screen(&s.db, &s.inventory, by.scope(), &id)
            .await
            .map_err(ui_error)
    })
    .await
}
