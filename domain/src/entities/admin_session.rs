//! A signed-in admin browser or script. Only the SHA-256 of the token is kept,
//! so a copy of the database does not let anyone sign in.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "admin_sessions")]
pub struct Model {
    /// Lowercase hex SHA-256 of the cookie's token.
    #[sea_orm(primary_key, auto_increment = false)]
    pub token_hash: String,
    pub created_at: DateTimeUtc,
    /// The session is refused from this time on.
    pub expires_at: DateTimeUtc,
    /// The client address that signed in, for the audit trail.
    pub client: String,
    /// The person signed in; `None` for the break-glass owner account.
    pub user_id: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
