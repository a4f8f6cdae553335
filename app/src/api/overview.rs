//! Server function of the Overview screen's lists: the Agents that need
//! attention and the latest jobs. (The counts come from `api::load_overview`,
//! which the JSON API shares.)

use crate::error::UiError;
use leptos::prelude::*;
use protocol::api::{AgentView, JobView};
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::{api::with_reader, error::ui_error};

/// How many Agents and jobs the Overview lists.
pub const ATTENTION_SHOWN: usize = 8;
pub const RECENT_JOBS_SHOWN: u64 = 6;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverviewLists {
    /// Most urgent first (`AgentView::attention_rank`).
    pub attention: Vec<AgentView>,
    /// How many Agents need attention in all.
    pub attention_total: usize,
    /// Newest first.
    pub recent_jobs: Vec<JobView>,
    /// The setup checklists of the first networks, by name, in one line each.
    pub setup: Vec<protocol::setup::SetupSummary>,
}

#[server(prefix = "/ui", endpoint = "overview_lists")]
pub async fn load_overview_lists() -> Result<OverviewLists, UiError> {
    let lang = use_context::<crate::i18n::Lang>().unwrap_or_default();
    let transport = crate::api::setup::transport();
    with_reader(|s, who| async move {
        let (attention, attention_total) = s
            .inventory
            .needing_attention(who.networks(), ATTENTION_SHOWN)
            .await
            .map_err(ui_error)?;
        // The probe's runs, every few minutes, would push out all others.
        let filter = domain::jobs::queue::JobFilter {
            limit: RECENT_JOBS_SHOWN,
            hide_probe_runs: true,
            ..Default::default()
        };
        let (recent_jobs, _) = s
            .jobs
            .list_views(who.networks(), &filter)
            .await
            .map_err(ui_error)?;
        let setup = s
            .setup
            .summaries(who.networks(), transport, lang)
            .await
            .map_err(ui_error)?;
        Ok(OverviewLists {
            attention,
            attention_total,
            recent_jobs,
            setup,
        })
    })
    .await
}
