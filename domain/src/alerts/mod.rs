//! Alerts: where they go, which changes raise them, and their delivery to
//! the webhook.

pub mod delivery;
pub mod events;
pub mod settings;
