//! The nodes Agents run for probes nobody wants any more. A probe that is
//! stopped, moved to another Agent or service, or whose network is deleted
//! leaves its node (`probe-<service>`) running on the Agent that probed.
//! Control finds those from the probe jobs it queued and has each such Agent
//! remove its node with a `remove_component` job (containers and stack go,
//! the node's identity volume is kept, as for any component).
//!
//! Worked out from what was queued rather than hooked into every way a probe
//! can end, so that no way is missed: a node is unwanted when no network
//! probes its service from its Agent now, and it is removed once after its
//! last probe job.

use crate::entities::{agent, job, network_probe};
use crate::jobs::queue::{Asked, JobQueue};
use crate::StoreError;
use chrono::{DateTime, Duration, Utc};
use protocol::jobs::JobPayload;
use protocol::probes::{node_component_id, JOB_KIND};
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use std::collections::BTreeSet;

/// Probe jobs older than this are not looked at: a node whose last probe
/// was this long ago was removed already, or its Agent is gone. (A probe that
/// could not run for longer, e.g. its Agent disabled for a month, and is then
/// stopped, leaves its node: the handbook's Features chapter, "Not done yet",
/// says how to remove it.)
const LOOK_BACK: Duration = Duration::days(30);

/// After an admin's change: the change stands whatever happens here, and
/// the schedule's next tick tries again, so a failure is only logged.
pub async fn remove_unused_after_change(db: &DatabaseConnection, jobs: &JobQueue) {
    if let Err(e) = remove_unused(db, jobs, Utc::now()).await {
        tracing::warn!(error = %e, "looking for unused probe nodes failed; the schedule tries again");
    }
}

/// Queues the removal of every node no probe wants; returns the jobs.
pub async fn remove_unused(
    db: &DatabaseConnection,
    jobs: &JobQueue,
    now: DateTime<Utc>,
) -> Result<Vec<job::Model>, StoreError> {
    let wanted: BTreeSet<(String, String)> = network_probe::Entity::find()
        .all(db)
        .await?
        .into_iter()
        .map(|p| (p.agent_id, node_component_id(&p.service)))
        .collect();
    let ran: BTreeSet<(String, String)> = job::Entity::find()
        .select_only()
        .column(job::Column::AgentId)
        .column(job::Column::ComponentId)
        .filter(job::Column::Kind.eq(JOB_KIND))
        .filter(job::Column::CreatedAt.gt(now - LOOK_BACK))
        .distinct()
        .into_tuple::<(String, Option<String>)>()
        .all(db)
        .await?
        .into_iter()
        .filter_map(|(agent, node)| Some((agent, node?)))
        .collect();
    let mut queued = Vec::new();
    for (agent_id, node) in ran.difference(&wanted) {
        // Only ever a probe's node, whatever the job rows hold (a restored
        // or hand-edited table must not have an Agent remove a sidecar).
        if !protocol::probes::is_node_component_id(node) {
            tracing::warn!(agent_id = %agent_id, node = %node, "a probe job names no probe node; not removed");
            continue;
        }
        if !needs_removal(db, agent_id, node).await? {
            continue;
        }
        let payload = JobPayload::RemoveComponent {
            component_id: node.clone(),
        };
        match jobs
            .insert(agent_id, &payload, None, Asked::control())
            .await
        {
            Ok(row) => queued.push(row),
            Err(e) => {
                tracing::warn!(agent_id = %agent_id, node = %node, error = %e, "could not queue a probe node's removal")
            }
        }
    }
    Ok(queued)
}

/// The Agent still takes jobs, and has not been asked to remove the node
/// since its last probe (a failed removal is not repeated until the node
/// probes again).
async fn needs_removal(
    db: &DatabaseConnection,
    agent_id: &str,
    node: &str,
) -> Result<bool, StoreError> {
    let takes_jobs = agent::Entity::find_by_id(agent_id)
        .one(db)
        .await?
        .is_some_and(|a| !a.retired.is_retired());
    if !takes_jobs {
        return Ok(false);
    }
    let latest = |kind: &'static str| {
        job::Entity::find()
            .filter(job::Column::AgentId.eq(agent_id))
            .filter(job::Column::ComponentId.eq(node))
            .filter(job::Column::Kind.eq(kind))
            .order_by_desc(job::Column::CreatedAt)
            .one(db)
    };
    let probed = latest(JOB_KIND).await?.map(|j| j.created_at);
    let removed = latest("remove_component").await?.map(|j| j.created_at);
    Ok(match (probed, removed) {
        (Some(probed), Some(removed)) => removed < probed,
        (Some(_), None) => true,
        (None, _) => false,
    })
}
