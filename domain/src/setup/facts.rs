//! What Control has seen of one network, read once per checklist: the rows
//! the steps are worked out from (`steps`), with nothing decided yet.

use super::{RequestTransport, SetupError};
use crate::access::scope::NetworkScope;
use crate::agents::inventory::AgentInventory;
pub(crate) use crate::entities::beacon_diagnosis::Relay;
use crate::entities::{beacon_diagnosis, beacon_status, invite, invite_open, setup_skip};
use crate::onboarding::invites;
use chrono::{DateTime, Utc};
use protocol::api::{AgentView, NetworkProfile};
use protocol::beacons::CheckClass;
use protocol::jobs::JobPayload;
use protocol::services::{address_pending, AddressPending};
use protocol::setup::SetupStep;
use protocol::InviteState;
use sea_orm::sea_query::Query;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter};
use std::collections::HashMap;

pub(crate) struct Facts {
    pub network_id: String,
    pub network_name: String,
    pub beacons: Vec<BeaconFacts>,
    /// Managed Beacons of this network whose container runs (each runs a
    /// relay): name and Beacon URL.
    pub managed_relays: Vec<(String, String)>,
    /// Running sidecars deployed with an advertised relay address, by name.
    pub sidecar_relays: Vec<String>,
    pub control: ControlFacts,
    pub agents: AgentFacts,
    pub services: Vec<ServiceFacts>,
    pub invites: InviteFacts,
    pub policy_filled_in: bool,
    pub skips: HashMap<SetupStep, (String, DateTime<Utc>)>,
    /// The end-to-end probe, once chosen.
    pub probe: Option<ProbeFacts>,
}

pub(crate) struct BeaconFacts {
    pub url: String,
    pub https: bool,
    /// Deployed by Control through an Agent.
    pub managed: bool,
    pub check: Option<LastCheck>,
    pub diagnosis: Option<Diagnosed>,
}

pub(crate) struct LastCheck {
    pub class: CheckClass,
    pub detail: String,
    pub latency_ms: Option<i32>,
}

impl LastCheck {
    pub fn ok(&self) -> bool {
        self.class == CheckClass::Ok
    }
}

/// How long what a diagnosis found stands in for the network's state: a
/// relay that answered last month says little about today.
const FINDINGS_KEPT: chrono::Duration = chrono::Duration::days(7);

pub(crate) struct Diagnosed {
    pub addresses: Vec<String>,
    pub relay: Relay,
}

pub(crate) struct ControlFacts {
    pub public_url: Option<String>,
    pub transport: RequestTransport,
}

impl ControlFacts {
    pub fn public_https(&self) -> bool {
        self.public_url
            .as_deref()
            .is_some_and(|u| u.starts_with("https://"))
    }
}

#[derive(Default)]
pub(crate) struct AgentFacts {
    /// Connected, with Docker, running something of this network.
    pub docker_here: Vec<String>,
    /// Connected, without Docker, running something of this network.
    pub without_docker_here: Vec<String>,
    /// Connected, with Docker, running nothing of this network.
    pub docker_elsewhere: Vec<String>,
}

pub(crate) struct ServiceFacts {
    pub name: String,
    /// The `.knot` address; empty until announced.
    pub address: String,
    pub pending: Option<AddressPending>,
    /// Its identity backups, once one was reported.
    pub backup: Option<protocol::backups::BackupState>,
    /// The address it announced before and after its latest restart.
    pub restart: Option<(String, String)>,
}

#[derive(Default)]
pub(crate) struct InviteFacts {
    pub usable: u32,
    pub opened: u32,
    pub opens: i64,
    /// The platforms they were opened on (`Platform::slug`), sorted.
    pub platforms: Vec<String>,
}

/// The network's end-to-end probe: what it opens, and its latest run.
#[derive(Clone, Debug)]
pub struct ProbeFacts {
    pub service: String,
    /// Probed from the service's own host: no other failure domain.
    pub same_host: bool,
    pub every_minutes: i64,
    pub last: Option<LastProbe>,
}

#[derive(Clone, Debug)]
pub struct LastProbe {
    pub ok: bool,
    /// How long before the checklist was read.
    pub age: chrono::Duration,
    pub agent_name: String,
    pub address: String,
    pub stage: String,
    pub detail: String,
    pub latency_ms: i32,
}

impl ProbeFacts {
    /// The latest run passed, and is recent: no older than three intervals
    /// (an Agent that stopped probing does not leave a pass standing).
    pub fn passing(&self) -> Option<&LastProbe> {
        self.last
            .as_ref()
            .filter(|l| l.ok && l.age <= chrono::Duration::minutes(3 * self.every_minutes.max(1)))
    }
}

/// What every network's checklist reads alike: read once for the Overview's
/// several networks.
pub(crate) struct Shared {
    /// Every Agent `scope` sees.
    pub agents: Vec<AgentView>,
    pub policy_filled_in: bool,
}

impl Shared {
    pub async fn read(
        db: &DatabaseConnection,
        inventory: &AgentInventory,
        scope: &NetworkScope,
    ) -> Result<Self, SetupError> {
        Ok(Shared {
            agents: inventory.list(scope).await?,
            policy_filled_in: crate::policy::written(db).await?.filled_in(),
        })
    }
}

/// Everything the checklist of `profile` needs, as `scope` sees it.
pub(crate) async fn gather(
    db: &DatabaseConnection,
    inventory: &AgentInventory,
    scope: &NetworkScope,
    profile: NetworkProfile,
    control: ControlFacts,
    shared: &Shared,
) -> Result<Facts, SetupError> {
    let id = profile.id.to_string();
    let now = crate::database_now(db).await;
    let mut checks: HashMap<String, beacon_status::Model> = beacon_status::Entity::find()
        .filter(beacon_status::Column::NetworkId.eq(id.as_str()))
        .all(db)
        .await
        .map_err(crate::StoreError)?
        .into_iter()
        .map(|row| (row.url.clone(), row))
        .collect();
    let mut diagnoses: HashMap<String, beacon_diagnosis::Model> = beacon_diagnosis::Entity::find()
        .filter(beacon_diagnosis::Column::NetworkId.eq(id.as_str()))
        .all(db)
        .await
        .map_err(crate::StoreError)?
        .into_iter()
        .map(|row| (row.url.clone(), row))
        .collect();
    let here = inventory.in_network(scope, &id).await?;
    let mut backups = crate::backups::states(
        db,
        sea_orm::Condition::all()
            .add(crate::entities::identity_backup::Column::NetworkId.eq(id.as_str())),
    )
    .await?;

    let mut restarts = crate::identities::latest_in_network(db, &id).await?;
    let mut managed_urls = Vec::new();
    let mut managed_relays = Vec::new();
    let mut sidecar_relays = Vec::new();
    let mut services = Vec::new();
    for agent in &here {
        for c in agent
            .components
            .iter()
            .filter(|c| c.network_id.as_deref() == Some(id.as_str()))
        {
            let payload = c
                .spec
                .as_ref()
                .and_then(|spec| JobPayload::parse(&format!("deploy_{}", c.kind), spec).ok());
            match (c.kind.as_str(), payload) {
                ("beacon", Some(JobPayload::DeployBeacon(b))) if c.desired => {
                    // A relay counts once its container runs, not when asked for.
                    if c.status.is_running() {
                        managed_relays.push((c.display_name().to_string(), b.beacon_url.clone()));
                    }
                    managed_urls.push(b.beacon_url);
                }
                ("sidecar", payload) => {
                    if let Some(JobPayload::DeploySidecar(s)) = payload {
                        if c.desired && s.advertise.is_some() && c.status.is_running() {
                            sidecar_relays.push(c.display_name().to_string());
                        }
                    }
                    if c.desired || c.status.is_reported() {
                        services.push(ServiceFacts {
                            name: c.display_name().to_string(),
                            address: c.service.clone(),
                            pending: address_pending(agent, c),
                            backup: backups.remove(&(agent.id.to_string(), c.id.clone())),
                            restart: restarts
                                .remove(&(agent.id.to_string(), c.id.clone()))
                                .map(|r| (r.address_before, r.address_after)),
                        });
                    }
                }
                _ => {}
            }
        }
    }

    let beacons = profile
        .beacons
        .iter()
        .map(|url| BeaconFacts {
            url: url.clone(),
            https: url.starts_with("https://"),
            managed: managed_urls.contains(url),
            check: checks.remove(url).map(|row| LastCheck {
                class: CheckClass::parse(&row.class).unwrap_or(CheckClass::Connect),
                detail: row.detail,
                latency_ms: row.latency_ms,
            }),
            diagnosis: diagnoses
                .remove(url)
                .filter(|row| now - row.checked_at <= FINDINGS_KEPT)
                .map(|row| Diagnosed {
                    addresses: serde_json::from_str(&row.addresses).unwrap_or_default(),
                    relay: Relay::from_stored(&row.relay, row.relay_detail),
                }),
        })
        .collect();

    let probe = match crate::probes::latest(db, &id).await? {
        Some((settings, run)) => Some((
            crate::probes::on_service_host(db, &settings).await?,
            settings,
            run,
        )),
        None => None,
    };
    let probe = probe.map(|(same_host, settings, run)| ProbeFacts {
        same_host,
        service: settings.service,
        every_minutes: i64::from(settings.every_minutes),
        last: run.map(|r| LastProbe {
            ok: r.ok,
            age: now - r.at,
            agent_name: r.agent_name,
            address: r.address,
            stage: r.stage,
            detail: r.detail,
            latency_ms: r.latency_ms,
        }),
    });
    Ok(Facts {
        probe,
        network_id: id.clone(),
        network_name: profile.name,
        beacons,
        managed_relays,
        sidecar_relays,
        control,
        agents: agent_facts(&here, &shared.agents),
        services,
        invites: invite_facts(db, &id, now).await?,
        policy_filled_in: shared.policy_filled_in,
        skips: setup_skip::Entity::find()
            .filter(setup_skip::Column::NetworkId.eq(id.as_str()))
            .all(db)
            .await
            .map_err(crate::StoreError)?
            .into_iter()
            .filter_map(|row| {
                Some((
                    SetupStep::from_slug(&row.step)?,
                    (row.skipped_by, row.skipped_at),
                ))
            })
            .collect(),
    })
}

fn agent_facts(here: &[AgentView], everyone: &[AgentView]) -> AgentFacts {
    let mut facts = AgentFacts::default();
    for agent in everyone.iter().filter(|a| a.status.is_connected()) {
        let runs_here = here.iter().any(|h| h.id == agent.id);
        let list = match (runs_here, agent.docker_available) {
            (true, true) => &mut facts.docker_here,
            (true, false) => &mut facts.without_docker_here,
            (false, true) => &mut facts.docker_elsewhere,
            (false, false) => continue,
        };
        list.push(agent.name.clone());
    }
    facts
}

async fn invite_facts(
    db: &DatabaseConnection,
    network_id: &str,
    now: DateTime<Utc>,
) -> Result<InviteFacts, SetupError> {
    let rows = invite::Entity::find()
        .filter(invite::Column::NetworkId.eq(network_id))
        .all(db)
        .await
        .map_err(crate::StoreError)?;
    let mut facts = InviteFacts::default();
    for row in &rows {
        if invites::state(row, now) == InviteState::Active {
            facts.usable += 1;
        }
        if row.opens > 0 {
            facts.opened += 1;
            facts.opens += i64::from(row.opens);
        }
    }
    let of_network = Query::select()
        .column(invite::Column::Id)
        .from(invite::Entity)
        .and_where(invite::Column::NetworkId.eq(network_id))
        .to_owned();
    let mut platforms: Vec<String> = invite_open::Entity::find()
        .filter(invite_open::Column::InviteId.in_subquery(of_network))
        .all(db)
        .await
        .map_err(crate::StoreError)?
        .into_iter()
        .map(|o| o.platform)
        .collect();
    platforms.sort();
    platforms.dedup();
    facts.platforms = platforms;
    Ok(facts)
}
