//! Layered diagnostics of a network, in the runbook's order: each Beacon
//! (DNS, TCP to its HTTP port, /healthz with TLS, TCP to the relay port),
//! then each Agent running the network's components (online, Docker), then
//! each service (container running, `.knot` address). A step that fails
//! ends that Beacon's list: the later steps could only fail the same way.
//! The Beacon check's address policy (`address_policy`) applies to every step.

use crate::access::principal::Granted;
use crate::access::roles::CheckBeacons;
use crate::agents::inventory::{AgentInventory, InventoryError};
use crate::beacons::checks::{self, probe, AddressPolicy, Unreachable, CHECK_TIMEOUT};
use crate::beacons::diagnostics_text::{describe, Found};
use crate::entities::beacon_diagnosis::{self, Relay};
use crate::networks::{NetworkError, Networks};
use chrono::{SecondsFormat, Utc};
use protocol::api::AgentView;
use protocol::beacons::CheckClass;
use protocol::diagnostics::{Diagnosis, DiagnosticLine, Layer, Severity, Step};
use protocol::jobs::JobPayload;
use protocol::services::address_pending;
use protocol::{Lang, NetworkId};
use sea_orm::sea_query::OnConflict;
use sea_orm::{DatabaseConnection, EntityTrait, Set};
use std::net::{IpAddr, SocketAddr};

/// The relay transport port (PROTOCOL.md), when the relay host is not known better.
pub const RELAY_PORT: u16 = 7447;
/// How long one Beacon's diagnosis may take, all steps together.
pub const BEACON_DEADLINE: std::time::Duration = std::time::Duration::from_secs(20);

#[derive(Debug, thiserror::Error)]
pub enum DiagnosticsError {
    #[error(transparent)]
    Network(#[from] NetworkError),
    #[error(transparent)]
    Inventory(#[from] InventoryError),
}

#[derive(Clone)]
pub struct Diagnostics {
    db: DatabaseConnection,
    networks: Networks,
    inventory: AgentInventory,
    policy: AddressPolicy,
}

/// Lines of one layer and subject, in order.
struct Lines<'a> {
    out: &'a mut Vec<DiagnosticLine>,
    layer: Layer,
    subject: String,
    lang: Lang,
}

impl<'a> Lines<'a> {
    fn beacon(out: &'a mut Vec<DiagnosticLine>, url: &str, lang: Lang) -> Self {
        Lines {
            out,
            layer: Layer::Beacon,
            subject: url.to_string(),
            lang,
        }
    }

    fn push(&mut self, step: Step, severity: Severity, found: Found) {
        let (reason, next_step) = describe(&found, self.lang);
        self.out.push(DiagnosticLine {
            layer: self.layer,
            subject: self.subject.clone(),
            step,
            severity,
            reason,
            next_step,
        });
    }
}

impl Diagnostics {
    pub fn new(
        db: DatabaseConnection,
        networks: Networks,
        inventory: AgentInventory,
        policy: AddressPolicy,
    ) -> Self {
        Self {
            db,
            networks,
            inventory,
            policy,
        }
    }

    /// A diagnosis is not audited; `by` says which networks may be diagnosed.
    /// What it found of each Beacon beyond a health check (its addresses,
    /// its relay) is kept for the setup checklist (`beacon_diagnoses`).
    pub async fn diagnose(
        &self,
        by: &Granted<CheckBeacons>,
        id: &NetworkId,
        lang: Lang,
    ) -> Result<Diagnosis, DiagnosticsError> {
        let profile = self.networks.get(by.scope(), id).await?;
        let agents = self.inventory.in_network(by.scope(), id.as_str()).await?;
        let mut out = Vec::new();
        if profile.beacons.is_empty() {
            Lines {
                out: &mut out,
                layer: Layer::Beacon,
                subject: profile.name.clone(),
                lang,
            }
            .push(Step::BeaconUrls, Severity::Error, Found::NoBeacon);
        }
        // Beacons are independent of each other: diagnose them together, as
        // the one asking could check them.
        let policy = self
            .policy
            .for_asker(by.may_also(crate::access::roles::ActionKind::ChangeSettings));
        let beacon_lines = futures_util::future::join_all(profile.beacons.iter().map(|url| {
            let relay = managed_relay(&agents, url);
            async move {
                let mut lines = Vec::new();
                let mut found = Finding::default();
                // Each step has its own time limit; this bounds their sum, so
                // one unresponsive Beacon cannot hold the whole answer up.
                let finished = tokio::time::timeout(
                    BEACON_DEADLINE,
                    diagnose_beacon(
                        &mut Lines::beacon(&mut lines, url, lang),
                        &mut found,
                        url,
                        relay,
                        policy,
                    ),
                )
                .await
                .is_ok();
                if !finished {
                    let step = step_after(lines.last().map(|l| l.step));
                    let secs = BEACON_DEADLINE.as_secs();
                    Lines::beacon(&mut lines, url, lang).push(
                        step,
                        Severity::Error,
                        Found::GaveUp { secs },
                    );
                }
                (url, lines, found)
            }
        }))
        .await;
        let mut findings = Vec::new();
        for (url, lines, found) in beacon_lines {
            out.extend(lines);
            findings.push((url, found));
        }
        // What it found is kept for the setup checklist; failing to keep it
        // must not take the diagnosis itself from the admin.
        if let Err(e) = keep_findings(&self.db, id.as_str(), findings).await {
            tracing::warn!(error = %e, network_id = %id, "keeping the diagnosis's findings failed");
        }
        diagnose_agents(&mut out, id.as_str(), &agents, lang);
        Ok(Diagnosis {
            network_id: id.to_string(),
            checked_at: Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true),
            lines: out,
        })
    }
}

/// The Beacon step that was running when the deadline passed.
fn step_after(last: Option<Step>) -> Step {
    match last {
        None => Step::Dns,
        Some(Step::Dns) => Step::Connect,
        Some(Step::Connect) => Step::Healthz,
        Some(_) => Step::Relay,
    }
}

/// The relay address a managed Beacon was deployed to advertise, if Control deployed `url`.
fn managed_relay(agents: &[AgentView], url: &str) -> Option<String> {
    agents
        .iter()
        .flat_map(|a| &a.components)
        .filter(|c| c.kind == "beacon" && c.desired)
        .filter_map(|c| c.spec.as_ref())
        .filter_map(|spec| JobPayload::parse("deploy_beacon", spec).ok())
        .find_map(|p| match p {
            JobPayload::DeployBeacon(b) if b.beacon_url == url => Some(b.advertise),
            _ => None,
        })
}

/// What a diagnosis learnt of one Beacon that a health check does not.
#[derive(Default)]
struct Finding {
    addresses: Vec<String>,
    relay: Option<Relay>,
}

/// Replaces each Beacon's kept finding with this diagnosis's.
async fn keep_findings(
    db: &DatabaseConnection,
    network_id: &str,
    findings: Vec<(&String, Finding)>,
) -> Result<(), crate::StoreError> {
    let now = Utc::now();
    for (url, found) in findings {
        let relay = found.relay.unwrap_or(Relay::Untested);
        let (relay, relay_detail) = relay.stored();
        let row = beacon_diagnosis::ActiveModel {
            network_id: Set(network_id.to_string()),
            url: Set(url.clone()),
            checked_at: Set(now),
            addresses: Set(serde_json::to_string(&found.addresses).expect("strings serialise")),
            relay: Set(relay.to_string()),
            relay_detail: Set(crate::text::bounded(
                relay_detail,
                crate::text::limits::WARNING,
            )),
        };
        beacon_diagnosis::Entity::insert(row)
            .on_conflict(
                OnConflict::columns([
                    beacon_diagnosis::Column::NetworkId,
                    beacon_diagnosis::Column::Url,
                ])
                .update_columns([
                    beacon_diagnosis::Column::CheckedAt,
                    beacon_diagnosis::Column::Addresses,
                    beacon_diagnosis::Column::Relay,
                    beacon_diagnosis::Column::RelayDetail,
                ])
                .to_owned(),
            )
            .exec_without_returning(db)
            .await?;
    }
    Ok(())
}

async fn diagnose_beacon(
    lines: &mut Lines<'_>,
    found: &mut Finding,
    url: &str,
    relay: Option<String>,
    policy: AddressPolicy,
) {
    let Some((host, port)) = url::Url::parse(url)
        .ok()
        .and_then(|u| Some((u.host_str()?.to_string(), u.port_or_known_default()?)))
    else {
        return;
    };
    let host = checks::bare_host(&host).to_string();
    let addresses = match resolve(&host, port, policy).await {
        Ok(addresses) => addresses,
        Err(found) => return lines.push(Step::Dns, Severity::Error, found),
    };
    found.addresses = addresses.iter().map(|a| a.ip().to_string()).collect();
    found.addresses.sort();
    found.addresses.dedup();
    if host.parse::<IpAddr>().is_err() {
        let listed = found.addresses.clone();
        lines.push(
            Step::Dns,
            Severity::Ok,
            Found::Resolved {
                host: host.clone(),
                addresses: listed,
            },
        );
    }
    match connect(&addresses).await {
        Ok(reached) => lines.push(
            Step::Connect,
            Severity::Ok,
            Found::PortOpen {
                address: reached.to_string(),
            },
        ),
        Err(detail) => {
            return lines.push(
                Step::Connect,
                Severity::Error,
                Found::PortClosed {
                    host: host.clone(),
                    port,
                    detail,
                },
            )
        }
    }
    let checked = probe(url, CHECK_TIMEOUT, policy).await;
    let https = url.starts_with("https://");
    if checked.class != CheckClass::Ok {
        return lines.push(
            Step::Healthz,
            Severity::Error,
            Found::HealthzFailed {
                class: checked.class,
                detail: checked.detail,
            },
        );
    }
    lines.push(
        Step::Healthz,
        Severity::Ok,
        Found::Healthy {
            latency_ms: checked.latency_ms.unwrap_or_default(),
            https,
        },
    );
    // The relay: where a managed Beacon advertises it, else assumed on the Beacon's host.
    let (relay_host, relay_port, assumed) = match relay.as_deref().and_then(split_host_port) {
        Some((h, p)) => (h, p, false),
        None => (host.clone(), RELAY_PORT, true),
    };
    let target = match resolve(&relay_host, relay_port, policy).await {
        Ok(addresses) => connect(&addresses)
            .await
            .map_err(|detail| (relay_host.clone(), detail)),
        Err(_) => Err((relay_host.clone(), "the name does not resolve".to_string())),
    };
    found.relay = Some(match &target {
        Ok(reached) => Relay::Open(reached.to_string()),
        Err((_, detail)) => Relay::Closed(detail.clone()),
    });
    match target {
        Ok(reached) => lines.push(
            Step::Relay,
            Severity::Ok,
            Found::RelayOpen {
                address: reached.to_string(),
            },
        ),
        Err((relay_host, detail)) => lines.push(
            Step::Relay,
            // Only a relay address Control deployed is known to be expected there.
            if assumed {
                Severity::Warning
            } else {
                Severity::Error
            },
            Found::RelayClosed {
                host: relay_host,
                port: relay_port,
                assumed,
                detail,
            },
        ),
    }
}

/// A component's network: as its container's label says, else as deployed.
fn of_network(c: &protocol::api::ComponentView, network_id: &str) -> bool {
    c.network_id
        .as_deref()
        .or_else(|| c.spec.as_ref()?["network_id"].as_str())
        == Some(network_id)
}

fn split_host_port(advertise: &str) -> Option<(String, u16)> {
    let (host, port) = advertise.rsplit_once(':')?;
    Some((checks::bare_host(host).to_string(), port.parse().ok()?))
}

/// The host's addresses, refusing the same ones as the Beacon check.
async fn resolve(host: &str, port: u16, policy: AddressPolicy) -> Result<Vec<SocketAddr>, Found> {
    checks::resolve(host, port, CHECK_TIMEOUT, policy)
        .await
        .map_err(|e| match e {
            Unreachable::Dns(detail) => Found::DnsFailed { detail },
            Unreachable::Refused { why: "private", .. } => Found::PrivateRefused {
                host: host.into(),
                by_asker: policy.refused_for_asker,
            },
            Unreachable::Refused { .. } => Found::LinkLocal { host: host.into() },
        })
}

/// The first address that accepts a TCP connection, of the first three (a
/// name with many addresses must not hold a diagnosis up for long).
async fn connect(addresses: &[SocketAddr]) -> Result<SocketAddr, String> {
    let mut last = String::from("no address");
    for address in addresses.iter().take(3) {
        match tokio::time::timeout(CHECK_TIMEOUT, tokio::net::TcpStream::connect(address)).await {
            Ok(Ok(_)) => return Ok(*address),
            Ok(Err(e)) => last = format!("{address}: {e}"),
            Err(_) => last = format!("{address}: no answer within {} s", CHECK_TIMEOUT.as_secs()),
        }
    }
    Err(last)
}

fn diagnose_agents(
    out: &mut Vec<DiagnosticLine>,
    network_id: &str,
    agents: &[AgentView],
    lang: Lang,
) {
    if agents.is_empty() {
        Lines {
            out: &mut *out,
            layer: Layer::Agent,
            subject: String::new(),
            lang,
        }
        .push(Step::Agents, Severity::Ok, Found::NoAgents);
    }
    for agent in agents {
        let mut lines = Lines {
            out: &mut *out,
            layer: Layer::Agent,
            subject: agent.name.clone(),
            lang,
        };
        let online = agent.status.is_connected();
        if online {
            lines.push(Step::Online, Severity::Ok, Found::AgentOnline);
        } else {
            lines.push(
                Step::Online,
                Severity::Error,
                Found::AgentAway {
                    status: agent.status,
                    why: agent.reason_text.clone(),
                },
            );
        }
        if agent.docker_available {
            lines.push(
                Step::Docker,
                Severity::Ok,
                Found::Docker {
                    version: agent.docker_version.clone(),
                },
            );
        } else if online {
            lines.push(Step::Docker, Severity::Error, Found::NoDocker);
        }
    }
    for agent in agents {
        for sidecar in agent
            .components
            .iter()
            .filter(|c| c.kind == "sidecar" && of_network(c, network_id))
        {
            let mut lines = Lines {
                out: &mut *out,
                layer: Layer::Service,
                subject: sidecar.name.clone(),
                lang,
            };
            if sidecar.status.is_running() {
                lines.push(
                    Step::Container,
                    Severity::Ok,
                    Found::Running {
                        agent: agent.name.clone(),
                    },
                );
            } else {
                lines.push(
                    Step::Container,
                    Severity::Error,
                    Found::NotRunning {
                        agent: agent.name.clone(),
                        status: sidecar.status,
                        error: sidecar.last_error.clone(),
                    },
                );
            }
            match address_pending(agent, sidecar) {
                None => lines.push(
                    Step::KnotAddress,
                    Severity::Ok,
                    Found::Address {
                        address: sidecar.service.clone(),
                    },
                ),
                Some(why) => lines.push(
                    Step::KnotAddress,
                    Severity::Warning,
                    Found::NoAddress { why },
                ),
            }
        }
    }
}
