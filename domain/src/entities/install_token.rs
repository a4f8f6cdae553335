//! A one-time install token: enrolls one Agent, expires, can be revoked. Only
//! its hash is stored; the token itself is shown once, when created.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "install_tokens")]
pub struct Model {
    /// `it_…`: how the admin refers to the token without knowing it.
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    #[sea_orm(unique)]
    pub token_hash: String,
    /// Name given to the Agent that enrolls with it ('' = the Agent's own).
    pub name: String,
    /// JSON array of tags given to that Agent.
    pub tags: String,
    pub created_at: DateTimeUtc,
    pub expires_at: DateTimeUtc,
    pub used_at: Option<DateTimeUtc>,
    /// The Agent that enrolled with it.
    pub used_by: Option<String>,
    pub revoked_at: Option<DateTimeUtc>,
    /// For a move: the Agent record the new host takes over.
    pub replaces_agent: Option<String>,
    /// The Agent that enrolls with it waits for an admin's approval, as one
    /// enrolled with the shared token does; otherwise the admin who made
    /// the token has approved it.
    #[serde(default)]
    pub needs_approval: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
