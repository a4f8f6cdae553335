//! A network profile row.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "networks")]
pub struct Model {
    /// Network ID (`kn_…`), lowercase, immutable.
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// Display name, 1–80 characters.
    pub name: String,
    /// Free text, possibly empty.
    pub description: String,
    /// Beacon URLs as a JSON array of normalised strings (portable across both databases).
    pub beacons: String,
    /// Whether Control's own checks of these Beacons may reach private
    /// addresses: the list was last changed by someone who may point Control
    /// at them (`address_policy`). Old backups lack it: then true, as their
    /// lists were written before the rule.
    #[serde(default = "listed_before_the_rule")]
    pub beacons_may_be_private: bool,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    /// Raised by one on every change (starts at 1): writers compare it to the
    /// version their change was based on, so none silently undoes another's.
    pub version: i64,
}

fn listed_before_the_rule() -> bool {
    true
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
