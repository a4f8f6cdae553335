//! The job queue: durable, claimed atomically (so two replicas never hand one
//! job out twice), leased while running, and woken for long-polling Agents.

use crate::access::principal::Granted;
use crate::access::roles::{ActionKind, RunJobs};
use crate::access::scope::NetworkScope;
use crate::alerts::settings::Alerts;
use crate::entities::agent::Retirement;
use crate::entities::{agent, component, job};
use crate::jobs::progress::{JobJournal, PROGRESS_LEASE};
use crate::jobs::wakeup::JobWakeup;
use crate::jobs::{admission, deployed_beacons, reconcile};
use crate::rfc3339;
use crate::{audit, database_now, split_page, StoreError};
use chrono::{DateTime, Duration, Utc};
use protocol::agent::{JobOffer, JobResult};
use protocol::api::JobView;
use protocol::extensions::Extensions;
use protocol::jobs::JobPayload;
use protocol::{AgentId, FieldError, JobId, JobStatus};
use protocol::{Id, NetworkId};
use rand::RngCore;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, DbBackend, EntityTrait,
    QueryFilter, QueryOrder, QuerySelect, Set, Statement,
};

pub const LEASE: Duration = Duration::minutes(10);
/// Result text kept per job; the Agent bounds its output too.
pub const RESULT_MAX: usize = 64 * 1024;
/// How often a long-poll looks at the database even without a wake-up: the
/// safety net should a NOTIFY be lost (a listener reconnecting).
pub const POLL_INTERVAL: std::time::Duration = std::time::Duration::from_secs(5);

/// A job whose result was just recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedJob {
    pub kind: String,
    pub status: JobStatus,
    /// From the Agent taking it to its result.
    pub ran_for: Option<std::time::Duration>,
}

#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("invalid job: {0}")]
    Invalid(FieldError),
    #[error("no such agent")]
    AgentNotFound,
    #[error("the agent is disabled")]
    AgentDisabled,
    /// It waits for an admin's approval (`agents::approval`).
    #[error("the agent waits for approval")]
    AgentPending,
    /// Revoked or moved: its key no longer works.
    #[error("the agent is {0}")]
    AgentRetired(Retirement),
    #[error("the agent reported that Docker is not available")]
    NoDocker,
    /// The job needs an extension the Agent has not announced.
    #[error("the agent has not announced the extension {0}")]
    AgentLacksExtension(protocol::extensions::Extension),
    #[error("no such job")]
    NotFound,
    /// The job's network is not one the person asking sees (or it has none
    /// and they see only some): as if the network did not exist.
    #[error("no such network")]
    NetworkNotFound,
    /// Cancel needs a pending or running job, retry a failed or expired one.
    #[error("the job is {0}")]
    WrongState(JobStatus),
    /// The running job's Agent does not report progress, so it cannot be told to stop.
    #[error("the job's Agent cannot be told to stop")]
    CannotStop,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Who asks for a job, as [`JobQueue::insert`] needs it.
pub(crate) struct Asked {
    /// As the audit log names them.
    actor: String,
    /// The networks the job may be for.
    pub(crate) scope: NetworkScope,
    /// A person's (or token's) job: it changes the desired state and names
    /// only its network's Beacons (`admission`); Control's own does neither.
    pub(crate) by_person: bool,
    /// May point Control at private addresses (`address_policy`).
    pub(crate) may_reach_private: bool,
}

impl Asked {
    /// A person or token, with their capability.
    fn by(granted: &Granted<RunJobs>) -> Self {
        Self {
            actor: granted.actor(),
            scope: granted.scope().clone(),
            by_person: true,
            may_reach_private: granted.may_also(ActionKind::ChangeSettings),
        }
    }

    /// Control's reconciliation, which sees every network.
    pub(crate) fn control() -> Self {
        Self {
            actor: audit::CONTROL.to_string(),
            scope: NetworkScope::all(),
            by_person: false,
            may_reach_private: true,
        }
    }
}

pub fn view(row: &job::Model) -> JobView {
    JobView {
        id: JobId::from_stored(row.id.clone()),
        agent_id: AgentId::from_stored(row.agent_id.clone()),
        kind: row.kind.clone(),
        payload: serde_json::from_str(&row.payload).unwrap_or(serde_json::Value::Null),
        status: row.status,
        result: row.result.clone(),
        created_at: rfc3339(row.created_at),
        started_at: row.started_at.map(rfc3339),
        finished_at: row.finished_at.map(rfc3339),
        retry_of: row.retry_of.clone().map(JobId::from_stored),
        component_id: row.component_id.clone(),
        network_id: row.network_id.clone().map(NetworkId::from_stored),
        reports_progress: row.reports_progress,
        cancel_requested: row.cancel_requested_at.is_some(),
        stage: None,
        stages: Vec::new(),
    }
}

/// What a claimed job looks like to the Agent that claimed it.
/// An Agent that `announced` what it speaks gets no field of an extension
/// it did not announce.
pub fn offer(row: &job::Model, announced: Extensions) -> Option<JobOffer> {
    let payload = serde_json::from_str(&row.payload).ok()?;
    Some(JobOffer {
        id: JobId::parse(&row.id).ok()?,
        agent_id: AgentId::parse(&row.agent_id).ok()?,
        kind: row.kind.clone(),
        payload: protocol::extensions::payload_for(&row.kind, payload, announced),
        status: row.status.as_str().to_string(),
        created_at: rfc3339(row.created_at),
        started_at: rfc3339(row.started_at.unwrap_or(row.created_at)),
    })
}

/// What `GET /api/v1/jobs` may filter on.
#[derive(Clone, Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct JobFilter {
    pub status: Option<JobStatus>,
    pub agent_id: Option<String>,
    /// One kind: `deploy_beacon`, `deploy_sidecar`, `restart_component`,
    /// `remove_component`, `backup_volume`, `verify_backup` or `probe_service`.
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub network_id: Option<String>,
    /// `true` leaves out the end-to-end probe's runs (`probe_service`),
    /// which Control queues every few minutes for each network that probes;
    /// their history is on the network's setup page. Ignored when `kind`
    /// asks for them.
    #[serde(default)]
    pub hide_probe_runs: bool,
    pub after: Option<String>,
    #[serde(default = "default_page")]
    pub limit: u64,
}

fn default_page() -> u64 {
    100
}

#[derive(Clone)]
pub struct JobQueue {
    db: DatabaseConnection,
    wakeup: JobWakeup,
    /// Told of every failed or expired job.
    alerts: Alerts,
    /// The stages and output of running jobs.
    journal: JobJournal,
}

impl JobQueue {
    /// Also starts, on PostgreSQL, the listener that wakes this replica's
    /// long-polls for jobs queued through another replica.
    pub fn new(db: DatabaseConnection, alerts: Alerts) -> Self {
        let wakeup = JobWakeup::default();
        wakeup.spawn_listener(&db);
        let journal = JobJournal::new(db.clone());
        Self {
            db,
            wakeup,
            alerts,
            journal,
        }
    }

    /// Where running jobs' progress is recorded and read.
    pub fn journal(&self) -> &JobJournal {
        &self.journal
    }

    /// One job as the admin API shows it, with its stages.
    pub async fn view_of(&self, scope: &NetworkScope, id: &JobId) -> Result<JobView, JobError> {
        let row = self.get(scope, id).await?;
        Ok(JobView {
            stages: self.journal.stages(&row.id).await?,
            ..view(&row)
        })
    }

    /// A page of jobs as the admin API shows them: running ones say the
    /// stage they are in.
    pub async fn list_views(
        &self,
        scope: &NetworkScope,
        filter: &JobFilter,
    ) -> Result<(Vec<JobView>, Option<String>), JobError> {
        let (rows, next) = self.list(scope, filter).await?;
        let running: Vec<String> = rows
            .iter()
            .filter(|r| r.status == JobStatus::Running && r.reports_progress)
            .map(|r| r.id.clone())
            .collect();
        let mut stages = self.journal.current_stages(&running).await?;
        let views = rows
            .iter()
            .map(|row| JobView {
                stage: stages.remove(&row.id),
                ..view(row)
            })
            .collect();
        Ok((views, next))
    }

    /// Queues a job after validating its payload. Jobs for an offline Agent stay
    /// pending until it returns; a disabled Agent, or one that reported Docker
    /// as unavailable, is refused at once because the job could only fail.
    #[tracing::instrument(name = "job.create", skip_all, fields(agent_id, kind))]
    pub async fn create(
        &self,
        by: &Granted<RunJobs>,
        agent_id: &str,
        kind: &str,
        payload: &serde_json::Value,
    ) -> Result<job::Model, JobError> {
        let payload = JobPayload::parse_new(kind, payload).map_err(JobError::Invalid)?;
        let agent = self.agent_taking_jobs(by.scope(), agent_id).await?;
        let asked = Asked::by(by);
        self.insert(&agent.id, &payload, None, asked).await
    }

    /// The Agent a new job is for, or why it would only fail there. One
    /// `scope` does not see is not found.
    async fn agent_taking_jobs(
        &self,
        scope: &NetworkScope,
        agent_id: &str,
    ) -> Result<agent::Model, JobError> {
        let agent_id = AgentId::parse(agent_id).map_err(|_| JobError::AgentNotFound)?;
        let agent = agent::Entity::find_by_id(agent_id.as_str())
            .filter(scope.agents_condition(agent::Column::Id))
            .one(&self.db)
            .await?
            .ok_or(JobError::AgentNotFound)?;
        if agent.retired.is_retired() {
            return Err(JobError::AgentRetired(agent.retired));
        }
        if agent.disabled {
            return Err(JobError::AgentDisabled);
        }
        if agent.pending {
            return Err(JobError::AgentPending);
        }
        if agent.last_heartbeat_at.is_some() && !agent.docker_available {
            return Err(JobError::NoDocker);
        }
        Ok(agent)
    }

    /// Stores a pending job and wakes the Agent's long-poll on every replica.
    /// A person's job ([`Asked::by`]) also records what it means for the
    /// desired state, in the same transaction, so reconciliation never sees
    /// the intent without its job, and is refused (nothing written) when its
    /// network is not one they see. Whoever asks, a job never names what
    /// belongs to another network (`admission`).
    pub(crate) async fn insert(
        &self,
        agent_id: &str,
        payload: &JobPayload,
        retry_of: Option<String>,
        asked: Asked,
    ) -> Result<job::Model, JobError> {
        let txn = crate::begin_write(&self.db).await?;
        let network_id = match payload.network_id() {
            Some(id) => Some(id.to_string()),
            None => component::Entity::find()
                .filter(component::Column::AgentId.eq(agent_id))
                .filter(component::Column::ComponentId.eq(payload.component_id()))
                .one(&txn)
                .await?
                .and_then(|c| c.network_id),
        };
        if !asked.scope.is_all()
            && !network_id
                .as_deref()
                .is_some_and(|n| asked.scope.contains(n))
        {
            return Err(JobError::NetworkNotFound);
        }
        admission::admit(&txn, agent_id, payload, &asked).await?;
        if asked.by_person {
            reconcile::record_intent(&txn, agent_id, payload).await?;
        }
        let mut bytes = [0u8; 16];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let row = job::ActiveModel {
            id: Set(JobId::from_random_bytes(bytes).to_string()),
            agent_id: Set(agent_id.to_string()),
            kind: Set(payload.kind().to_string()),
            payload: Set(payload.to_value().to_string()),
            status: Set(JobStatus::Pending),
            result: Set(String::new()),
            created_at: Set(database_now(&txn).await),
            started_at: Set(None),
            finished_at: Set(None),
            lease_expires_at: Set(None),
            retry_of: Set(retry_of),
            component_id: Set(Some(payload.component_id())),
            network_id: Set(network_id),
            may_reach_private: Set(asked.may_reach_private),
            ..Default::default()
        }
        .insert(&txn)
        .await?;
        txn.commit().await?;
        tracing::info!(job_id = %row.id, agent_id, kind = %row.kind, "job queued");
        let detail = format!("{} {} for {agent_id}", row.kind, payload.component_id());
        let network = row.network_id.as_deref();
        audit::record_in(
            &self.db,
            network,
            &asked.actor,
            "job.created",
            &row.id,
            &detail,
        )
        .await;
        self.wakeup.announce(&self.db, agent_id).await;
        Ok(row)
    }

    /// Moves the agent's oldest pending job to `running` and returns it, or
    /// `None`. Atomic on both databases: PostgreSQL skips rows another
    /// transaction holds; elsewhere the conditional update lets one claimer win.
    /// An Agent that `reports_progress` gets a one-minute lease, which its
    /// progress messages extend; others get [`LEASE`].
    /// Only kinds the Agent can take by what it `announced` are handed out
    /// (a job of another kind waits for an Agent that speaks it:
    /// [`JobQueue::agent_announced`]).
    pub async fn claim_next(
        &self,
        agent_id: &str,
        reports_progress: bool,
        announced: Extensions,
    ) -> Result<Option<job::Model>, StoreError> {
        let kinds: Vec<&str> = announced.job_kinds(&JobPayload::KINDS).collect();
        let lease_for = if reports_progress {
            PROGRESS_LEASE
        } else {
            LEASE
        };
        if self.db.get_database_backend() == DbBackend::Postgres {
            // The lease runs on the database's clock, which every replica shares.
            let sql = format!(
                "UPDATE jobs SET status = '{running}', started_at = now(), \
                 lease_expires_at = now() + interval '{lease} seconds', reports_progress = $2 \
                 WHERE id = (SELECT id FROM jobs WHERE agent_id = $1 AND status = '{pending}' \
                             AND kind IN ({kinds}) \
                             ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) \
                 RETURNING *",
                running = JobStatus::Running,
                pending = JobStatus::Pending,
                lease = lease_for.num_seconds(),
                // Constants of ours (JobPayload::KINDS), not input.
                kinds = kinds
                    .iter()
                    .map(|k| format!("'{k}'"))
                    .collect::<Vec<_>>()
                    .join(", "),
            );
            let stmt = Statement::from_sql_and_values(
                DbBackend::Postgres,
                sql,
                [agent_id.into(), reports_progress.into()],
            );
            return Ok(job::Entity::find().from_raw_sql(stmt).one(&self.db).await?);
        }
        let now = database_now(&self.db).await;
        let lease = now + lease_for;
        for _ in 0..8 {
            let Some(candidate) = job::Entity::find()
                .filter(job::Column::AgentId.eq(agent_id))
                .filter(job::Column::Status.eq(JobStatus::Pending))
                .filter(job::Column::Kind.is_in(kinds.iter().copied()))
                .order_by_asc(job::Column::CreatedAt)
                .order_by_asc(job::Column::Id)
                .limit(1)
                .one(&self.db)
                .await?
            else {
                return Ok(None);
            };
            let claimed = job::Entity::update_many()
                .col_expr(job::Column::Status, JobStatus::Running.into())
                .col_expr(job::Column::StartedAt, now.into())
                .col_expr(job::Column::LeaseExpiresAt, lease.into())
                .col_expr(job::Column::ReportsProgress, reports_progress.into())
                .filter(job::Column::Id.eq(candidate.id.as_str()))
                .filter(job::Column::Status.eq(JobStatus::Pending))
                .exec(&self.db)
                .await?;
            if claimed.rows_affected == 1 {
                return Ok(job::Entity::find_by_id(candidate.id).one(&self.db).await?);
            }
        }
        Ok(None)
    }

    /// Claims a job for `agent`, waiting up to `wait` for one to be queued.
    /// An Agent waiting for approval is handed none: it is answered after
    /// the same wait (so a long-polling Agent does not ask again at once),
    /// and even a job queued before it came to wait stays where it is.
    #[tracing::instrument(name = "job.claim", skip_all, fields(agent_id = %agent.id, job_id = tracing::field::Empty))]
    pub async fn claim_next_waiting(
        &self,
        agent: &agent::Model,
        reports_progress: bool,
        announced: Extensions,
        wait: std::time::Duration,
    ) -> Result<Option<job::Model>, StoreError> {
        if agent.pending {
            tokio::time::sleep(wait).await;
            return Ok(None);
        }
        let agent_id = agent.id.as_str();
        let deadline = tokio::time::Instant::now() + wait;
        let waker = self.wakeup.waiter(agent_id);
        loop {
            // Registered before the check, so a job queued in between still wakes us.
            let notified = waker.notified();
            if let Some(job) = self
                .claim_next(agent_id, reports_progress, announced)
                .await?
            {
                tracing::Span::current().record("job_id", job.id.as_str());
                return Ok(Some(job));
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            let nap = (deadline - now).min(POLL_INTERVAL);
            let _ = tokio::time::timeout(nap, notified).await;
        }
    }

    /// Records an Agent's result. Only the Agent that holds the job may report;
    /// the first result wins and a repeat is accepted without changing anything
    /// (then `None`: only the call that recorded it returns the finished job).
    #[tracing::instrument(name = "job.result", skip_all, fields(agent_id, job_id = %result.job_id))]
    pub async fn report_result(
        &self,
        agent_id: &str,
        result: &JobResult,
    ) -> Result<Option<FinishedJob>, JobError> {
        let row = job::Entity::find_by_id(result.job_id.as_str())
            .one(&self.db)
            .await?
            .filter(|j| j.agent_id == agent_id)
            .ok_or(JobError::NotFound)?;
        if row.status != JobStatus::Running {
            return Ok(None);
        }
        // `cancelled` stands only when Control asked for it.
        let outcome = match JobStatus::from(result.status) {
            JobStatus::Cancelled if row.cancel_requested_at.is_none() => JobStatus::Failed,
            outcome => outcome,
        };
        let text = crate::text::bounded_multiline(&result.result, RESULT_MAX);
        // The clock `started_at` was set by, so `ran_for` measures one clock.
        let now = database_now(&self.db).await;
        let txn = crate::begin_write(&self.db).await?;
        let done = job::Entity::update_many()
            .col_expr(job::Column::Status, outcome.into())
            .col_expr(job::Column::Result, text.clone().into())
            .col_expr(job::Column::FinishedAt, now.into())
            .filter(job::Column::Id.eq(row.id.as_str()))
            .filter(job::Column::Status.eq(JobStatus::Running))
            .exec(&txn)
            .await?;
        if done.rows_affected == 0 {
            // Another replica recorded the same result first.
            return Ok(None);
        }
        let finished = job::Model {
            status: outcome,
            ..row.clone()
        };
        reconcile::record_outcome(&txn, &finished, outcome == JobStatus::Succeeded, &text, now)
            .await?;
        JobJournal::close_stages(&txn, &row.id, outcome, now).await?;
        crate::backups::record_result(&txn, &finished, outcome, result.backup.as_ref(), &text, now)
            .await?;
        crate::identities::record_result(&txn, &finished, outcome, result.restart.as_ref(), now)
            .await?;
        let probed = crate::probes::record_result(
            &txn,
            &finished,
            outcome,
            result.probe.as_ref(),
            &text,
            now,
        )
        .await?;
        let joined = if outcome == JobStatus::Succeeded {
            deployed_beacons::join_profile(&txn, &finished).await?
        } else {
            None
        };
        txn.commit().await?;
        tracing::info!(job_id = %row.id, agent_id, status = %outcome, "job finished");
        // A failing probe is news once, as `probe.failed`, not at every run.
        if let Some(probed) = &probed {
            self.alerts.probe_finished(probed).await;
        } else if outcome == JobStatus::Failed {
            self.alerts.job_failed(&finished, &text).await;
        }
        audit::record_in(
            &self.db,
            finished.network_id.as_deref(),
            &audit::agent_actor(agent_id),
            "job.finished",
            &row.id,
            outcome.as_str(),
        )
        .await;
        if let Some(joined) = joined {
            tracing::info!(network_id = %joined.network_id, url = %joined.url, "deployed Beacon added to its profile");
            audit::record_in(
                &self.db,
                Some(&joined.network_id),
                audit::CONTROL,
                "network.beacon_added",
                &joined.network_id,
                &joined.url,
            )
            .await;
        }
        Ok(Some(FinishedJob {
            kind: row.kind,
            status: outcome,
            ran_for: row.started_at.and_then(|at| (now - at).to_std().ok()),
        }))
    }

    /// While Control was away, Agents could not extend their jobs' one-minute
    /// leases; a starting replica gives each running job that reports
    /// progress a minute from now, so none expires only because Control was
    /// down. Returns how many.
    pub async fn renew_progress_leases(&self) -> Result<u64, StoreError> {
        let renewed = database_now(&self.db).await + PROGRESS_LEASE;
        let done = job::Entity::update_many()
            .col_expr(job::Column::LeaseExpiresAt, Some(renewed).into())
            .filter(job::Column::Status.eq(JobStatus::Running))
            .filter(job::Column::ReportsProgress.eq(true))
            .filter(job::Column::LeaseExpiresAt.lt(renewed))
            .exec(&self.db)
            .await?;
        Ok(done.rows_affected)
    }

    /// Expires the jobs whose lease has passed by the database's clock (see
    /// [`Self::expire_leases`]); run every half minute by every replica.
    pub async fn expire_overdue(&self) -> Result<u64, StoreError> {
        let now = database_now(&self.db).await;
        self.expire_leases(now).await
    }

    /// Running jobs whose lease passed at `now` become `expired`, each audited
    /// and counted as a failed deployment; returns how many.
    pub async fn expire_leases(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        const REASON: &str = "the Agent did not report a result within the 10-minute lease";
        const SILENT: &str = "the Agent sent no progress for a minute: it stopped, lost its connection to Control, or never received the job";
        let overdue = job::Entity::find()
            .filter(job::Column::Status.eq(JobStatus::Running))
            .filter(job::Column::LeaseExpiresAt.lt(now))
            .limit(500)
            .all(&self.db)
            .await?;
        let mut expired = 0;
        for row in overdue {
            let reason = if row.reports_progress { SILENT } else { REASON };
            let txn = crate::begin_write(&self.db).await?;
            let done = job::Entity::update_many()
                .col_expr(job::Column::Status, JobStatus::Expired.into())
                .col_expr(job::Column::Result, reason.into())
                .col_expr(job::Column::FinishedAt, now.into())
                .filter(job::Column::Id.eq(row.id.as_str()))
                .filter(job::Column::Status.eq(JobStatus::Running))
                .exec(&txn)
                .await?;
            if done.rows_affected == 0 {
                continue; // a result (or another replica) got there first
            }
            let finished = job::Model {
                status: JobStatus::Expired,
                ..row.clone()
            };
            reconcile::record_outcome(&txn, &finished, false, reason, now).await?;
            JobJournal::close_stages(&txn, &row.id, JobStatus::Expired, now).await?;
            txn.commit().await?;
            tracing::warn!(job_id = %row.id, agent_id = %row.agent_id, "job lease expired");
            let network = row.network_id.as_deref();
            audit::record_in(
                &self.db,
                network,
                audit::CONTROL,
                "job.expired",
                &row.id,
                reason,
            )
            .await;
            self.alerts.job_failed(&finished, reason).await;
            expired += 1;
        }
        Ok(expired)
    }

    /// Cancels every pending job of an Agent (revoked, moved or deleted), in
    /// the caller's transaction; returns how many.
    pub async fn cancel_all_pending(
        db: &impl ConnectionTrait,
        agent_id: &str,
        why: &str,
    ) -> Result<u64, StoreError> {
        let now = database_now(db).await;
        let done = job::Entity::update_many()
            .col_expr(job::Column::Status, JobStatus::Cancelled.into())
            .col_expr(job::Column::Result, why.into())
            .col_expr(job::Column::FinishedAt, now.into())
            .filter(job::Column::AgentId.eq(agent_id))
            .filter(job::Column::Status.eq(JobStatus::Pending))
            .exec(db)
            .await?;
        Ok(done.rows_affected)
    }

    /// How many jobs are stored, by status (for the metrics endpoint).
    pub async fn count_by_status(&self) -> Result<Vec<(JobStatus, u64)>, StoreError> {
        let rows: Vec<(JobStatus, i64)> = job::Entity::find()
            .select_only()
            .column(job::Column::Status)
            .column_as(job::Column::Id.count(), "count")
            .group_by(job::Column::Status)
            .into_tuple()
            .all(&self.db)
            .await?;
        Ok(rows
            .into_iter()
            .map(|(status, n)| (status, n.max(0) as u64))
            .collect())
    }

    /// Jobs newest first, optionally of one status and one agent; `after` is
    /// the last ID of the previous page (keyset, so deep pages stay fast).
    pub async fn list(
        &self,
        scope: &NetworkScope,
        filter: &JobFilter,
    ) -> Result<(Vec<job::Model>, Option<String>), JobError> {
        let limit = filter.limit.clamp(1, 500);
        let mut query = job::Entity::find()
            .filter(scope.condition(job::Column::NetworkId))
            .order_by_desc(job::Column::CreatedAt)
            .order_by_desc(job::Column::Id)
            .limit(limit + 1);
        if let Some(s) = filter.status {
            query = query.filter(job::Column::Status.eq(s));
        }
        if let Some(a) = &filter.agent_id {
            query = query.filter(job::Column::AgentId.eq(a.as_str()));
        }
        if let Some(k) = &filter.kind {
            query = query.filter(job::Column::Kind.eq(k.as_str()));
        } else if filter.hide_probe_runs {
            query = query.filter(job::Column::Kind.ne(protocol::probes::JOB_KIND));
        }
        if let Some(n) = &filter.network_id {
            query = query.filter(job::Column::NetworkId.eq(n.as_str()));
        }
        if let Some(after) = &filter.after {
            let anchor = self.row(scope, after).await?;
            query = query.filter(crate::older_than(
                job::Column::CreatedAt,
                job::Column::Id,
                anchor.created_at,
                anchor.id,
            ));
        }
        let mut rows = query.all(&self.db).await?;
        let next = split_page(&mut rows, limit, |r| r.id.clone());
        Ok((rows, next))
    }

    /// Cancels a job that no Agent has claimed yet, or asks the Agent
    /// running one to stop (it hears so in the answer to its next progress
    /// message, and reports `cancelled`). An Agent that reports no progress
    /// cannot be asked.
    #[tracing::instrument(name = "job.cancel", skip_all, fields(job_id = %id))]
    pub async fn cancel(&self, by: &Granted<RunJobs>, id: &JobId) -> Result<job::Model, JobError> {
        let id = id.as_str();
        let now = database_now(&self.db).await;
        let current = self.row(by.scope(), id).await?;
        if current.status == JobStatus::Running {
            return self.request_stop(by, current, now).await;
        }
        let done = job::Entity::update_many()
            .col_expr(job::Column::Status, JobStatus::Cancelled.into())
            .col_expr(
                job::Column::Result,
                "cancelled by an admin before an Agent took it".into(),
            )
            .col_expr(job::Column::FinishedAt, now.into())
            .filter(job::Column::Id.eq(id))
            .filter(job::Column::Status.eq(JobStatus::Pending))
            .exec(&self.db)
            .await?;
        let row = self.row(by.scope(), id).await?;
        if done.rows_affected == 0 {
            return Err(JobError::WrongState(row.status));
        }
        tracing::info!(job_id = id, "job cancelled");
        let network = row.network_id.as_deref();
        audit::record_in(&self.db, network, &by.actor(), "job.cancelled", id, "").await;
        Ok(row)
    }

    async fn request_stop(
        &self,
        by: &Granted<RunJobs>,
        row: job::Model,
        now: DateTime<Utc>,
    ) -> Result<job::Model, JobError> {
        if !row.reports_progress {
            return Err(JobError::CannotStop);
        }
        job::Entity::update_many()
            .col_expr(job::Column::CancelRequestedAt, Some(now).into())
            .filter(job::Column::Id.eq(row.id.as_str()))
            .filter(job::Column::Status.eq(JobStatus::Running))
            .filter(job::Column::CancelRequestedAt.is_null())
            .exec(&self.db)
            .await?;
        let row = self.row(by.scope(), &row.id).await?;
        if row.status == JobStatus::Running {
            tracing::info!(job_id = %row.id, "job asked to stop");
            let network = row.network_id.as_deref();
            let actor = by.actor();
            audit::record_in(&self.db, network, &actor, "job.stop_requested", &row.id, "").await;
        }
        Ok(row)
    }

    /// Queues a new job with the same payload as a failed or expired one, linked to it.
    #[tracing::instrument(name = "job.retry", skip_all, fields(job_id = %id))]
    pub async fn retry(&self, by: &Granted<RunJobs>, id: &JobId) -> Result<job::Model, JobError> {
        let id = id.as_str();
        let old = self.row(by.scope(), id).await?;
        if !old.status.can_retry() {
            return Err(JobError::WrongState(old.status));
        }
        let payload: serde_json::Value = serde_json::from_str(&old.payload).unwrap_or_default();
        // Today's rules: a deployment under a name Compose refuses is not sent again.
        let payload = JobPayload::parse_new(&old.kind, &payload).map_err(JobError::Invalid)?;
        let agent = self.agent_taking_jobs(by.scope(), &old.agent_id).await?;
        self.insert(&agent.id, &payload, Some(old.id.clone()), Asked::by(by))
            .await
    }

    /// Job `id`, when `scope` sees its network: one outside is not found.
    pub async fn get(&self, scope: &NetworkScope, id: &JobId) -> Result<job::Model, JobError> {
        self.row(scope, id.as_str()).await
    }

    async fn row(&self, scope: &NetworkScope, id: &str) -> Result<job::Model, JobError> {
        job::Entity::find_by_id(id)
            .filter(scope.condition(job::Column::NetworkId))
            .one(&self.db)
            .await?
            .ok_or(JobError::NotFound)
    }
}
