//! Domain services: the rules of Control, independent of HTTP. The UI's server
//! functions and the JSON API both call these, so each rule lives here once.

pub mod agent_inventory;
pub mod agent_status;
pub mod agents;
pub mod audit;
pub mod auth;
pub mod jobs;
pub mod networks;
pub mod overview;
pub mod secrets;

use sea_orm::DbErr;

/// A database failure, logged in full where it happens and shown to clients only as "internal".
#[derive(Debug, thiserror::Error)]
#[error("database error: {0}")]
pub struct StoreError(#[from] pub DbErr);
