//! The admin's view of Agents and the lifecycle actions on them: listing with
//! components and status, disable/enable, revoke, delete, and move to another host.

use crate::access::principal::Granted;
use crate::access::roles::ManageAgents;
use crate::access::scope::NetworkScope;
use crate::agents::install_tokens::{InstallTokenError, InstallTokens, Issued};
use crate::agents::status::{agent_status, component_error};
use crate::entities::agent::Retirement;
use crate::entities::{agent, agent_control_trust, component};
use crate::jobs::queue::JobQueue;
use crate::jobs::reconcile::Reconciler;
use crate::{audit, StoreError};
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use protocol::api::{
    AgentChoice, AgentView, ComponentView, ControlTrustView, CreatedInstallToken,
    INSTALL_TOKEN_DEFAULT_HOURS,
};
use protocol::services::PublishedService;
use protocol::ComponentStatus;
use protocol::{AgentId, Id};
use sea_orm::sea_query::{Condition, Query};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, LoaderTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};
use std::collections::HashMap;

/// How many troubled Agents the Overview reads at most to rank and count.
pub const ATTENTION_SCAN: u64 = 500;

#[derive(Debug, thiserror::Error)]
pub enum InventoryError {
    #[error("no such agent")]
    NotFound,
    /// Revoked or moved Agents cannot be enabled, disabled or moved again.
    #[error("the agent is {0}")]
    Retired(Retirement),
    /// Approving or rejecting an Agent that does not wait for approval.
    #[error("the agent is not waiting for approval")]
    NotPending,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<InstallTokenError> for InventoryError {
    fn from(e: InstallTokenError) -> Self {
        match e {
            InstallTokenError::Store(s) => InventoryError::Store(s),
            other => InventoryError::Store(StoreError(sea_orm::DbErr::Custom(other.to_string()))),
        }
    }
}

fn view(
    agent: &agent::Model,
    components: &[component::Model],
    trust: Option<&agent_control_trust::Model>,
    now: DateTime<Utc>,
    offline_after: Duration,
) -> AgentView {
    let status = agent_status(agent, components, trust, now, offline_after);
    AgentView {
        id: AgentId::from_stored(agent.id.clone()),
        name: agent.name.clone(),
        hostname: agent.hostname.clone(),
        version: agent.version.clone(),
        tags: serde_json::from_str(&agent.tags).unwrap_or_default(),
        docker_available: agent.docker_available,
        docker_version: agent.docker_version.clone(),
        status: status.status,
        reason: status.reason,
        reason_text: status.reason_text,
        last_heartbeat_at: agent
            .last_heartbeat_at
            .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true)),
        last_seen_secs: agent
            .last_heartbeat_at
            .map(|t| (now - t).num_seconds().max(0) as u64),
        moved_to: agent.moved_to.clone().map(AgentId::from_stored),
        components: components
            .iter()
            .map(|c| ComponentView {
                id: c.component_id.clone(),
                kind: c.kind.clone(),
                name: c.name.clone(),
                network_id: c.network_id.clone(),
                desired: c.desired,
                status: c.status,
                image: c.image.clone(),
                version: c.version.clone(),
                service: c.service.clone(),
                restart_count: c.restart_count,
                last_error: component_error(c).unwrap_or_default(),
                warnings: serde_json::from_str(&c.warnings).unwrap_or_default(),
                next_retry_at: c
                    .next_deploy_at
                    .filter(|_| c.desired && !c.deploy_error.is_empty())
                    .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true)),
                spec: c
                    .desired
                    .then(|| serde_json::from_str(&c.spec).ok())
                    .flatten(),
                catalog: c.catalog(),
            })
            .collect(),
        control_trust: trust.map(|t| ControlTrustView {
            pinned_fingerprint: if t.pinned_key.is_empty() {
                String::new()
            } else {
                protocol::control_identity::fingerprint(&t.pinned_key)
            },
            pin_state: t.pin_state.clone(),
            refused_at: t
                .refused_at
                .map(|at| at.to_rfc3339_opts(SecondsFormat::Secs, true)),
            refused_count: t.refused_count.max(0) as u64,
            refused_detail: t.refused_detail.clone(),
        }),
        key_fingerprint: crate::agents::approval::fingerprint(agent),
    }
}

#[derive(Clone)]
pub struct AgentInventory {
    db: DatabaseConnection,
    reconciler: Reconciler,
    install_tokens: InstallTokens,
    offline_after: Duration,
}

impl AgentInventory {
    pub fn new(
        db: DatabaseConnection,
        reconciler: Reconciler,
        install_tokens: InstallTokens,
        offline_after: Duration,
    ) -> Self {
        Self {
            db,
            reconciler,
            install_tokens,
            offline_after,
        }
    }

    /// What these Agents reported about Control's key (one query).
    async fn trust_of(
        &self,
        agents: &[agent::Model],
    ) -> Result<HashMap<String, agent_control_trust::Model>, InventoryError> {
        Ok(agent_control_trust::Entity::find()
            .filter(
                agent_control_trust::Column::AgentId.is_in(agents.iter().map(|a| a.id.as_str())),
            )
            .all(&self.db)
            .await?
            .into_iter()
            .map(|t| (t.agent_id.clone(), t))
            .collect())
    }

    /// Agent `id`, when `scope` sees it (it runs a component of theirs).
    async fn find(&self, scope: &NetworkScope, id: &str) -> Result<agent::Model, InventoryError> {
        agent::Entity::find_by_id(id)
            .filter(scope.agents_condition(agent::Column::Id))
            .one(&self.db)
            .await?
            .ok_or(InventoryError::NotFound)
    }

    /// The views of `agents`, each judged with all its components that
    /// `scope` sees (one query for the components of them all): another
    /// network's component neither shows nor colours the Agent's status.
    async fn views_of(
        &self,
        scope: &NetworkScope,
        agents: &[agent::Model],
        now: DateTime<Utc>,
    ) -> Result<Vec<AgentView>, InventoryError> {
        let components = agents.load_many(component::Entity, &self.db).await?;
        let trust = self.trust_of(agents).await?;
        Ok(agents
            .iter()
            .zip(components)
            .map(|(a, mut c)| {
                c.retain(|c| scope.keeps_component(c));
                view(a, &c, trust.get(&a.id), now, self.offline_after)
            })
            .collect())
    }

    /// The Agents that run (or are to run) a component of `network_id`, by
    /// name, each with the components `scope` sees.
    pub async fn in_network(
        &self,
        scope: &NetworkScope,
        network_id: &str,
    ) -> Result<Vec<AgentView>, InventoryError> {
        let of_network = Query::select()
            .column(component::Column::AgentId)
            .from(component::Entity)
            .and_where(component::Column::NetworkId.eq(network_id))
            .to_owned();
        let of_network = agent::Entity::find().filter(agent::Column::Id.in_subquery(of_network));
        self.views_by_name(scope, of_network).await
    }

    /// Every Agent `scope` sees with its components, by name. (Two queries,
    /// whatever the count.)
    pub async fn list(&self, scope: &NetworkScope) -> Result<Vec<AgentView>, InventoryError> {
        self.views_by_name(scope, agent::Entity::find()).await
    }

    /// The Agents `query` selects that `scope` sees, by name, each with the
    /// components `scope` sees.
    async fn views_by_name(
        &self,
        scope: &NetworkScope,
        query: sea_orm::Select<agent::Entity>,
    ) -> Result<Vec<AgentView>, InventoryError> {
        let agents = query
            .filter(scope.agents_condition(agent::Column::Id))
            .order_by_asc(agent::Column::Name)
            .order_by_asc(agent::Column::Id)
            .all(&self.db)
            .await?;
        let now = crate::database_now(&self.db).await;
        self.views_of(scope, &agents, now).await
    }

    /// One page of Agents by name (keyset paging on name and ID, so a page
    /// costs the same with 10,000 Agents as with 10), and the cursor of the
    /// next page: the last Agent's ID.
    pub async fn list_page(
        &self,
        scope: &NetworkScope,
        after: Option<&str>,
        limit: u64,
    ) -> Result<(Vec<AgentView>, Option<String>), InventoryError> {
        let mut query = agent::Entity::find()
            .filter(scope.agents_condition(agent::Column::Id))
            .order_by_asc(agent::Column::Name)
            .order_by_asc(agent::Column::Id)
            .limit(limit + 1);
        if let Some(after) = after {
            let anchor = self.find(scope, after).await?;
            query = query.filter(
                Condition::any()
                    .add(agent::Column::Name.gt(anchor.name.as_str()))
                    .add(
                        Condition::all()
                            .add(agent::Column::Name.eq(anchor.name.as_str()))
                            .add(agent::Column::Id.gt(anchor.id.as_str())),
                    ),
            );
        }
        let mut agents = query.all(&self.db).await?;
        let next = crate::split_page(&mut agents, limit, |a| a.id.clone());
        let now = crate::database_now(&self.db).await;
        Ok((self.views_of(scope, &agents, now).await?, next))
    }

    /// One page of published services (sidecars) by service name, then row:
    /// keyset paging on the `(kind, name, id)` index, so a page costs the same
    /// whatever the number of Agents. Each comes with its Agent, whose status
    /// is judged on all its components. The cursor is the last sidecar's row ID.
    pub async fn sidecars_page(
        &self,
        scope: &NetworkScope,
        after: Option<&str>,
        limit: u64,
    ) -> Result<(Vec<PublishedService>, Option<String>), InventoryError> {
        let in_scope = scope.condition(component::Column::NetworkId);
        let mut query = component::Entity::find()
            .filter(component::Column::Kind.eq("sidecar"))
            .filter(in_scope.clone())
            .order_by_asc(component::Column::Name)
            .order_by_asc(component::Column::Id)
            .limit(limit + 1);
        if let Some(after) = after {
            let anchor = after
                .parse::<i64>()
                .ok()
                .map(|id| component::Entity::find_by_id(id).filter(in_scope));
            let anchor = match anchor {
                Some(q) => q.one(&self.db).await?,
                None => None,
            }
            .ok_or(InventoryError::NotFound)?;
            query = query.filter(
                Condition::any()
                    .add(component::Column::Name.gt(anchor.name.as_str()))
                    .add(
                        Condition::all()
                            .add(component::Column::Name.eq(anchor.name.as_str()))
                            .add(component::Column::Id.gt(anchor.id)),
                    ),
            );
        }
        let mut sidecars = query.all(&self.db).await?;
        let next = crate::split_page(&mut sidecars, limit, |c| c.id.to_string());
        let agent_ids: Vec<&str> = sidecars.iter().map(|c| c.agent_id.as_str()).collect();
        let agents = agent::Entity::find()
            .filter(agent::Column::Id.is_in(agent_ids))
            .all(&self.db)
            .await?;
        let now = crate::database_now(&self.db).await;
        let views: HashMap<String, AgentView> = self
            .views_of(scope, &agents, now)
            .await?
            .into_iter()
            .map(|v| (v.id.to_string(), v))
            .collect();
        let keys: Vec<(String, String)> = sidecars
            .iter()
            .map(|row| (row.agent_id.clone(), row.component_id.clone()))
            .collect();
        let mut backups = crate::backups::states_of(&self.db, &keys).await?;
        let mut backup_jobs = crate::backups::latest_jobs_of(&self.db, &keys, now).await?;
        let services = sidecars
            .iter()
            .filter_map(|row| {
                let agent = views.get(&row.agent_id)?;
                let sidecar = agent.components.iter().find(|c| c.id == row.component_id)?;
                let mut service = PublishedService::of(agent, sidecar);
                let key = (row.agent_id.clone(), row.component_id.clone());
                service.backup = backups.remove(&key);
                service.backup_job = backup_jobs.remove(&key);
                Some(service)
            })
            .collect();
        Ok((services, next))
    }

    /// The Agents a job can be queued for (not revoked, moved or waiting for
    /// approval) whose name
    /// contains `search`, by name, at most `limit`, and whether more match:
    /// what the forms offer. With `deployable`, only those online with Docker
    /// ([`AgentChoice::can_deploy_now`]), chosen in the database so that a
    /// large offline fleet does not crowd them out of the list. Components
    /// are not read: a component in error does not stop a deployment.
    pub async fn choices(
        &self,
        scope: &NetworkScope,
        search: Option<&str>,
        deployable: bool,
        limit: u64,
    ) -> Result<(Vec<AgentChoice>, bool), InventoryError> {
        let now = crate::database_now(&self.db).await;
        let mut query = agent::Entity::find()
            .filter(agent::Column::Retired.eq(Retirement::Active))
            .filter(agent::Column::Pending.eq(false))
            .filter(scope.agents_condition(agent::Column::Id));
        if let Some(search) = search.filter(|s| !s.trim().is_empty()) {
            query = query.filter(crate::name_contains(
                sea_orm::ConnectionTrait::get_database_backend(&self.db),
                agent::Column::Name,
                search,
            ));
        }
        if deployable {
            // agent_status's "online", as SQL.
            query = query
                .filter(agent::Column::Disabled.eq(false))
                .filter(agent::Column::DockerAvailable.eq(true))
                .filter(agent::Column::LastHeartbeatAt.gte(now - self.offline_after));
        }
        let agents = query
            .order_by_asc(agent::Column::Name)
            .order_by_asc(agent::Column::Id)
            .limit(limit + 1)
            .all(&self.db)
            .await?;
        let more = agents.len() as u64 > limit;
        let choices = agents
            .iter()
            .take(limit as usize)
            .map(|a| AgentChoice::from(&view(a, &[], None, now, self.offline_after)))
            .filter(|a| !deployable || a.can_deploy_now())
            .collect();
        Ok((choices, more))
    }

    /// The Agents an operator should look at, most urgent first (see
    /// `AgentView::attention_rank`), at most `limit`, and how many there are
    /// in all (counted up to `ATTENTION_SCAN`). Healthy Agents are skipped in
    /// the database, so a large healthy fleet costs nothing here.
    pub async fn needing_attention(
        &self,
        scope: &NetworkScope,
        limit: usize,
    ) -> Result<(Vec<AgentView>, usize), InventoryError> {
        let now = crate::database_now(&self.db).await;
        let troubled_components = Query::select()
            .column(component::Column::AgentId)
            .from(component::Entity)
            .cond_where(
                Condition::any()
                    .add(component::Column::LastError.ne(""))
                    .add(
                        Condition::all()
                            .add(component::Column::Desired.eq(true))
                            .add(component::Column::DeployError.ne("")),
                    )
                    .add(
                        Condition::all()
                            .add(component::Column::Desired.eq(true))
                            .add(component::Column::Status.eq(ComponentStatus::NotReported)),
                    )
                    .add(
                        component::Column::Status
                            .is_not_in([ComponentStatus::Running, ComponentStatus::NotReported]),
                    )
                    .add(component::Column::Warnings.ne("[]")),
            )
            .to_owned();
        let agents = agent::Entity::find()
            .filter(agent::Column::Retired.eq(Retirement::Active))
            .filter(scope.agents_condition(agent::Column::Id))
            .filter(
                Condition::any()
                    .add(agent::Column::Disabled.eq(true))
                    .add(agent::Column::Pending.eq(true))
                    .add(agent::Column::LastHeartbeatAt.is_null())
                    .add(agent::Column::LastHeartbeatAt.lte(now - self.offline_after))
                    .add(agent::Column::Id.in_subquery(troubled_components)),
            )
            .order_by_asc(agent::Column::Name)
            .order_by_asc(agent::Column::Id)
            .limit(ATTENTION_SCAN)
            .all(&self.db)
            .await?;
        let mut views: Vec<(u8, AgentView)> = self
            .views_of(scope, &agents, now)
            .await?
            .into_iter()
            .filter_map(|v| v.attention_rank().map(|rank| (rank, v)))
            .collect();
        // Stable: equal ranks keep the order by name.
        views.sort_by_key(|(rank, _)| *rank);
        let total = views.len();
        Ok((
            views.into_iter().take(limit).map(|(_, v)| v).collect(),
            total,
        ))
    }

    /// Agent `id` with the components `scope` sees; not found when it runs
    /// none of them.
    pub async fn get(
        &self,
        scope: &NetworkScope,
        id: &AgentId,
    ) -> Result<AgentView, InventoryError> {
        self.view_of(scope, id.as_str()).await
    }

    async fn view_of(&self, scope: &NetworkScope, id: &str) -> Result<AgentView, InventoryError> {
        let agent = self.find(scope, id).await?;
        let components = component::Entity::find()
            .filter(component::Column::AgentId.eq(agent.id.as_str()))
            .filter(scope.condition(component::Column::NetworkId))
            .order_by_asc(component::Column::ComponentId)
            .all(&self.db)
            .await?;
        let now = crate::database_now(&self.db).await;
        let trust = self.trust_of(std::slice::from_ref(&agent)).await?;
        Ok(view(
            &agent,
            &components,
            trust.get(&agent.id),
            now,
            self.offline_after,
        ))
    }

    /// A disabled Agent gets no jobs and its heartbeats do not count as
    /// connected; enabling it re-sends its whole desired state.
    pub async fn set_disabled(
        &self,
        by: &Granted<ManageAgents>,
        id: &AgentId,
        disabled: bool,
    ) -> Result<AgentView, InventoryError> {
        let id = id.as_str();
        let agent = self.find(by.scope(), id).await?;
        if agent.retired.is_retired() {
            return Err(InventoryError::Retired(agent.retired));
        }
        let was_disabled = agent.disabled;
        let mut row: agent::ActiveModel = agent.into();
        row.disabled = Set(disabled);
        row.updated_at = Set(Utc::now());
        row.update(&self.db).await?;
        tracing::info!(agent_id = id, disabled, "agent state changed by admin");
        let action = if disabled {
            "agent.disabled"
        } else {
            "agent.enabled"
        };
        audit::record(&self.db, &by.actor(), action, id, "").await;
        // Only a real enable re-sends: redeploying restarts containers.
        if was_disabled && !disabled {
            if let Err(e) = self.reconciler.resend(id).await {
                tracing::error!(error = %e, agent_id = id, "re-sending the desired state failed");
            }
        }
        self.view_of(by.scope(), id).await
    }

    /// Revokes an Agent: its key stops working at once and its queued jobs
    /// are cancelled. The record stays, so the host is told why it is refused;
    /// the key is also kept as revoked, so deleting the record does not let
    /// the host back in (see `revoked_keys`).
    pub async fn revoke(
        &self,
        by: &Granted<ManageAgents>,
        id: &AgentId,
    ) -> Result<AgentView, InventoryError> {
        let id = id.as_str();
        let agent = self.find(by.scope(), id).await?;
        if agent.retired.is_retired() {
            return Err(InventoryError::Retired(agent.retired));
        }
        let txn = crate::begin_write(&self.db).await?;
        self.retire(&txn, id, Retirement::Revoked).await?;
        crate::agents::revoked_keys::record(&txn, &agent, "revoked", Utc::now()).await?;
        InstallTokens::revoke_move_tokens(&txn, id).await?;
        let cancelled =
            JobQueue::cancel_all_pending(&txn, id, "cancelled: the Agent was revoked").await?;
        txn.commit().await?;
        tracing::info!(agent_id = id, cancelled, "agent revoked by admin");
        let detail = format!("{cancelled} pending jobs cancelled");
        audit::record(&self.db, &by.actor(), "agent.revoked", id, &detail).await;
        self.view_of(by.scope(), id).await
    }

    /// Deletes an Agent record and its components; pending jobs are
    /// cancelled, finished ones stay as history. The key becomes unknown, so
    /// the host could enroll again as a new Agent with a valid token, unless
    /// the key was revoked (then only the admin's "allow again" lets it).
    pub async fn delete(
        &self,
        by: &Granted<ManageAgents>,
        id: &AgentId,
    ) -> Result<(), InventoryError> {
        let id = id.as_str();
        self.find(by.scope(), id).await?;
        let txn = crate::begin_write(&self.db).await?;
        let cancelled =
            JobQueue::cancel_all_pending(&txn, id, "cancelled: the Agent was deleted").await?;
        InstallTokens::revoke_move_tokens(&txn, id).await?;
        component::Entity::delete_many()
            .filter(component::Column::AgentId.eq(id))
            .exec(&txn)
            .await?;
        agent::Entity::delete_by_id(id).exec(&txn).await?;
        txn.commit().await?;
        tracing::info!(agent_id = id, cancelled, "agent deleted by admin");
        let detail = format!("{cancelled} pending jobs cancelled");
        audit::record(&self.db, &by.actor(), "agent.deleted", id, &detail).await;
        Ok(())
    }

    /// Starts moving an Agent to another host: the current key stops working,
    /// pending jobs are cancelled, and a one-time install token (24 h) is
    /// issued for the record. The host that enrolls with it takes over the
    /// desired components, which are then deployed there. Asking again while
    /// no host has taken over issues a fresh token.
    pub async fn move_to_new_host(
        &self,
        by: &Granted<ManageAgents>,
        id: &AgentId,
    ) -> Result<CreatedInstallToken, InventoryError> {
        let id = id.as_str();
        let agent = self.find(by.scope(), id).await?;
        match agent.retired {
            Retirement::Active => {}
            Retirement::Moved if agent.moved_to.is_none() => {}
            other => return Err(InventoryError::Retired(other)),
        }
        let txn = crate::begin_write(&self.db).await?;
        self.retire(&txn, id, Retirement::Moved).await?;
        // Only the newest move token works: asking again kills a leaked snippet.
        InstallTokens::revoke_move_tokens(&txn, id).await?;
        let cancelled = JobQueue::cancel_all_pending(
            &txn,
            id,
            "cancelled: the Agent is moving to a new host; its desired components are deployed there",
        )
        .await?;
        let issued = Issued {
            name: &agent.name,
            tags_json: &agent.tags,
            lifetime: Duration::hours(INSTALL_TOKEN_DEFAULT_HOURS.into()),
            replaces_agent: Some(id),
            // The admin moving a record approves the host that takes it over.
            needs_approval: false,
        };
        let created = self.install_tokens.issue(&txn, issued, &by.actor()).await?;
        txn.commit().await?;
        tracing::info!(agent_id = id, cancelled, "agent move started by admin");
        let detail = format!(
            "install token {}; {cancelled} pending jobs cancelled",
            created.view.id
        );
        audit::record(&self.db, &by.actor(), "agent.moving", id, &detail).await;
        Ok(created)
    }

    async fn retire(
        &self,
        db: &impl sea_orm::ConnectionTrait,
        id: &str,
        how: Retirement,
    ) -> Result<(), StoreError> {
        agent::Entity::update_many()
            .col_expr(agent::Column::Retired, how.into())
            .col_expr(agent::Column::UpdatedAt, Utc::now().into())
            .filter(agent::Column::Id.eq(id))
            .exec(db)
            .await?;
        Ok(())
    }
}
