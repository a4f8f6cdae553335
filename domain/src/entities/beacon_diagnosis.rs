//! What the last Diagnose found about one Beacon of a profile beyond its
//! health check: the addresses its name resolved to and its relay port.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "beacon_diagnoses")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub network_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub url: String,
    pub checked_at: DateTimeUtc,
    /// The resolved IP addresses, a JSON array of strings (empty when the
    /// name did not resolve).
    pub addresses: String,
    /// `open`, `closed`, or `untested` (the diagnosis stopped before the
    /// relay step).
    pub relay: String,
    /// The relay address reached, or why it was not.
    pub relay_detail: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

/// What a diagnosis found of a Beacon's relay port, as `relay` and
/// `relay_detail` store it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Relay {
    /// Accepted a connection at this address.
    Open(String),
    /// Did not; why.
    Closed(String),
    /// The diagnosis stopped before the relay step.
    Untested,
}

impl Relay {
    /// (`relay`, `relay_detail`).
    pub fn stored(&self) -> (&'static str, &str) {
        match self {
            Relay::Open(address) => ("open", address),
            Relay::Closed(detail) => ("closed", detail),
            Relay::Untested => ("untested", ""),
        }
    }

    pub fn from_stored(relay: &str, detail: String) -> Self {
        match relay {
            "open" => Relay::Open(detail),
            "closed" => Relay::Closed(detail),
            _ => Relay::Untested,
        }
    }
}
