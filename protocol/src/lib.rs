//! The wire contract shared by Control, Agent and browser (see PROTOCOL.md):
//! identifiers, the shapes of API messages and the input rules. No I/O, so it
//! builds for wasm32 and the browser checks input with exactly the rules the
//! server enforces.

pub mod actions;
pub mod agent;
pub mod alerts;
pub mod api;
pub mod backups;
pub mod beacons;
pub mod catalog;
pub mod control_identity;
pub mod diagnostics;
pub mod extensions;
pub mod ids;
pub mod jobs;
pub mod live;
pub mod names;
pub mod onboarding;
pub mod policy;
pub mod probes;
pub mod progress;
pub mod refusals;
pub mod second_factor;
pub mod services;
pub mod setup;
pub mod signing;
pub mod status;
pub mod tokens;
pub mod users;
pub mod validation;

pub use ids::{AgentId, ApiTokenId, Id, InstallTokenId, InviteId, JobId, NetworkId, UserId};
pub use status::{
    AgentStatus, AlertStatus, ComponentStatus, InstallTokenState, InviteState, JobStatus,
};
pub use validation::{FieldError, Lang, Problem};
