//! One health check of a Beacon URL.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "beacon_checks")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub network_id: String,
    pub url: String,
    pub checked_at: DateTimeUtc,
    pub ok: bool,
    pub latency_ms: Option<i32>,
    /// `ok`, `dns`, `connect`, `tls`, `timeout`, `http_status` or `blocked`.
    pub class: String,
    /// The HTTP status with a body excerpt, or the error, bounded.
    pub detail: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
