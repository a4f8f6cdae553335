//! The end-to-end probe (`protocol::probes`): per network, a service the
//! admin chose and an Agent on another host that opens it through the
//! overlay every few minutes ([`schedule`]). Each finished `probe_service`
//! job leaves a run in the history, in the transaction that finishes it;
//! its outcome goes to the alert webhook as `probe.failed` / `probe.ok`.

pub mod nodes;
pub mod schedule;

use crate::access::principal::Granted;
use crate::access::roles::EditNetworks;
use crate::access::scope::NetworkScope;
use crate::entities::{agent, component, job, network, network_probe, probe_run};
use crate::jobs::queue::JobQueue;
use crate::networks::NetworkError;
use crate::{audit, rfc3339, StoreError};
use chrono::{DateTime, Duration, Utc};
use protocol::jobs::JobPayload;
use protocol::probes::{
    ProbeAgent, ProbeReport, ProbeRun, ProbeScreen, ProbeSettings, ProbeStage, ProbeTarget,
    ProbeView,
};
use protocol::{FieldError, JobStatus, NetworkId, Problem};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};

/// Runs are kept this long, like Beacon checks.
pub const HISTORY: Duration = Duration::days(30);
const DETAIL_MAX: usize = 500;

#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Network(#[from] NetworkError),
    #[error("invalid probe")]
    Invalid(Vec<FieldError>),
    #[error(transparent)]
    Inventory(#[from] crate::agents::inventory::InventoryError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for ProbeError {
    fn from(e: sea_orm::DbErr) -> Self {
        ProbeError::Store(StoreError(e))
    }
}

fn refused(field: &str, problem: Problem) -> ProbeError {
    ProbeError::Invalid(vec![FieldError::new(field, problem)])
}

/// A finished probe, for the alert.
#[derive(Clone, Debug)]
pub struct RecordedRun {
    pub network_id: String,
    pub service: String,
    pub address: String,
    pub agent_name: String,
    pub run: ProbeRun,
}

/// The network, found in the asker's scope or not at all.
async fn network_row(
    db: &impl ConnectionTrait,
    scope: &NetworkScope,
    id: &NetworkId,
) -> Result<network::Model, ProbeError> {
    network::Entity::find_by_id(id.as_str())
        .one(db)
        .await?
        .filter(|_| scope.contains(id.as_str()))
        .ok_or(ProbeError::Network(NetworkError::NotFound))
}

/// The service's sidecar in `network_id`: the one that has its address now.
pub(crate) async fn published_sidecar(
    db: &impl ConnectionTrait,
    network_id: &str,
    service: &str,
) -> Result<Option<component::Model>, StoreError> {
    let rows = component::Entity::find()
        .filter(component::Column::Kind.eq("sidecar"))
        .filter(component::Column::NetworkId.eq(network_id))
        .filter(component::Column::ComponentId.eq(format!("sidecar-{service}")))
        .all(db)
        .await?;
    Ok(rows.into_iter().find(|c| !c.service.is_empty()))
}

/// The settings and the latest runs, newest first.
pub async fn view(
    db: &DatabaseConnection,
    scope: &NetworkScope,
    network_id: &NetworkId,
) -> Result<ProbeView, ProbeError> {
    network_row(db, scope, network_id).await?;
    let settings = network_probe::Entity::find_by_id(network_id.as_str())
        .one(db)
        .await?
        .map(|row| ProbeSettings {
            service: row.service,
            agent_id: row.agent_id,
            every_minutes: u32::try_from(row.every_minutes)
                .unwrap_or(protocol::probes::EVERY_DEFAULT),
        });
    let runs = probe_run::Entity::find()
        .filter(probe_run::Column::NetworkId.eq(network_id.as_str()))
        .order_by_desc(probe_run::Column::At)
        .order_by_desc(probe_run::Column::Id)
        .limit(protocol::probes::HISTORY_SHOWN as u64)
        .all(db)
        .await?
        .into_iter()
        .map(run_view)
        .collect();
    Ok(ProbeView { settings, runs })
}

/// The panel: the view, the services that can be opened and the Agents that
/// can open them, as `scope` sees them.
pub async fn screen(
    db: &DatabaseConnection,
    inventory: &crate::agents::inventory::AgentInventory,
    scope: &NetworkScope,
    network_id: &NetworkId,
) -> Result<ProbeScreen, ProbeError> {
    let view = view(db, scope, network_id).await?;
    let everyone = inventory.list(scope).await?;
    let mut services = Vec::new();
    let mut agents = Vec::new();
    for a in &everyone {
        for c in a.components.iter().filter(|c| {
            c.kind == "sidecar"
                && c.network_id.as_deref() == Some(network_id.as_str())
                && !c.service.is_empty()
        }) {
            services.push(ProbeTarget {
                name: c.name.clone(),
                address: c.service.clone(),
                agent_id: a.id.to_string(),
                agent_name: a.name.clone(),
            });
        }
        let takes_jobs = !matches!(
            a.status,
            protocol::AgentStatus::Disabled | protocol::AgentStatus::Pending
        );
        if a.docker_available && takes_jobs && a.moved_to.is_none() {
            agents.push(ProbeAgent {
                id: a.id.to_string(),
                name: a.name.clone(),
                hostname: a.hostname.clone(),
            });
        }
    }
    services.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(ProbeScreen {
        view,
        services,
        agents,
    })
}

fn run_view(row: probe_run::Model) -> ProbeRun {
    ProbeRun {
        at: rfc3339(row.at),
        ok: row.ok,
        latency_ms: u32::try_from(row.latency_ms).unwrap_or(0),
        stage: ProbeStage::from_slug(&row.stage),
        detail: row.detail,
        agent_name: row.agent_name,
    }
}

/// Whether `prober` runs on the host of the service's sidecar (the same
/// Agent, or one reporting the same host name): no other failure domain.
pub async fn on_service_host(
    db: &impl ConnectionTrait,
    probe: &network_probe::Model,
) -> Result<bool, StoreError> {
    let Some(sidecar) = published_sidecar(db, &probe.network_id, &probe.service).await? else {
        return Ok(false);
    };
    if sidecar.agent_id == probe.agent_id {
        return Ok(true);
    }
    let hostname = |id: &str| {
        let id = id.to_string();
        async move {
            agent::Entity::find_by_id(id)
                .one(db)
                .await
                .map(|a| a.map(|a| a.hostname).unwrap_or_default())
        }
    };
    let (here, there) = (
        hostname(&sidecar.agent_id).await?,
        hostname(&probe.agent_id).await?,
    );
    Ok(!here.is_empty() && here == there)
}

/// The latest run of a network's probe, and the probe's interval: what the
/// checklist reads.
pub async fn latest(
    db: &impl ConnectionTrait,
    network_id: &str,
) -> Result<Option<(network_probe::Model, Option<probe_run::Model>)>, StoreError> {
    let Some(settings) = network_probe::Entity::find_by_id(network_id)
        .one(db)
        .await?
    else {
        return Ok(None);
    };
    let run = probe_run::Entity::find()
        .filter(probe_run::Column::NetworkId.eq(network_id))
        .order_by_desc(probe_run::Column::At)
        .order_by_desc(probe_run::Column::Id)
        .one(db)
        .await?;
    Ok(Some((settings, run)))
}

/// Chooses the service and the Agent: the service must have its `.knot`
/// address in this network, and the Agent must take Docker jobs and be one
/// the asker sees (for a person limited to some networks, one running a
/// component of them). An Agent on
/// the service's own host is accepted (a one-host first network has no
/// other), and the checklist warns about it.
/// The first probe is queued at once, and a node the previous choice left
/// on an Agent is removed ([`nodes`]). Audited.
pub async fn save(
    db: &DatabaseConnection,
    jobs: &JobQueue,
    by: &Granted<EditNetworks>,
    network_id: &NetworkId,
    input: &ProbeSettings,
) -> Result<ProbeSettings, ProbeError> {
    network_row(db, by.scope(), network_id).await?;
    let settings = input.check().map_err(|e| ProbeError::Invalid(vec![e]))?;
    if published_sidecar(db, network_id.as_str(), &settings.service)
        .await?
        .is_none()
    {
        return Err(refused("service", Problem::ProbeService));
    }
    // An Agent the asker does not see is refused like one that does not
    // exist: a person limited to some networks cannot run a node on a host
    // of another network.
    let prober = agent::Entity::find_by_id(settings.agent_id.as_str())
        .filter(by.scope().agents_condition(agent::Column::Id))
        .one(db)
        .await?
        .filter(|a| {
            !a.disabled
                && !a.pending
                && !a.retired.is_retired()
                && a.docker_available
                && a.extensions().has(protocol::extensions::Extension::Probes)
        })
        .ok_or_else(|| refused("agent_id", Problem::ProbeAgent))?;
    use network_probe::Column as C;
    let row = network_probe::ActiveModel {
        network_id: Set(network_id.to_string()),
        service: Set(settings.service.clone()),
        agent_id: Set(settings.agent_id.clone()),
        every_minutes: Set(i32::try_from(settings.every_minutes).unwrap_or(i32::MAX)),
        updated_at: Set(Utc::now()),
    };
    network_probe::Entity::insert(row)
        .on_conflict(
            OnConflict::column(C::NetworkId)
                .update_columns([C::Service, C::AgentId, C::EveryMinutes, C::UpdatedAt])
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    let detail = format!(
        "{} from Agent {} every {} min",
        settings.service, prober.name, settings.every_minutes
    );
    audit::record_in(
        db,
        Some(network_id.as_str()),
        &by.actor(),
        "probe.saved",
        network_id.as_str(),
        &detail,
    )
    .await;
    nodes::remove_unused_after_change(db, jobs).await;
    // The first result does not wait for the schedule's next tick.
    schedule::ProbeSchedule::new(db.clone(), jobs.clone())
        .queue_for(network_id.as_str(), Utc::now())
        .await?;
    Ok(settings)
}

/// Stops probing the network; the history stays until it ages out, and the
/// Agent that probed removes its node ([`nodes`]). Audited.
pub async fn remove(
    db: &DatabaseConnection,
    jobs: &JobQueue,
    by: &Granted<EditNetworks>,
    network_id: &NetworkId,
) -> Result<bool, ProbeError> {
    network_row(db, by.scope(), network_id).await?;
    let gone = network_probe::Entity::delete_by_id(network_id.as_str())
        .exec(db)
        .await?;
    if gone.rows_affected > 0 {
        audit::record_in(
            db,
            Some(network_id.as_str()),
            &by.actor(),
            "probe.removed",
            network_id.as_str(),
            "",
        )
        .await;
    }
    nodes::remove_unused_after_change(db, jobs).await;
    Ok(gone.rows_affected > 0)
}

/// Records what a finished `probe_service` job found, in the transaction
/// that finishes it. A cancelled probe found nothing; a report about
/// another address than the job's is dropped.
pub(crate) async fn record_result(
    db: &impl ConnectionTrait,
    finished: &job::Model,
    outcome: JobStatus,
    report: Option<&ProbeReport>,
    text: &str,
    now: DateTime<Utc>,
) -> Result<Option<RecordedRun>, StoreError> {
    if finished.kind != protocol::probes::JOB_KIND || outcome == JobStatus::Cancelled {
        return Ok(None);
    }
    let Some(JobPayload::ProbeService(asked)) = finished.parsed_payload() else {
        return Ok(None);
    };
    // No report (an Agent that does not know the kind, or one that broke
    // before the probe): the job's own outcome is the finding.
    let (ok, latency_ms, stage) = match report {
        Some(r) if r.address == asked.address => (
            r.ok && outcome == JobStatus::Succeeded,
            r.latency_ms,
            r.stage,
        ),
        Some(_) => {
            tracing::warn!(job_id = %finished.id, "a probe report about another address was dropped");
            return Ok(None);
        }
        None => (false, 0, Some(ProbeStage::Node)),
    };
    let stage = if ok {
        None
    } else {
        stage.or(Some(ProbeStage::Node))
    };
    let detail = if ok {
        String::new()
    } else {
        let last = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        let first = text
            .lines()
            .find(|l| l.contains(&asked.address))
            .unwrap_or(last);
        crate::text::bounded(first, DETAIL_MAX)
    };
    let agent_name = agent::Entity::find_by_id(finished.agent_id.as_str())
        .one(db)
        .await?
        .map(|a| a.name)
        .unwrap_or_default();
    probe_run::ActiveModel {
        network_id: Set(asked.network_id.to_string()),
        job_id: Set(finished.id.clone()),
        agent_id: Set(finished.agent_id.clone()),
        agent_name: Set(agent_name.clone()),
        service: Set(asked.service.clone()),
        address: Set(asked.address.clone()),
        at: Set(now),
        ok: Set(ok),
        latency_ms: Set(i32::try_from(latency_ms).unwrap_or(i32::MAX)),
        stage: Set(stage.map(ProbeStage::slug).unwrap_or_default().to_string()),
        detail: Set(detail.clone()),
        ..Default::default()
    }
    .insert(db)
    .await?;
    probe_run::Entity::delete_many()
        .filter(probe_run::Column::NetworkId.eq(asked.network_id.as_str()))
        .filter(probe_run::Column::At.lt(now - HISTORY))
        .exec(db)
        .await?;
    Ok(Some(RecordedRun {
        network_id: asked.network_id.to_string(),
        service: asked.service,
        address: asked.address,
        agent_name: agent_name.clone(),
        run: ProbeRun {
            at: rfc3339(now),
            ok,
            latency_ms,
            stage,
            detail,
            agent_name,
        },
    }))
}
