//! What an Agent reported about one identity archive of a sidecar
//! (`protocol::backups::BackupReport`). The archive stays on the Agent's host.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "identity_backups")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub agent_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub component_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub archive: String,
    pub network_id: Option<String>,
    pub directory: String,
    pub size_bytes: i64,
    pub sha256: String,
    pub taken_at: DateTimeUtc,
    pub address: String,
    /// When a `verify_backup` last restored it to `address`.
    pub verified_at: Option<DateTimeUtc>,
    /// Why the last verification failed; empty when it did not.
    pub verify_error: String,
    /// The plan of the backup job that took it: archives kept, and how
    /// often (`protocol::backups::BackupEvery::slug`).
    pub keep: i32,
    pub every: String,
    /// Control's clock when it first heard of the archive.
    pub recorded_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
