//! A one-time link with which a person may set up the second factor the
//! owner requires (`access::second_factor::setup_link`). Only its hash is
//! kept; one per person, replaced by a newer one, deleted once used.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "second_factor_setup_links")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub user_id: String,
    /// SHA-256 of the link's token.
    #[sea_orm(unique)]
    pub token_hash: String,
    pub expires_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
