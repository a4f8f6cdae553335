//! One hour of one Beacon URL's checks, summed: the 24-hour sparkline.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "beacon_check_hours")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub network_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub url: String,
    /// The start of the hour (UTC).
    #[sea_orm(primary_key, auto_increment = false)]
    pub hour: DateTimeUtc,
    pub checks: i32,
    pub failures: i32,
    /// Summed over the successful checks.
    pub latency_sum_ms: i64,
    pub latency_max_ms: i32,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
