//! An onboarding invite: a public page at `/join/<token>` for one network
//! profile. Only the token's hash is stored; the link is shown once.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "invites")]
pub struct Model {
    /// `inv_…`: how the admin refers to the invite without knowing its token.
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// SHA-256 of the token, lowercase hex.
    #[sea_orm(unique)]
    pub token_hash: String,
    /// Random, per invite: the cookie value that marks a browser already counted.
    pub visitor_key: String,
    pub network_id: String,
    /// What the invite page calls the network.
    pub name: String,
    pub created_at: DateTimeUtc,
    /// None: never expires.
    pub expires_at: Option<DateTimeUtc>,
    /// None: any number of opens.
    pub max_opens: Option<i32>,
    /// Opens counted so far: one per browser that keeps the invite's cookie.
    pub opens: i32,
    pub last_opened_at: Option<DateTimeUtc>,
    pub revoked_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
