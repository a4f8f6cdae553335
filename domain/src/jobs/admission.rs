//! What a job may name, checked in the transaction that queues it: the
//! network boundary on an Agent's host.
//!
//! - A component belongs to the network Control deployed it for. A deploy
//!   under the name of another network's component on the same Agent would
//!   move it (and let whoever asked remove it afterwards): refused, whoever
//!   asks, and whether a person, a retry or reconciliation queues it. A
//!   component that belongs to no network (one a heartbeat reported but
//!   Control never deployed) is taken into a network only by someone who
//!   sees every network.
//! - A person's deploy or probe names the network's Beacons, not any URL:
//!   each Beacon in the payload is one of the profile's. A Beacon deployed
//!   joins its profile, so its URL is held to what listing it needs
//!   (`address_policy`).
//! - Someone who sees only some networks does not join a sidecar to a Docker
//!   network that another network's sidecar on the same host uses: that
//!   network holds the other network's application.
//! - A job of a kind (or for a node) that needs an extension of version 1
//!   goes only to an Agent that announced it (protocol::extensions): a
//!   version-1 Agent could only fail it, or choke on it.

use super::queue::{Asked, JobError};
use crate::address_policy::names_private_host;
use crate::entities::{agent, component, network};
use crate::networks::stored_beacons;
use protocol::extensions::Extension;
use protocol::jobs::JobPayload;
use protocol::{FieldError, Problem};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

/// Refuses what `payload` may not name on Agent `agent_id`, for `asked`.
pub(crate) async fn admit(
    db: &impl ConnectionTrait,
    agent_id: &str,
    payload: &JobPayload,
    asked: &Asked,
) -> Result<(), JobError> {
    if let Some(needed) = Extension::of_job(payload) {
        let announced = agent::Entity::find_by_id(agent_id)
            .one(db)
            .await?
            .ok_or(JobError::AgentNotFound)?
            .extensions();
        if !announced.has(needed) {
            return Err(JobError::AgentLacksExtension(needed));
        }
    }
    let (network_id, beacons) = match payload {
        JobPayload::DeployBeacon(b) => {
            // It joins the profile once deployed: what listing it needs.
            if !asked.may_reach_private && names_private_host(&b.beacon_url) {
                return Err(JobError::Invalid(FieldError::new(
                    "beacon_url",
                    Problem::PrivateAddress,
                )));
            }
            (&b.network_id, Vec::new())
        }
        JobPayload::DeploySidecar(s) => (&s.network_id, s.beacons.clone()),
        JobPayload::ProbeService(p) => (&p.network_id, p.beacons.clone()),
        _ => return Ok(()),
    };
    if asked.by_person {
        let profile = network::Entity::find_by_id(network_id.as_str())
            .one(db)
            .await?
            .ok_or(JobError::NetworkNotFound)?;
        let known = stored_beacons(&profile);
        if let Some(i) = beacons.iter().position(|b| !known.contains(b)) {
            return Err(JobError::Invalid(FieldError::at(
                "beacons",
                i,
                Problem::BeaconNotInNetwork,
            )));
        }
    }
    if matches!(payload, JobPayload::ProbeService(_)) {
        return Ok(());
    }
    let on_host = component::Entity::find()
        .filter(component::Column::AgentId.eq(agent_id))
        .all(db)
        .await?;
    let name_field = FieldError::new("name", Problem::NameOfAnotherNetwork);
    let component_id = payload.component_id();
    if let Some(existing) = on_host.iter().find(|c| c.component_id == component_id) {
        match existing.network_id.as_deref() {
            Some(n) if n != network_id.as_str() => return Err(JobError::Invalid(name_field)),
            None if !asked.scope.is_all() => return Err(JobError::Invalid(name_field)),
            _ => {}
        }
    }
    if let JobPayload::DeploySidecar(s) = payload {
        if !asked.scope.is_all() {
            let taken = on_host.iter().any(|c| {
                c.network_id.as_deref() != Some(network_id.as_str())
                    && docker_network_of(c).as_deref() == Some(s.docker_network.as_str())
            });
            if taken {
                return Err(JobError::Invalid(FieldError::new(
                    "docker_network",
                    Problem::DockerNetworkOfAnotherNetwork,
                )));
            }
        }
    }
    Ok(())
}

/// The Docker network a desired sidecar was deployed into.
fn docker_network_of(c: &component::Model) -> Option<String> {
    if !c.desired || c.kind != "sidecar" {
        return None;
    }
    let spec: serde_json::Value = serde_json::from_str(&c.spec).ok()?;
    spec.get("docker_network")?.as_str().map(str::to_string)
}
