//! One network a person sees. A person with no rows sees every network
//! (`access::scope::NetworkScope`); the owner role always does.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "user_networks")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub user_id: String,
    /// No foreign key to `networks`: a deleted network's rows stay, so the
    /// person keeps seeing nothing of it rather than everything.
    #[sea_orm(primary_key, auto_increment = false)]
    pub network_id: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
