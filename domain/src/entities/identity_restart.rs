//! A sidecar's address before and after one restart its Agent made
//! (`protocol::agent::RestartReport`).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "identity_restarts")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub agent_id: String,
    pub component_id: String,
    pub network_id: Option<String>,
    pub job_id: String,
    pub address_before: String,
    pub address_after: String,
    /// Control's clock when the job finished.
    pub at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
