//! A key an admin revoked: refused at enrollment even after its Agent record
//! is deleted, until the admin allows it again (which deletes this row).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "revoked_keys")]
pub struct Model {
    /// The Agent ID, derived from the key: the key itself, for this purpose.
    #[sea_orm(primary_key, auto_increment = false)]
    pub agent_id: String,
    /// The key in its wire form ('' for keys revoked before this record existed).
    pub public_key: String,
    /// The Agent's name when it was revoked, so the admin knows which it was.
    pub name: String,
    pub revoked_at: DateTimeUtc,
    /// `revoked` (an admin revoked an enrolled Agent) or `rejected` (an
    /// admin refused an Agent waiting for approval).
    #[serde(default = "revoked")]
    pub reason: String,
}

fn revoked() -> String {
    "revoked".into()
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
