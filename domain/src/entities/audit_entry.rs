//! One line of the audit log.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "audit_log")]
pub struct Model {
    /// Increasing; the list pages by it.
    #[sea_orm(primary_key)]
    pub id: i64,
    pub at: DateTimeUtc,
    /// `admin`, `agent:<id>` or `control` (Control's own timers).
    pub actor: String,
    /// A stable slug, e.g. `network.created`, `job.finished`.
    pub action: String,
    /// What it was done to: a Network, Agent or Job ID.
    pub subject: String,
    /// A short, bounded explanation.
    pub detail: String,
    /// The network it concerns, if any: a person limited to some networks
    /// sees only theirs. (Backups from before it restore without it.)
    #[serde(default)]
    pub network_id: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
