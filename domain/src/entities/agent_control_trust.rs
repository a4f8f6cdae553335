//! What an Agent reports about Control's key: the key it pinned, and the
//! last answer it refused because that key did not sign it.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "agent_control_trust")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub agent_id: String,
    /// The Control key the Agent pinned ('' when it has none).
    pub pinned_key: String,
    /// `current`, `previous` (during a rotation), `retired`, `unknown` or ''
    /// (no pin), judged against Control's keys when the pin was reported.
    pub pin_state: String,
    /// When the Agent last refused an answer (its clock).
    pub refused_at: Option<DateTimeUtc>,
    /// Refused answers reported so far.
    pub refused_count: i64,
    /// `unsigned`, `other_key`, `bad_signature`, … of the last one.
    pub refused_reason: String,
    pub refused_detail: String,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
