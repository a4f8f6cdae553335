//! One stage of a job (validate, write compose, pull, up, settle, health …)
//! as its Agent reported it through the progress extension.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "job_stages")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub job_id: String,
    /// Its position in the job, from 0.
    #[sea_orm(primary_key, auto_increment = false)]
    pub idx: i32,
    pub name: String,
    pub status: protocol::progress::StageStatus,
    /// The Agent's clock.
    pub started_at: DateTimeUtc,
    pub ended_at: Option<DateTimeUtc>,
    /// Secrets masked by the Agent.
    pub command: Option<String>,
    pub exit_code: Option<i32>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
