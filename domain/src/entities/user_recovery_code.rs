//! One single-use recovery code of a person's second factor, as its hash.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "user_recovery_codes")]
pub struct Model {
    /// SHA-256 of the normalised code (`protocol::second_factor::Code`).
    #[sea_orm(primary_key, auto_increment = false)]
    pub code_hash: String,
    pub user_id: String,
    pub created_at: DateTimeUtc,
    pub used_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
