//! knotroute-agent: enrolls with Control, sends signed heartbeats, takes jobs
//! and deploys Beacons and sidecars with Docker Compose (PROTOCOL.md).

pub mod client;
pub mod compose;
pub mod config;
pub mod control_pin;
pub mod control_speaks;
pub mod docker;
pub mod enrollment;
pub mod health;
pub mod identity;
pub mod inventory;
pub mod private_file;
pub mod progress;
pub mod redact;
pub mod run;
pub mod workload;
