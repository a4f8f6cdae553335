//! When a scheduled task is next due; the replica that moves `next_at` on
//! runs that round.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "schedule_leases")]
pub struct Model {
    /// The task, e.g. `beacon_checks`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub name: String,
    pub next_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
