//! A step of a network's setup checklist that an admin chose to leave out.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "setup_skips")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub network_id: String,
    /// `protocol::setup::SetupStep::slug`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub step: String,
    pub skipped_by: String,
    pub skipped_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
