//! Every enrollment attempt, accepted or refused, with its reason: what an
//! operator reads when a host will not enroll. Repeated refusals from one
//! address for one reason fold into one row (`attempts`, `first_at`…`at`).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "enrollment_log")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    /// The attempt, or the last of the attempts the row counts.
    pub at: DateTimeUtc,
    /// The first attempt the row counts (`at` for a single one).
    pub first_at: DateTimeUtc,
    /// How many attempts the row counts (1 unless folded).
    pub attempts: i64,
    /// The client address the attempt came from.
    pub client: String,
    /// The Agent ID, when the key was well-formed.
    pub agent_id: Option<String>,
    /// The name the host sent (bounded): its own claim, untrusted.
    pub name: String,
    pub accepted: bool,
    /// `accepted` or the refusal code (see `EnrollRefusal`).
    pub reason: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
