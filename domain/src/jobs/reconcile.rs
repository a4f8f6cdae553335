//! Desired components and reconciliation (DESIGN.md, Agent and Job
//! lifecycles): what the admin asked an Agent to run, compared with what its
//! heartbeats report. A missing or exited component is deployed again and a
//! failed deployment is retried, both with backoff from 30 s doubling to
//! 10 min, until the component runs or the admin changes or removes it.

use crate::entities::{agent, component, job};
use crate::jobs::queue::{Asked, JobQueue};
use crate::{audit, StoreError};
use chrono::{DateTime, Duration, Utc};
use protocol::jobs::JobPayload;
use protocol::{ComponentStatus, JobStatus};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder, Set,
};
use std::collections::HashMap;

pub const FIRST_RETRY: Duration = Duration::seconds(30);
pub const MAX_RETRY: Duration = Duration::minutes(10);
/// A heartbeat sent before a deployment finished may still omit the
/// component; it is only redeployed once it stays missing this long after.
pub const SETTLE: Duration = Duration::seconds(60);

/// The wait before retrying after `failures` failed deployments in a row.
pub fn retry_delay(failures: i32) -> Duration {
    crate::doubling_backoff(FIRST_RETRY, MAX_RETRY, failures)
}

/// Clears a component's deployment backoff and error: what a successful
/// deployment, a removal or a move to a new host leaves behind.
pub fn without_backoff(
    update: sea_orm::UpdateMany<component::Entity>,
) -> sea_orm::UpdateMany<component::Entity> {
    update
        .col_expr(component::Column::DeployFailures, 0.into())
        .col_expr(
            component::Column::NextDeployAt,
            Option::<DateTime<Utc>>::None.into(),
        )
        .col_expr(component::Column::DeployError, "".into())
}

/// Makes the Agent's next heartbeat compare its components with the desired state.
pub async fn mark_pending(db: &impl ConnectionTrait, agent_id: &str) -> Result<(), StoreError> {
    agent::Entity::update_many()
        .col_expr(agent::Column::ReconcilePending, true.into())
        .filter(agent::Column::Id.eq(agent_id))
        .exec(db)
        .await?;
    Ok(())
}

/// The same rule as [`needs_reconciliation`], as SQL over an Agent's stored
/// components, for `agents.reconcile_pending`.
pub fn reconcile_pending_sql() -> String {
    let states: Vec<String> = std::iter::once(ComponentStatus::NotReported)
        .chain(ComponentStatus::DOWN)
        .map(|s| format!("'{}'", s.as_str()))
        .collect();
    format!(
        "EXISTS (SELECT 1 FROM components c \
         WHERE c.agent_id = agents.id AND c.desired \
         AND (c.status IN ({}) OR c.deploy_failures > 0))",
        states.join(", ")
    )
}

/// Whether these components (as a heartbeat left them) may need reconciliation.
pub fn needs_reconciliation(components: &[component::Model]) -> bool {
    components.iter().any(|c| {
        c.desired && (!c.status.is_reported() || c.status.is_down() || c.deploy_failures > 0)
    })
}

/// Records what an admin's job means for the desired state: a deployment
/// makes (or updates) a desired component, a removal ends it.
pub async fn record_intent(
    db: &impl ConnectionTrait,
    agent_id: &str,
    payload: &JobPayload,
) -> Result<(), StoreError> {
    mark_pending(db, agent_id).await?;
    let component_id = payload.component_id();
    let no_catalog = protocol::catalog::Catalog::default();
    let (kind, name, network_id, catalog) = match payload {
        JobPayload::DeployBeacon(b) => ("beacon", &b.name, &b.network_id, &no_catalog),
        JobPayload::DeploySidecar(s) => ("sidecar", &s.name, &s.network_id, &s.catalog),
        JobPayload::RemoveComponent { .. } => {
            without_backoff(component::Entity::update_many())
                .col_expr(component::Column::Desired, false.into())
                .col_expr(component::Column::Spec, "".into())
                .col_expr(component::Column::Title, "".into())
                .col_expr(component::Column::Description, "".into())
                .col_expr(component::Column::Tags, "[]".into())
                .col_expr(component::Column::Category, "".into())
                .col_expr(component::Column::Scheme, "".into())
                .filter(component::Column::AgentId.eq(agent_id))
                .filter(component::Column::ComponentId.eq(component_id))
                .exec(db)
                .await?;
            return Ok(());
        }
        JobPayload::RestartComponent { .. }
        | JobPayload::BackupVolume(_)
        | JobPayload::VerifyBackup(_)
        | JobPayload::ProbeService(_) => return Ok(()),
    };
    let [title, description, tags, category, scheme] = component::catalog_columns(catalog);
    let row = component::ActiveModel {
        agent_id: Set(agent_id.to_string()),
        component_id: Set(component_id),
        kind: Set(kind.to_string()),
        name: Set(name.clone()),
        network_id: Set(Some(network_id.to_string())),
        desired: Set(true),
        status: Set(ComponentStatus::NotReported),
        service: Set(String::new()),
        container: Set(String::new()),
        image: Set(String::new()),
        version: Set(String::new()),
        restart_count: Set(0),
        last_error: Set(String::new()),
        warnings: Set("[]".into()),
        updated_at: Set(Utc::now()),
        spec: Set(payload.to_value().to_string()),
        deploy_failures: Set(0),
        next_deploy_at: Set(None),
        deploy_error: Set(String::new()),
        title: Set(title),
        description: Set(description),
        tags: Set(tags),
        category: Set(category),
        scheme: Set(scheme),
        ..Default::default()
    };
    component::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([component::Column::AgentId, component::Column::ComponentId])
                .update_columns([
                    component::Column::Kind,
                    component::Column::Name,
                    component::Column::NetworkId,
                    component::Column::Desired,
                    component::Column::Spec,
                    component::Column::DeployFailures,
                    component::Column::NextDeployAt,
                    component::Column::DeployError,
                    component::Column::Title,
                    component::Column::Description,
                    component::Column::Tags,
                    component::Column::Category,
                    component::Column::Scheme,
                ])
                .to_owned(),
        )
        .exec(db)
        .await?;
    Ok(())
}

/// Records how a deployment of a desired component ended: success clears the
/// error (the backoff stays until the component is seen running, see
/// [`Reconciler::reconcile`]), failure (or an expired lease) schedules the
/// next attempt.
pub async fn record_outcome(
    db: &impl ConnectionTrait,
    finished: &job::Model,
    succeeded: bool,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    if !finished.kind.starts_with("deploy_") {
        return Ok(());
    }
    let Some(component_id) = finished.component_id.as_deref() else {
        return Ok(());
    };
    let Some(row) = component::Entity::find()
        .filter(component::Column::AgentId.eq(finished.agent_id.as_str()))
        .filter(component::Column::ComponentId.eq(component_id))
        .filter(component::Column::Desired.eq(true))
        .one(db)
        .await?
    else {
        return Ok(());
    };
    let mut update = component::Entity::update_many().filter(component::Column::Id.eq(row.id));
    if succeeded {
        update = update.col_expr(component::Column::DeployError, "".into());
    } else {
        let failures = row.deploy_failures.saturating_add(1);
        let next = now + retry_delay(failures);
        let first_line = reason.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let error = crate::text::bounded(
            &format!(
                "deployment {} ({}): {first_line}",
                finished.status, finished.id
            ),
            crate::text::limits::LONG_TEXT,
        );
        update = update
            .col_expr(component::Column::DeployFailures, failures.into())
            .col_expr(component::Column::NextDeployAt, Some(next).into())
            .col_expr(component::Column::DeployError, error.into());
        mark_pending(db, &finished.agent_id).await?;
    }
    update.exec(db).await?;
    Ok(())
}

/// Queues the deployments an Agent's desired state calls for.
#[derive(Clone)]
pub struct Reconciler {
    db: DatabaseConnection,
    jobs: JobQueue,
}

impl Reconciler {
    pub fn new(db: DatabaseConnection, jobs: JobQueue) -> Self {
        Self { db, jobs }
    }

    /// After a heartbeat: redeploys desired components the Agent no longer
    /// reports and retries failed deployments whose backoff has passed.
    /// `components` is the state the heartbeat left; when every desired one
    /// runs without a failed deployment, nothing is read or written.
    /// Returns the jobs it queued.
    pub async fn after_heartbeat(
        &self,
        agent_id: &str,
        components: &[component::Model],
    ) -> Result<Vec<job::Model>, StoreError> {
        if !needs_reconciliation(components) {
            return Ok(Vec::new());
        }
        self.reconcile(agent_id, false, Utc::now()).await
    }

    /// After the admin enables an Agent: its whole desired state is sent again.
    pub async fn resend(&self, agent_id: &str) -> Result<Vec<job::Model>, StoreError> {
        self.reconcile(agent_id, true, Utc::now()).await
    }

    /// Compares the desired state with the last report at `now` and queues
    /// what is due; `everything` re-sends every desired component.
    pub async fn reconcile(
        &self,
        agent_id: &str,
        everything: bool,
        now: DateTime<Utc>,
    ) -> Result<Vec<job::Model>, StoreError> {
        let desired = component::Entity::find()
            .filter(component::Column::AgentId.eq(agent_id))
            .filter(component::Column::Desired.eq(true))
            .all(&self.db)
            .await?;
        if desired.is_empty() {
            return Ok(Vec::new());
        }
        let Some(agent) = agent::Entity::find_by_id(agent_id).one(&self.db).await? else {
            return Ok(Vec::new());
        };
        if agent.disabled || agent.pending || agent.retired.is_retired() || !agent.docker_available
        {
            return Ok(Vec::new());
        }
        // The newest job per desired component decides what happens next
        // (one indexed lookup each: an Agent has a handful of components).
        let mut latest: HashMap<String, job::Model> = HashMap::new();
        for c in &desired {
            if let Some(row) = job::Entity::find()
                .filter(job::Column::AgentId.eq(agent_id))
                .filter(job::Column::ComponentId.eq(c.component_id.as_str()))
                // A backup reads the component and changes nothing of it: its
                // failure is no failed deployment to retry.
                .filter(job::Column::Kind.is_not_in(protocol::backups::JOB_KINDS))
                .order_by_desc(job::Column::CreatedAt)
                .one(&self.db)
                .await?
            {
                latest.insert(c.component_id.clone(), row);
            }
        }
        let mut queued = Vec::new();
        for c in &desired {
            let last = latest.get(&c.component_id);
            if let Some(last) = last {
                if last.status.is_active() {
                    continue;
                }
            }
            if !everything && is_healthy_again(c, last, now) {
                without_backoff(component::Entity::update_many())
                    .filter(component::Column::Id.eq(c.id))
                    .exec(&self.db)
                    .await?;
                continue;
            }
            let due = if everything {
                Due::Resend
            } else {
                match due(c, last, now) {
                    Some(due) => due,
                    None => continue,
                }
            };
            let Ok(spec) = serde_json::from_str::<serde_json::Value>(&c.spec) else {
                continue;
            };
            let kind = if c.kind == "beacon" {
                "deploy_beacon"
            } else {
                "deploy_sidecar"
            };
            let payload = match JobPayload::parse_new(kind, &spec) {
                Ok(payload) => payload,
                Err(refused) => {
                    // Stored before today's rules (e.g. a name with a dot,
                    // which Compose refuses): deploying it could only fail.
                    // The admin sees why; removing it still works.
                    tracing::warn!(agent_id, component = %c.component_id, field = %refused.field, "stored desired spec no longer validates");
                    let error = format!(
                        "not redeployed: {}: {} Remove it and publish it again under a valid name.",
                        refused.field,
                        refused.message(protocol::Lang::En)
                    );
                    if c.deploy_error != error {
                        component::Entity::update_many()
                            .col_expr(component::Column::DeployError, error.into())
                            .filter(component::Column::Id.eq(c.id))
                            .exec(&self.db)
                            .await?;
                    }
                    continue;
                }
            };
            let row = self
                .jobs
                .insert(agent_id, &payload, None, Asked::control())
                .await
                .map_err(|e| match e {
                    crate::jobs::queue::JobError::Store(s) => s,
                    other => StoreError(sea_orm::DbErr::Custom(other.to_string())),
                })?;
            let why = due.reason();
            let mut detail = format!("{} on Agent {agent_id}: {why}", c.component_id);
            if let Due::Unhealthy(_) = due {
                // The redeployment itself counts as an attempt, so a container
                // that keeps exiting is redeployed less and less often.
                let failures = c.deploy_failures.saturating_add(1);
                let next = now + retry_delay(failures);
                let error = format!("{why}; redeployed automatically (attempt {failures})");
                component::Entity::update_many()
                    .col_expr(component::Column::DeployFailures, failures.into())
                    .col_expr(component::Column::NextDeployAt, Some(next).into())
                    .col_expr(component::Column::DeployError, error.into())
                    .filter(component::Column::Id.eq(c.id))
                    .exec(&self.db)
                    .await?;
                detail.push_str(&format!(
                    " (attempt {failures}; the next no sooner than {})",
                    next.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                ));
            }
            audit::record_in(
                &self.db,
                row.network_id.as_deref(),
                audit::CONTROL,
                "component.redeployed",
                &row.id,
                &detail,
            )
            .await;
            tracing::info!(agent_id, component = %c.component_id, job_id = %row.id, why, "reconciliation queued a deployment");
            queued.push(row);
        }
        Ok(queued)
    }
}

/// Why reconciliation deploys a desired component now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Due {
    /// The admin enabled the Agent again.
    Resend,
    /// Never deployed on this host (e.g. the record moved to a new one).
    NeverDeployed,
    /// The last deployment failed and its backoff has passed.
    Retry,
    /// Deployed, but missing from the report or its container is down.
    Unhealthy(&'static str),
}

impl Due {
    fn reason(self) -> &'static str {
        match self {
            Due::Resend => "desired state re-sent after the Agent was enabled",
            Due::NeverDeployed => "desired component not deployed on this host yet",
            Due::Retry => "retrying a failed deployment after its backoff",
            Due::Unhealthy(why) => why,
        }
    }
}

/// What a desired component needs now, if anything.
fn due(c: &component::Model, last: Option<&job::Model>, now: DateTime<Utc>) -> Option<Due> {
    let Some(last) = last else {
        return Some(Due::NeverDeployed);
    };
    let backoff_passed = c.next_deploy_at.is_none_or(|at| at <= now);
    match last.status {
        status if status.can_retry() => backoff_passed.then_some(Due::Retry),
        // The admin stopped it; they deploy again by hand.
        JobStatus::Cancelled => None,
        _ => {
            let finished = last.finished_at.unwrap_or(last.created_at);
            // A heartbeat sent while the deployment ran may still show the old state.
            if now - finished <= SETTLE || !backoff_passed {
                return None;
            }
            if !c.status.is_reported() {
                Some(Due::Unhealthy("missing from the Agent's report"))
            } else if c.status.is_down() {
                Some(Due::Unhealthy("its container is not running"))
            } else {
                None
            }
        }
    }
}

/// A component that was being redeployed or retried is healthy again once
/// its last deployment succeeded and it is still reported running after the
/// backoff passed; its backoff then starts over.
fn is_healthy_again(c: &component::Model, last: Option<&job::Model>, now: DateTime<Utc>) -> bool {
    c.deploy_failures > 0
        && c.status.is_running()
        && last.is_some_and(|l| l.status == JobStatus::Succeeded)
        && c.next_deploy_at.is_none_or(|at| at <= now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_from_30_seconds_doubling_to_10_minutes() {
        let secs: Vec<i64> = (1..=7).map(|n| retry_delay(n).num_seconds()).collect();
        assert_eq!(secs, [30, 60, 120, 240, 480, 600, 600]);
        assert_eq!(retry_delay(1000).num_seconds(), 600);
    }
}
