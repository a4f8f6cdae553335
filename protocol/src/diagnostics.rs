//! Layered diagnostics of a network (DESIGN.md: Control → Agent → Beacon →
//! sidecar): one line per step, in the order an operator should fix them.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Ok,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Ok => "ok",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Which layer a line is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    Beacon,
    Agent,
    Service,
}

/// The step a line reports on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// The profile lists no Beacon URL at all.
    BeaconUrls,
    Dns,
    /// TCP connect to the Beacon's HTTP port.
    Connect,
    /// `GET /healthz` over HTTP(S), with the TLS handshake.
    Healthz,
    /// TCP connect to the relay transport (7447).
    Relay,
    /// Agents that run this network's components.
    Agents,
    Online,
    Docker,
    Container,
    KnotAddress,
}

/// One finding: what was checked, how it went, why, and what to do next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiagnosticLine {
    pub layer: Layer,
    /// The Beacon URL, Agent name or service name.
    pub subject: String,
    pub step: Step,
    pub severity: Severity,
    pub reason: String,
    /// Empty when there is nothing to do.
    pub next_step: String,
}

/// A network's diagnosis: its Beacons, then its Agents, then its services.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Diagnosis {
    pub network_id: String,
    /// RFC 3339 UTC.
    pub checked_at: String,
    pub lines: Vec<DiagnosticLine>,
}

impl Diagnosis {
    /// The worst severity found.
    pub fn worst(&self) -> Severity {
        let has = |s| self.lines.iter().any(|l| l.severity == s);
        if has(Severity::Error) {
            Severity::Error
        } else if has(Severity::Warning) {
            Severity::Warning
        } else {
            Severity::Ok
        }
    }
}
