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
    /// Whether the key still works. The row (and its key) stays after a
    /// revocation or a move so the old host's requests get a clear answer.
    pub retired: Retirement,
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
    /// Enrolled but not approved yet (`agents::approval`): its heartbeats
    /// are recorded, it gets no jobs and belongs to no network.
    #[serde(default)]
    pub pending: bool,
    /// What the Agent announced it speaks beyond version 1 (the
    /// `X-Knot-Extensions` header of its latest heartbeat or enrollment);
    /// empty for a version-1 Agent. Read with [`Model::extensions`].
    #[serde(default)]
    pub extensions: String,
}

impl Model {
    /// The extensions this Agent announced: what Control may send it.
    pub fn extensions(&self) -> protocol::extensions::Extensions {
        protocol::extensions::Extensions::parse(&self.extensions)
    }
}

/// Whether an Agent's key still works; stored as '', `revoked` or `moved`.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    EnumIter,
    DeriveActiveEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::N(16))")]
pub enum Retirement {
    /// The key works.
    #[sea_orm(string_value = "")]
    #[serde(rename = "")]
    Active,
    /// The admin revoked it.
    #[sea_orm(string_value = "revoked")]
    #[serde(rename = "revoked")]
    Revoked,
    /// Another host took the record over with a move token.
    #[sea_orm(string_value = "moved")]
    #[serde(rename = "moved")]
    Moved,
}

impl Retirement {
    pub fn is_retired(self) -> bool {
        self != Retirement::Active
    }
}

impl std::fmt::Display for Retirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Retirement::Active => "active",
            Retirement::Revoked => "revoked",
            Retirement::Moved => "moved",
        })
    }
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
