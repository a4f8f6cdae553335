//! A signed Agent request that was accepted; a second one with the same
//! signature is a replay.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "seen_signatures")]
pub struct Model {
    /// Lowercase hex SHA-256 of the signature in its one wire spelling (so, of its 64 bytes).
    #[sea_orm(primary_key, auto_increment = false)]
    pub signature_hash: String,
    pub agent_id: String,
    /// Rows older than the timestamp window are pruned: such requests fail the window check anyway.
    pub seen_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
