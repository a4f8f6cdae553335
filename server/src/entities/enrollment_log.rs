//! Every enrollment attempt, accepted or refused, with its reason: what an
//! operator reads when a host will not enroll.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "enrollment_log")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub at: DateTimeUtc,
    /// The client address the attempt came from.
    pub client: String,
    /// The Agent ID, when the key was well-formed.
    pub agent_id: Option<String>,
    /// The name the Agent sent (bounded).
    pub name: String,
    pub accepted: bool,
    /// `accepted` or the refusal code (see `EnrollRefusal`).
    pub reason: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
