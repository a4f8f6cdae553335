//! What one end-to-end probe found (`protocol::probes::ProbeReport`), with
//! Control's clock. Kept 30 days, like Beacon checks.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "probe_runs")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub network_id: String,
    pub job_id: String,
    pub agent_id: String,
    /// The Agent's name then, so the history reads after a rename or removal.
    pub agent_name: String,
    pub service: String,
    /// `<56 base32>.knot`, as opened.
    pub address: String,
    pub at: DateTimeUtc,
    pub ok: bool,
    pub latency_ms: i32,
    /// `protocol::probes::ProbeStage::slug`; empty when it passed.
    pub stage: String,
    /// Why it failed, in the Agent's words (bounded); empty when it passed.
    pub detail: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
