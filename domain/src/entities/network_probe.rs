//! A network's end-to-end probe: which service, opened from which Agent,
//! how often (`protocol::probes::ProbeSettings`).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "network_probes")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub network_id: String,
    /// The service's name; its sidecar is `sidecar-<service>`.
    pub service: String,
    pub agent_id: String,
    pub every_minutes: i32,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
