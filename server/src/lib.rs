//! KnotRoute Control: configuration, database and the HTTP adapters (JSON
//! API, Leptos pages) over the domain services of the `domain` crate. The
//! binary in `main.rs` wires them up; integration tests build the same router.

pub mod config;
pub mod db;
pub mod http;
pub mod ops;
pub mod state;

/// The domain crate under the paths the server's code (and tests) use.
pub use ::domain;
pub use ::domain::{entities, metrics};

pub use state::AppState;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
