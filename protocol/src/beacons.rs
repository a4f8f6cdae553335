//! Beacons in the admin API: every Beacon URL of every network profile, with
//! its latest health check, and the request that adds an existing Beacon.

use crate::validation::{self, FieldError, Problem};
use serde::{Deserialize, Serialize};

/// Why a Beacon check failed, in the order a connection gets there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum CheckClass {
    /// /healthz answered 2xx.
    Ok,
    /// The host name did not resolve.
    Dns,
    /// Nothing accepted the TCP connection.
    Connect,
    /// The TLS handshake failed (untrusted or mismatched certificate, …).
    Tls,
    /// No answer within the time limit.
    Timeout,
    /// An answer, but not 2xx.
    HttpStatus,
    /// Refused before connecting: the address is link-local (cloud metadata).
    Blocked,
}

impl CheckClass {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckClass::Ok => "ok",
            CheckClass::Dns => "dns",
            CheckClass::Connect => "connect",
            CheckClass::Tls => "tls",
            CheckClass::Timeout => "timeout",
            CheckClass::HttpStatus => "http_status",
            CheckClass::Blocked => "blocked",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [
            CheckClass::Ok,
            CheckClass::Dns,
            CheckClass::Connect,
            CheckClass::Tls,
            CheckClass::Timeout,
            CheckClass::HttpStatus,
            CheckClass::Blocked,
        ]
        .into_iter()
        .find(|c| c.as_str() == text)
    }
}

/// One health check of a Beacon URL.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BeaconCheckView {
    pub network_id: String,
    pub url: String,
    /// RFC 3339 UTC.
    pub checked_at: String,
    pub ok: bool,
    /// Time to the /healthz answer, when there was one.
    pub latency_ms: Option<u32>,
    pub class: CheckClass,
    /// The HTTP status and a body excerpt, or the error, bounded.
    pub detail: String,
}

/// A Beacon URL of a network profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BeaconView {
    pub network_id: String,
    pub network_name: String,
    pub url: String,
    /// The component deployed for it (`beacon-<slug>` on an Agent), if Control
    /// deployed it; otherwise it is an external Beacon Control does not manage.
    pub managed_by: Option<ManagedBeacon>,
    pub last_check: Option<BeaconCheckView>,
    /// The most recent failed check, however long ago.
    #[serde(default)]
    pub last_failure: Option<BeaconCheckView>,
    /// The last 24 hours, oldest first, one entry per hour (the current one
    /// last): what the sparkline draws.
    #[serde(default)]
    pub last_24h: Vec<LatencyHour>,
}

/// One hour of a Beacon URL's checks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LatencyHour {
    /// The start of the hour, RFC 3339 UTC.
    pub hour: String,
    pub checks: u32,
    pub failures: u32,
    /// Mean latency of the successful checks, when there were any.
    pub mean_ms: Option<u32>,
    pub max_ms: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ManagedBeacon {
    pub agent_id: String,
    pub component_id: String,
}

/// `POST /api/v1/beacons/check` and `POST /api/v1/beacons`: a Beacon URL of a profile.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BeaconRef {
    #[serde(default)]
    pub network_id: String,
    #[serde(default)]
    pub url: String,
}

impl BeaconRef {
    /// The network ID and the normalised URL, or the refused fields.
    pub fn validate(&self) -> Result<(crate::NetworkId, String), Vec<FieldError>> {
        let mut errors = Vec::new();
        let network = match crate::NetworkId::parse(self.network_id.trim()) {
            Ok(id) => Some(id),
            Err(_) => {
                let problem = if self.network_id.trim().is_empty() {
                    Problem::Required
                } else {
                    Problem::NetworkIdFormat
                };
                errors.push(FieldError::new("network_id", problem));
                None
            }
        };
        let url = match validation::beacon_url(&self.url) {
            Ok(url) => Some(url),
            Err(problem) => {
                errors.push(FieldError::new("url", problem));
                None
            }
        };
        match (network, url) {
            (Some(network), Some(url)) if errors.is_empty() => Ok((network, url)),
            _ => Err(errors),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_beacon_reference_is_checked_and_normalised() {
        let id = crate::NetworkId::from_random_bytes([1; 32]).to_string();
        let (network, url) = BeaconRef {
            network_id: id.clone(),
            url: " https://Beacon.example.net ".into(),
        }
        .validate()
        .unwrap();
        assert_eq!(network.as_str(), id);
        assert!(url.starts_with("https://beacon.example.net"), "{url}");
        let refused = BeaconRef {
            network_id: "nope".into(),
            url: String::new(),
        }
        .validate()
        .unwrap_err();
        let fields: Vec<_> = refused.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["network_id", "url"]);
        assert_eq!(
            CheckClass::parse("http_status"),
            Some(CheckClass::HttpStatus)
        );
        assert_eq!(CheckClass::parse("nonsense"), None);
    }
}
