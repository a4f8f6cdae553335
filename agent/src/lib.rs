//! knotroute-agent: enrolls with Control, sends signed heartbeats and takes
//! jobs (PROTOCOL.md). Deploying with Docker is not built yet: Docker jobs
//! fail with that reason and heartbeats report Docker as unavailable.

pub mod client;
pub mod compose;
pub mod config;
pub mod identity;
pub mod run;
