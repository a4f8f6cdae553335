//! Beacons: health checks (on demand and scheduled), their history, and the
//! network diagnosis that walks from each Beacon to the services.

pub mod checks;
pub mod diagnostics;
pub mod diagnostics_text;
pub mod history;
pub mod schedule;
