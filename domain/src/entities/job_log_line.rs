//! One line of a job's output. Numbers run from 1 per job; where lines were
//! cut to keep the log within its bound, the numbers jump.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "job_log_lines")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub job_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub line: i64,
    /// The stage that printed it.
    pub stage: i32,
    pub text: String,
    /// Its size as counted against the job's bound.
    pub bytes: i32,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
