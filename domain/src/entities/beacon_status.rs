//! The latest check of one Beacon URL of a profile, and its last failure:
//! what the Beacons screen shows without reading raw history.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "beacon_status")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub network_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub url: String,
    pub checked_at: DateTimeUtc,
    pub ok: bool,
    pub latency_ms: Option<i32>,
    pub class: String,
    pub detail: String,
    /// The last failed check, if there ever was one.
    pub failed_at: Option<DateTimeUtc>,
    pub failure_class: String,
    pub failure_detail: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
