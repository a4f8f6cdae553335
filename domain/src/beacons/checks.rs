//! Beacon health checks: `GET <beacon>/healthz`, classified by where it
//! failed (DNS, connect, TLS, timeout, HTTP status), kept as history
//! (`beacon_history`); and the list of every Beacon URL of every profile with
//! its latest check, last failure and last 24 hours.
//!
//! Checks connect only to the addresses they resolved (no second lookup a
//! DNS answer could change) and that [`refused_address`] allows, never
//! through a proxy named in the environment (it would do its own lookup),
//! follow no redirects and read at most 1 KiB of a body.

use crate::access::principal::Granted;
use crate::access::roles::{ActionKind, CheckBeacons, EditNetworks};
use crate::access::scope::NetworkScope;
use crate::address_policy::shown;
pub use crate::address_policy::{refused_address, AddressPolicy};
use crate::alerts::settings::Alerts;
use crate::beacons::history::{self, CheckRecord};
use crate::entities::component;
use crate::metrics::Metrics;
use crate::networks::{NetworkError, Networks};
use crate::text::bounded;
use crate::StoreError;
use chrono::Utc;
use protocol::beacons::{BeaconCheckView, BeaconRef, BeaconView, CheckClass, ManagedBeacon};
use protocol::validation::FieldError;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

/// A check gives up after this long (DNS, connect, TLS and answer together).
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(5);
const DETAIL_MAX: usize = 512;
const BODY_EXCERPT: usize = 1024;

#[derive(Debug, thiserror::Error)]
pub enum BeaconError {
    #[error("invalid input: {0:?}")]
    Invalid(Vec<FieldError>),
    #[error("network profile not found")]
    NetworkNotFound,
    /// The URL is not one of the profile's Beacons.
    #[error("not a Beacon of this profile")]
    NotInProfile,
    /// The profile kept changing through every attempt to add the URL.
    #[error("the profile kept changing")]
    Stale,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<NetworkError> for BeaconError {
    fn from(e: NetworkError) -> Self {
        match e {
            NetworkError::NotFound => BeaconError::NetworkNotFound,
            NetworkError::Invalid(errors) => BeaconError::Invalid(errors),
            NetworkError::Store(e) => BeaconError::Store(e),
            NetworkError::UnknownCursor => BeaconError::NetworkNotFound,
            NetworkError::Stale => BeaconError::Stale,
            NetworkError::NeedsAllNetworks => BeaconError::NetworkNotFound,
        }
    }
}

/// What one probe found.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub class: CheckClass,
    pub latency_ms: Option<u32>,
    pub detail: String,
}

fn failed(class: CheckClass, detail: impl Into<String>) -> Probe {
    Probe {
        class,
        latency_ms: None,
        detail: bounded(&detail.into(), DETAIL_MAX),
    }
}

/// The whole error chain as one line: reqwest hides the cause in sources.
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Why a Beacon host cannot be contacted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreachable {
    /// The name did not resolve: why, as one sentence.
    Dns(String),
    /// It resolves to an address Control never contacts ([`refused_address`]).
    Refused { ip: IpAddr, why: &'static str },
}

/// A URL's host without the brackets of an IPv6 literal.
pub fn bare_host(host: &str) -> &str {
    host.trim_start_matches('[').trim_end_matches(']')
}

/// The addresses of `host` (an IP literal stands for itself), unless any is
/// one Control never contacts. The Beacon check and Diagnose both resolve
/// here, so they refuse the same addresses.
pub async fn resolve(
    host: &str,
    port: u16,
    timeout: Duration,
    policy: AddressPolicy,
) -> Result<Vec<SocketAddr>, Unreachable> {
    let host = bare_host(host);
    let addresses: Vec<SocketAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => {
            match tokio::time::timeout(timeout, tokio::net::lookup_host((host, port))).await {
                Err(_) => return Err(Unreachable::Dns(format!("resolving {host} timed out"))),
                Ok(Err(e)) => return Err(Unreachable::Dns(format!("cannot resolve {host}: {e}"))),
                Ok(Ok(found)) => found.collect(),
            }
        }
    };
    if addresses.is_empty() {
        return Err(Unreachable::Dns(format!("{host} has no address")));
    }
    match addresses
        .iter()
        .find_map(|a| refused_address(a.ip(), policy).map(|why| (a.ip(), why)))
    {
        Some((ip, why)) => Err(Unreachable::Refused { ip, why }),
        None => Ok(addresses),
    }
}

/// At most `max` bytes of a response body, as text: a hostile server could
/// send an endless one, or trickle it (each chunk gets a second).
pub(crate) async fn body_excerpt(response: &mut reqwest::Response, max: usize) -> String {
    let mut body = Vec::new();
    while body.len() < max {
        match tokio::time::timeout(Duration::from_secs(1), response.chunk()).await {
            Ok(Ok(Some(chunk))) => body.extend_from_slice(&chunk),
            _ => break,
        }
    }
    body.truncate(max);
    String::from_utf8_lossy(&body).into_owned()
}

/// Checks `<beacon_url>/healthz` once.
pub async fn probe(beacon_url: &str, timeout: Duration, policy: AddressPolicy) -> Probe {
    let Ok(url) = url::Url::parse(beacon_url) else {
        return failed(CheckClass::Dns, format!("{beacon_url} is not a URL"));
    };
    let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
        return failed(CheckClass::Dns, format!("{beacon_url} names no host"));
    };
    let started = Instant::now();
    let literal = bare_host(host).parse::<IpAddr>().ok();
    let addresses = match resolve(host, port, timeout, policy).await {
        Ok(addresses) => addresses,
        Err(Unreachable::Dns(detail)) => return failed(CheckClass::Dns, detail),
        Err(Unreachable::Refused { ip, why: "private" }) => {
            return failed(
                CheckClass::Blocked,
                format!("{host} resolves to the private address {}; {}", shown(ip), policy.private_refusal()),
            )
        }
        Err(Unreachable::Refused { ip, why }) => {
            return failed(
                CheckClass::Blocked,
                format!("{host} resolves to the {why} address {}; Control never connects to link-local, unspecified or cloud metadata addresses", shown(ip)),
            )
        }
    };
    let mut client = reqwest::Client::builder()
        .timeout(timeout.saturating_sub(started.elapsed()))
        // An HTTP(S)_PROXY from the environment would resolve and connect
        // by itself, past the addresses checked above.
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("knotroute-control/", env!("CARGO_PKG_VERSION")));
    if literal.is_none() {
        client = client.resolve_to_addrs(host, &addresses);
    }
    let client = match client.build() {
        Ok(client) => client,
        Err(e) => return failed(CheckClass::Connect, chain(&e)),
    };
    let healthz = format!("{}/healthz", beacon_url.trim_end_matches('/'));
    let sent = Instant::now();
    let mut response = match client.get(&healthz).send().await {
        Ok(response) => response,
        Err(e) => {
            let text = chain(&e);
            let lower = text.to_ascii_lowercase();
            let class = if e.is_timeout() {
                CheckClass::Timeout
            } else if ["certificate", "tls", "handshake", "ssl"]
                .iter()
                .any(|w| lower.contains(w))
            {
                CheckClass::Tls
            } else {
                CheckClass::Connect
            };
            return failed(class, text);
        }
    };
    let latency_ms = u32::try_from(sent.elapsed().as_millis()).unwrap_or(u32::MAX);
    let status = response.status();
    if status.is_success() {
        return Probe {
            class: CheckClass::Ok,
            latency_ms: Some(latency_ms),
            detail: format!("HTTP {}", status.as_u16()),
        };
    }
    let excerpt = body_excerpt(&mut response, BODY_EXCERPT).await;
    Probe {
        class: CheckClass::HttpStatus,
        latency_ms: Some(latency_ms),
        detail: bounded(
            &format!("HTTP {}: {}", status.as_u16(), excerpt.trim()),
            DETAIL_MAX,
        ),
    }
}

#[derive(Clone)]
pub struct BeaconChecks {
    db: DatabaseConnection,
    networks: Networks,
    timeout: Duration,
    metrics: Metrics,
    /// Told of every check: a Beacon going down or coming back is an alert.
    alerts: Alerts,
    policy: AddressPolicy,
}

impl BeaconChecks {
    pub fn new(
        db: DatabaseConnection,
        networks: Networks,
        metrics: Metrics,
        alerts: Alerts,
        policy: AddressPolicy,
    ) -> Self {
        Self {
            db,
            networks,
            timeout: CHECK_TIMEOUT,
            metrics,
            alerts,
            policy,
        }
    }

    /// Checks a Beacon URL of a profile now and keeps the result. A check is
    /// not audited; `by` says which profiles may be checked.
    pub async fn check(
        &self,
        by: &Granted<CheckBeacons>,
        beacon: &BeaconRef,
    ) -> Result<BeaconCheckView, BeaconError> {
        let (network_id, url) = beacon.validate().map_err(BeaconError::Invalid)?;
        let profile = self.networks.get(by.scope(), &network_id).await?;
        if !profile.beacons.contains(&url) {
            return Err(BeaconError::NotInProfile);
        }
        let policy = self
            .policy
            .for_asker(by.may_also(ActionKind::ChangeSettings));
        Ok(self.check_listed(&network_id, url, policy).await?)
    }

    /// The policy of Control's own checks of a profile's Beacons: as whoever
    /// last changed its list could check them (`beacons_may_be_private`).
    pub fn policy_for_profile(&self, beacons_may_be_private: bool) -> AddressPolicy {
        self.policy.for_asker(beacons_may_be_private)
    }

    /// Checks `url`, a Beacon URL of profile `network_id` (the caller read
    /// the profile), under `policy`, and keeps the result.
    pub async fn check_listed(
        &self,
        network_id: &protocol::NetworkId,
        url: String,
        policy: AddressPolicy,
    ) -> Result<BeaconCheckView, StoreError> {
        let started = std::time::Instant::now();
        let probe = probe(&url, self.timeout, policy).await;
        self.metrics.beacon_checked(
            probe.class.as_str(),
            probe.class == CheckClass::Ok,
            started.elapsed().as_secs_f64(),
        );
        let check = CheckRecord {
            network_id: network_id.to_string(),
            url,
            at: Utc::now(),
            latency_ms: probe.latency_ms.map(|ms| ms.min(i32::MAX as u32) as i32),
            class: probe.class,
            detail: probe.detail,
        };
        let row = history::record(&self.db, check).await?;
        let view = history::check_view(row);
        self.alerts.beacon_checked(&view).await;
        Ok(view)
    }

    /// Adds an existing (unmanaged) Beacon's URL to a profile. Refusals name
    /// the `url` field, as the form has no list of Beacons. Concurrent
    /// additions all land (see `networks::add_beacon`).
    pub async fn add_existing(
        &self,
        by: &Granted<EditNetworks>,
        beacon: &BeaconRef,
    ) -> Result<protocol::api::NetworkProfile, BeaconError> {
        let (network_id, url) = beacon.validate().map_err(BeaconError::Invalid)?;
        self.networks
            .add_beacon(by, &network_id, &url)
            .await
            .map_err(|e| match BeaconError::from(e) {
                BeaconError::Invalid(errors) => BeaconError::Invalid(
                    errors
                        .into_iter()
                        .map(|mut e| {
                            if e.field.starts_with("beacons") {
                                e.field = "url".into();
                                e.index = None;
                            }
                            e
                        })
                        .collect(),
                ),
                other => other,
            })
    }

    /// Beacon URLs that Control deployed in `scope`'s networks, with the
    /// Agent and component.
    async fn managed(
        &self,
        scope: &NetworkScope,
    ) -> Result<HashMap<String, ManagedBeacon>, BeaconError> {
        let rows = component::Entity::find()
            .filter(component::Column::Kind.eq("beacon"))
            .filter(component::Column::Desired.eq(true))
            .filter(scope.condition(component::Column::NetworkId))
            .all(&self.db)
            .await?;
        Ok(rows
            .into_iter()
            .filter_map(|c| {
                let spec: serde_json::Value = serde_json::from_str(&c.spec).ok()?;
                let url = spec["beacon_url"].as_str()?.to_string();
                Some((
                    url,
                    ManagedBeacon {
                        agent_id: c.agent_id,
                        component_id: c.component_id,
                    },
                ))
            })
            .collect())
    }

    /// Every Beacon URL of every profile `scope` sees (by profile name),
    /// with its latest check.
    pub async fn list(&self, scope: &NetworkScope) -> Result<Vec<BeaconView>, BeaconError> {
        let mut health = history::health(&self.db).await?;
        let mut days = history::last_24h(&self.db, Utc::now()).await?;
        let managed = self.managed(scope).await?;
        let mut beacons = Vec::new();
        for profile in self.networks.all(scope).await? {
            for url in &profile.beacons {
                let key = (profile.id.to_string(), url.clone());
                let (last_check, last_failure) = match health.remove(&key) {
                    Some(h) => (Some(h.last_check), h.last_failure),
                    None => (None, None),
                };
                beacons.push(BeaconView {
                    network_id: profile.id.to_string(),
                    network_name: profile.name.clone(),
                    url: url.clone(),
                    managed_by: managed.get(url).cloned(),
                    last_check,
                    last_failure,
                    last_24h: days.remove(&key).unwrap_or_default(),
                });
            }
        }
        Ok(beacons)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_metadata_address_is_never_contacted() {
        let probe = probe(
            "http://169.254.169.254",
            CHECK_TIMEOUT,
            AddressPolicy::default(),
        )
        .await;
        assert_eq!(probe.class, CheckClass::Blocked);
        assert!(probe.detail.contains("link-local"), "{}", probe.detail);
    }
}
