//! One of Control's signing keys (protocol::control_identity). The newest
//! signs every answer to an Agent; during a rotation the previous one signs
//! too, until `retire_at`.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "control_keys")]
pub struct Model {
    /// 1 for the key made at first start, one more per rotation.
    #[sea_orm(primary_key, auto_increment = false)]
    pub generation: i64,
    /// Base64 without padding, as Agents pin it.
    #[sea_orm(unique)]
    pub public_key: String,
    /// The 32-byte seed, base64 without padding; '' once retired.
    pub private_key: String,
    pub created_at: DateTimeUtc,
    /// When a rotation retires this key (it signs until then).
    pub retire_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
