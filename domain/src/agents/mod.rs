//! Agents: their signed requests and heartbeats, enrollment with the shared
//! or a one-time install token, the inventory and lifecycle the admin sees,
//! their status, revoked keys, and what they report about Control's key.

pub mod approval;
pub mod control_trust;
pub mod enrollment;
pub mod extensions;
pub mod install_tokens;
pub mod inventory;
pub mod requests;
pub mod revoked_keys;
pub mod status;
