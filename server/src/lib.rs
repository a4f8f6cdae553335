//! KnotRoute Control: configuration, database, domain services and the HTTP
//! adapters (JSON API, Leptos pages). The binary in `main.rs` wires them up;
//! integration tests build the same router.

pub mod config;
pub mod db;
pub mod domain;
pub mod entities;
pub mod http;
pub mod metrics;
pub mod ops;
pub mod state;

pub use state::AppState;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
