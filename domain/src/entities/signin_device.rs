//! A browser the admin signed in with before (the `kr_device` cookie). Only
//! the SHA-256 of its token is kept; it opens nothing by itself, it only gives
//! that browser a sign-in budget apart from its address.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "signin_devices")]
pub struct Model {
    /// Lowercase hex SHA-256 of the cookie's token.
    #[sea_orm(primary_key, auto_increment = false)]
    pub token_hash: String,
    pub created_at: DateTimeUtc,
    /// The mark is ignored from this time on.
    pub expires_at: DateTimeUtc,
    /// The account it last signed in to (`sign_in::account_key`); that
    /// account's budget does not hold this browser back. `*` for a mark from
    /// a trust-browser link (every account's), none for one made before
    /// marks were bound.
    pub account: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
