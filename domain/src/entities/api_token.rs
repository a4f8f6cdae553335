//! A personal API token: its hash, never the token itself.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "api_tokens")]
pub struct Model {
    /// `tok_…`, what the list and the revoke action name it by.
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub name: String,
    /// Lowercase hex SHA-256 of the token.
    #[sea_orm(unique)]
    pub token_hash: String,
    /// The token's first characters, shown so the admin can tell tokens apart.
    pub prefix: String,
    /// `read` or `write`.
    pub scope: String,
    pub created_at: DateTimeUtc,
    pub last_used_at: Option<DateTimeUtc>,
    pub revoked_at: Option<DateTimeUtc>,
    /// Whose token it is; `None` for the break-glass owner account.
    pub user_id: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
