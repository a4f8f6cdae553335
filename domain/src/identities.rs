//! "Identities survive restarts", as Control can prove it: when an Agent
//! restarts a sidecar for a `restart_component` job, it reports the `.knot`
//! address the container announced before and after, each read from that
//! start's own lines (`protocol::agent::RestartReport`). Each restart is
//! kept; the checklist reads the latest one per sidecar.

use crate::entities::{identity_restart, job};
use crate::StoreError;
use chrono::{DateTime, Utc};
use protocol::agent::RestartReport;
use protocol::JobStatus;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, Set,
};
use std::collections::HashMap;

const ADDRESS_MAX: usize = 255;

fn address_ok(address: &str) -> bool {
    protocol::probes::knot_address(address).is_ok_and(|a| a == address)
        && address.len() <= ADDRESS_MAX
}

/// Records a succeeded `restart_component` job's report, in the transaction
/// that finishes it. A report about another component, or not shaped as an
/// Agent makes it, is dropped.
pub(crate) async fn record_result(
    db: &impl ConnectionTrait,
    finished: &job::Model,
    outcome: JobStatus,
    report: Option<&RestartReport>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let Some(report) = report else {
        return Ok(());
    };
    let for_this_job = finished.kind == "restart_component"
        && finished.component_id.as_deref() == Some(report.component_id.as_str())
        && report.component_id.starts_with("sidecar-");
    if outcome != JobStatus::Succeeded
        || !for_this_job
        || !address_ok(&report.address_before)
        || !address_ok(&report.address_after)
    {
        tracing::warn!(job_id = %finished.id, "a restart report not about this job's sidecar was dropped");
        return Ok(());
    }
    identity_restart::ActiveModel {
        agent_id: Set(finished.agent_id.clone()),
        component_id: Set(report.component_id.clone()),
        network_id: Set(finished.network_id.clone()),
        job_id: Set(finished.id.clone()),
        address_before: Set(report.address_before.clone()),
        address_after: Set(report.address_after.clone()),
        at: Set(now),
        ..Default::default()
    }
    .insert(db)
    .await?;
    Ok(())
}

/// The latest restart of each sidecar of `network_id`, by (Agent, component).
pub async fn latest_in_network(
    db: &impl ConnectionTrait,
    network_id: &str,
) -> Result<HashMap<(String, String), identity_restart::Model>, StoreError> {
    let mut latest = HashMap::new();
    for row in identity_restart::Entity::find()
        .filter(identity_restart::Column::NetworkId.eq(network_id))
        .order_by_asc(identity_restart::Column::At)
        .order_by_asc(identity_restart::Column::Id)
        .all(db)
        .await?
    {
        latest.insert((row.agent_id.clone(), row.component_id.clone()), row);
    }
    Ok(latest)
}
