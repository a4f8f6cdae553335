//! One webhook alert: waiting (`pending`), delivered (`sent`), given up
//! (`failed`) or replaced by a newer state of the same thing (`superseded`).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "alerts")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    /// What it is about; alerts of one key are debounced together.
    pub key: String,
    /// e.g. `agent.offline`, `beacon.up`, `job.failed`, `test`.
    pub event: String,
    /// The thing's state this alert reports (`down`, `up`, …).
    pub state: String,
    /// The JSON body sent.
    pub payload: String,
    pub created_at: DateTimeUtc,
    /// Not before this (the debounce window of the key's last alert).
    pub send_after: DateTimeUtc,
    pub status: protocol::AlertStatus,
    pub attempts: i32,
    /// A replica delivering it holds it until then.
    pub lease_until: Option<DateTimeUtc>,
    pub last_error: String,
    pub sent_at: Option<DateTimeUtc>,
    /// The network the thing belongs to, if one; who sees the alert follows.
    pub network_id: Option<String>,
    /// The Agent it is about, for an alert of no network (an Agent offline).
    pub agent_id: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
