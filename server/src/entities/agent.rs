//! An enrolled Agent. Enrollment and heartbeats fill these rows (agent API);
//! the Overview counts them.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "agents")]
pub struct Model {
    /// Agent ID (`ka_…`), derived from the pinned public key.
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub name: String,
    /// The pinned Ed25519 public key, base64 without padding.
    #[sea_orm(unique)]
    pub public_key: String,
    pub hostname: String,
    pub version: String,
    /// JSON array of tags.
    pub tags: String,
    /// A disabled Agent gets no jobs and does not count as connected.
    pub disabled: bool,
    pub docker_available: bool,
    pub docker_version: String,
    /// Time of the last verified heartbeat.
    pub last_heartbeat_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    /// '' while the key works; `revoked` or `moved` once it no longer does.
    /// The row (and its key) stays so the old host's requests get a clear answer.
    pub retired: String,
    /// The Agent that took this record over after a move.
    pub moved_to: Option<String>,
    /// SHA-256 of the last heartbeat's content (agent fields and components).
    pub report_hash: String,
    /// Set while a desired component may need a deployment, so heartbeats
    /// read the components even when the report did not change.
    pub reconcile_pending: bool,
    /// Named (and tagged) by an admin through an install token: heartbeats
    /// do not overwrite the name and tags.
    pub named_by_admin: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(has_many = "super::component::Entity")]
    Component,
}

impl Related<super::component::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Component.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
