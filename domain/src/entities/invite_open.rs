//! A platform an invite was opened on (the invite page tells it from the
//! browser): what the setup checklist's onboarding step reports.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "invite_opens")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub invite_id: String,
    /// `protocol::onboarding::Platform::slug`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub platform: String,
    pub first_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
