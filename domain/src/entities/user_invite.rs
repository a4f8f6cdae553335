//! A one-time invitation link for a person: only the SHA-256 of its token.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "user_invites")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub token_hash: String,
    /// The role the person gets.
    pub role: String,
    /// Who invited, as the audit log names them.
    pub created_by: String,
    pub created_at: DateTimeUtc,
    pub expires_at: DateTimeUtc,
    /// The networks the person will see, a JSON array of Network IDs; `[]`
    /// is all of them.
    pub networks: String,
    /// Set when the link was used; it never works again.
    pub used_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
