//! Agents after enrollment: verification of signed requests (with replay
//! refusal shared by every replica through the database) and heartbeats.

use crate::access::secrets::token_hash;
use crate::entities::agent::Retirement;
use crate::entities::{agent, component, seen_signature};
use crate::text::{bounded, bounded_list, limits};
use crate::{is_unique_violation, StoreError};
use chrono::{Duration, Utc};
use protocol::agent::{ComponentReport, Heartbeat};
use protocol::signing::{
    check_timestamp, parse_agent_header, AgentPublicKey, WireSignature, TIMESTAMP_WINDOW_SECS,
};
use protocol::AgentId;
use protocol::ComponentStatus;
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, DbBackend, EntityTrait,
    QueryFilter, Set, Statement,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Why a signed request was refused. The first three get the same answer on
/// the wire so nobody can probe which Agent IDs exist; the log keeps the reason.
#[derive(Debug, thiserror::Error)]
pub enum AgentAuthError {
    #[error("signed request refused: {0}")]
    Unauthorized(&'static str),
    #[error("request already seen")]
    Replayed,
    #[error("agent is disabled")]
    Disabled,
    #[error("agent is revoked")]
    Revoked,
    #[error("agent moved to another host")]
    Moved,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The signature headers of one request.
pub struct SignedHeaders<'a> {
    pub agent: &'a str,
    pub timestamp: &'a str,
    pub signature: &'a str,
}

/// What a signed request is for: a heartbeat also marks the Agent as seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Heartbeat,
    Jobs,
}

/// Pinned keys kept in memory per replica; cleared when this many are held.
const KEY_CACHE_MAX: usize = 200_000;

#[derive(Clone)]
pub struct AgentRequests {
    db: DatabaseConnection,
    keys: Arc<Mutex<HashMap<String, AgentPublicKey>>>,
}

impl AgentRequests {
    pub fn new(db: DatabaseConnection) -> Self {
        Self {
            db,
            keys: Arc::default(),
        }
    }

    /// Verifies a signed request and records it, so the same request cannot be
    /// accepted twice by any replica. A heartbeat also marks the Agent as seen.
    pub async fn authenticate(
        &self,
        method: &str,
        path: &str,
        headers: SignedHeaders<'_>,
        body: &[u8],
        purpose: Purpose,
    ) -> Result<agent::Model, AgentAuthError> {
        let now = Utc::now();
        // Each header has one accepted spelling, so what is verified and what
        // is recorded against replays are the same value.
        let id = parse_agent_header(headers.agent)
            .map_err(|_| AgentAuthError::Unauthorized("malformed_agent_id"))?;
        check_timestamp(headers.timestamp, now.timestamp())
            .map_err(|_| AgentAuthError::Unauthorized("stale_timestamp"))?;
        let signature = WireSignature::parse(headers.signature)
            .map_err(|_| AgentAuthError::Unauthorized("malformed_signature"))?;
        let key = self.pinned_key(&id).await?;
        key.verify_parsed(method, path, headers.timestamp, body, &signature)
            .map_err(|_| AgentAuthError::Unauthorized("bad_signature"))?;
        let signature_hash = replay_key(&signature);
        if purpose == Purpose::Heartbeat && self.db.get_database_backend() == DbBackend::Postgres {
            // One round trip in the usual case; the slow path below says why not.
            if let Some(row) = self.claim_and_mark_seen(&id, &signature_hash, now).await? {
                return Ok(row);
            }
            return Err(match self.usable_agent(&id).await {
                Ok(_) => AgentAuthError::Replayed,
                Err(refusal) => refusal,
            });
        }
        let mut row = self.usable_agent(&id).await?;
        let seen = seen_signature::ActiveModel {
            signature_hash: Set(signature_hash),
            agent_id: Set(row.id.clone()),
            seen_at: Set(now),
        };
        match seen.insert(&self.db).await {
            Ok(_) => {}
            Err(e) if is_unique_violation(&e) => return Err(AgentAuthError::Replayed),
            Err(e) => return Err(e.into()),
        }
        if purpose == Purpose::Heartbeat {
            agent::Entity::update_many()
                .col_expr(agent::Column::LastHeartbeatAt, Some(now).into())
                .filter(agent::Column::Id.eq(id.as_str()))
                .exec(&self.db)
                .await?;
            row.last_heartbeat_at = Some(now);
        }
        Ok(row)
    }

    /// The Agent's pinned key. An Agent ID is derived from its key, so a key
    /// once read never changes and is kept in memory.
    async fn pinned_key(&self, id: &AgentId) -> Result<AgentPublicKey, AgentAuthError> {
        if let Some(key) = self.keys.lock().expect("key cache").get(id.as_str()) {
            return Ok(key.clone());
        }
        let row = agent::Entity::find_by_id(id.as_str())
            .one(&self.db)
            .await?
            .ok_or(AgentAuthError::Unauthorized("unknown_agent"))?;
        let key = AgentPublicKey::parse(&row.public_key)
            .map_err(|_| AgentAuthError::Unauthorized("no_pinned_key"))?;
        let mut keys = self.keys.lock().expect("key cache");
        if keys.len() >= KEY_CACHE_MAX {
            keys.clear();
        }
        keys.insert(id.to_string(), key.clone());
        Ok(key)
    }

    /// The Agent's row, or why its (valid) signature is refused.
    async fn usable_agent(&self, id: &AgentId) -> Result<agent::Model, AgentAuthError> {
        let row = agent::Entity::find_by_id(id.as_str())
            .one(&self.db)
            .await?
            .ok_or(AgentAuthError::Unauthorized("unknown_agent"))?;
        match row.retired {
            Retirement::Active if row.disabled => Err(AgentAuthError::Disabled),
            Retirement::Active => Ok(row),
            Retirement::Moved => Err(AgentAuthError::Moved),
            Retirement::Revoked => Err(AgentAuthError::Revoked),
        }
    }

    /// PostgreSQL: records the signature and, when it is new and the Agent is
    /// usable, marks the Agent as seen and returns its row, in one statement.
    async fn claim_and_mark_seen(
        &self,
        id: &AgentId,
        signature_hash: &str,
        now: chrono::DateTime<Utc>,
    ) -> Result<Option<agent::Model>, StoreError> {
        let stmt = Statement::from_sql_and_values(
            DbBackend::Postgres,
            "WITH seen AS (INSERT INTO seen_signatures (signature_hash, agent_id, seen_at) \
                           VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING agent_id) \
             UPDATE agents SET last_heartbeat_at = now() \
             WHERE id = (SELECT agent_id FROM seen) AND retired = '' AND NOT disabled \
             RETURNING *",
            [signature_hash.into(), id.as_str().into(), now.into()],
        );
        Ok(agent::Entity::find()
            .from_raw_sql(stmt)
            .one(&self.db)
            .await?)
    }

    /// Stores what a heartbeat reports, bounded, writing only what changed.
    /// A report identical to the last one (by hash) costs nothing more unless
    /// a desired component awaits reconciliation. Returns the Agent's
    /// components as they now stand, or `None` when nothing was re-read.
    pub async fn record_heartbeat(
        &self,
        agent: &agent::Model,
        heartbeat: &Heartbeat,
    ) -> Result<Option<Vec<component::Model>>, StoreError> {
        let now = Utc::now();
        let reported_agent = reported_agent_fields(agent, heartbeat);
        let reported: Vec<component::Model> = heartbeat
            .components
            .iter()
            .filter(|c| protocol::jobs::component_id(&c.id).is_ok())
            .take(limits::COMPONENTS)
            .map(|r| reported_component(&agent.id, r, now))
            .collect();
        let hash = report_hash(&reported_agent, &reported);
        if hash == agent.report_hash && !agent.reconcile_pending {
            return Ok(None);
        }
        // `authenticate` already marked the Agent as seen.
        let mut agent_update = agent::Entity::update_many()
            .filter(agent::Column::Id.eq(agent.id.as_str()))
            .col_expr(agent::Column::ReportHash, hash.into());
        if reported_agent != current_agent_fields(agent) {
            let AgentFields(name, hostname, version, docker_available, docker_version, tags) =
                reported_agent;
            agent_update = agent_update
                .col_expr(agent::Column::Name, name.into())
                .col_expr(agent::Column::Hostname, hostname.into())
                .col_expr(agent::Column::Version, version.into())
                .col_expr(agent::Column::DockerAvailable, docker_available.into())
                .col_expr(agent::Column::DockerVersion, docker_version.into())
                .col_expr(agent::Column::Tags, tags.into())
                .col_expr(agent::Column::UpdatedAt, now.into());
        }

        let stored = component::Entity::find()
            .filter(component::Column::AgentId.eq(agent.id.as_str()))
            .all(&self.db)
            .await?;
        let is_reported = |id: &str| reported.iter().any(|r| r.component_id == id);
        // What the Agent no longer reports and nobody asked for is gone; desired
        // components stay (reconciliation redeploys them) but lose their status.
        let gone: Vec<i64> = stored
            .iter()
            .filter(|s| !s.desired && !is_reported(&s.component_id))
            .map(|s| s.id)
            .collect();
        let blanked: Vec<i64> = stored
            .iter()
            .filter(|s| s.desired && s.status.is_reported() && !is_reported(&s.component_id))
            .map(|s| s.id)
            .collect();
        let changed: Vec<&component::Model> = reported
            .iter()
            .filter(|r| {
                !stored
                    .iter()
                    .any(|s| s.component_id == r.component_id && same_report(s, r))
            })
            .collect();
        let now_standing = apply_report(stored, &gone, &blanked, &changed);
        // Decided by the database after this report's writes, so a failed
        // deployment recorded meanwhile by another replica is not overwritten.
        agent_update = agent_update.col_expr(
            agent::Column::ReconcilePending,
            Expr::cust(crate::jobs::reconcile::reconcile_pending_sql()),
        );

        if gone.is_empty() && blanked.is_empty() && changed.is_empty() {
            agent_update.exec(&self.db).await?;
            return Ok(Some(now_standing));
        }
        let txn = crate::begin_write(&self.db).await?;
        if !gone.is_empty() {
            component::Entity::delete_many()
                .filter(component::Column::Id.is_in(gone))
                .exec(&txn)
                .await?;
        }
        if !blanked.is_empty() {
            component::Entity::update_many()
                .col_expr(component::Column::Status, "".into())
                .filter(component::Column::Id.is_in(blanked))
                .exec(&txn)
                .await?;
        }
        for row in &changed {
            upsert_reported(&txn, row).await?;
        }
        agent_update.exec(&txn).await?;
        txn.commit().await?;
        Ok(Some(now_standing))
    }

    /// Forgets accepted signatures older than the timestamp window (they fail that check anyway).
    pub async fn prune(&self) -> Result<(), StoreError> {
        let cutoff = Utc::now() - Duration::seconds(2 * TIMESTAMP_WINDOW_SECS);
        seen_signature::Entity::delete_many()
            .filter(seen_signature::Column::SeenAt.lt(cutoff))
            .exec(&self.db)
            .await?;
        Ok(())
    }
}

/// What the replay record is keyed on: the signature's 64 bytes (hashed, in
/// their one wire spelling, which also matches the records written before
/// other spellings were refused).
fn replay_key(signature: &WireSignature) -> String {
    token_hash(&signature.to_wire())
}

/// The Agent columns a heartbeat sets: name, hostname, version, Docker
/// availability and version, tags (JSON).
#[derive(PartialEq)]
pub struct AgentFields(
    pub String,
    pub String,
    pub String,
    pub bool,
    pub String,
    pub String,
);

fn current_agent_fields(a: &agent::Model) -> AgentFields {
    AgentFields(
        a.name.clone(),
        a.hostname.clone(),
        a.version.clone(),
        a.docker_available,
        a.docker_version.clone(),
        a.tags.clone(),
    )
}

/// The Agent columns a heartbeat carries, bounded as they are stored (the
/// name may come out empty). Imports of the first Control's state use it too.
pub fn heartbeat_fields(hb: &Heartbeat) -> AgentFields {
    AgentFields(
        bounded(&hb.name, limits::NAME),
        bounded(&hb.hostname, limits::NAME),
        bounded(&hb.version, limits::SHORT_TEXT),
        hb.docker_available,
        bounded(&hb.docker_version, limits::SHORT_TEXT),
        serde_json::to_string(&bounded_list(&hb.tags, limits::TAGS, limits::TAG))
            .expect("strings serialise"),
    )
}

/// What the heartbeat says about the Agent. A name and tags an admin gave
/// through an install token stay; otherwise the Agent's own are taken.
fn reported_agent_fields(a: &agent::Model, hb: &Heartbeat) -> AgentFields {
    let mut fields = heartbeat_fields(hb);
    if a.named_by_admin {
        fields.0 = a.name.clone();
        fields.5 = a.tags.clone();
    } else if fields.0.is_empty() {
        fields.0 = a.name.clone();
    }
    fields
}

/// A reported component as it is stored, bounded.
pub fn reported_component(
    agent_id: &str,
    report: &ComponentReport,
    now: chrono::DateTime<Utc>,
) -> component::Model {
    let component_id = report.id.trim().to_ascii_lowercase();
    let kind = if component_id.starts_with("beacon-") {
        "beacon"
    } else {
        "sidecar"
    };
    let warnings = bounded_list(&report.warnings, limits::WARNINGS, limits::WARNING);
    component::Model {
        kind: kind.to_string(),
        name: bounded(&report.name, limits::NAME),
        // The `io.knotroute.network-id` label is the Agent's word, and an
        // Agent enrolled with nothing but the shared token could claim any
        // network with it: a component belongs to the network Control
        // deployed it for (`reconcile::record_intent`), or to none.
        network_id: None,
        status: report.status,
        service: bounded(&report.service, limits::NAME * 4),
        container: bounded(&report.container, limits::NAME * 4),
        image: bounded(&report.image, limits::NAME * 4),
        version: bounded(&report.version, 64),
        restart_count: report.restart_count.unwrap_or(0).min(i32::MAX as u32) as i32,
        last_error: bounded(
            report.last_error.as_deref().unwrap_or(""),
            limits::LONG_TEXT,
        ),
        warnings: serde_json::to_string(&warnings).expect("strings serialise"),
        // Not desired, no spec, no network and no catalog entry: that is
        // what the admin deployed, never a heartbeat's.
        ..component::Model::empty(agent_id, &component_id, now)
    }
}

/// The components as they stand once a report is applied to the stored rows.
fn apply_report(
    mut stored: Vec<component::Model>,
    gone: &[i64],
    blanked: &[i64],
    changed: &[&component::Model],
) -> Vec<component::Model> {
    stored.retain(|s| !gone.contains(&s.id));
    for s in stored.iter_mut().filter(|s| blanked.contains(&s.id)) {
        s.status = ComponentStatus::NotReported;
    }
    for row in changed {
        match stored
            .iter_mut()
            .find(|s| s.component_id == row.component_id)
        {
            // Desired state and deployment backoff are not the heartbeat's.
            Some(s) => {
                *s = component::Model {
                    id: s.id,
                    desired: s.desired,
                    network_id: s.network_id.take(),
                    spec: std::mem::take(&mut s.spec),
                    deploy_failures: s.deploy_failures,
                    next_deploy_at: s.next_deploy_at,
                    deploy_error: std::mem::take(&mut s.deploy_error),
                    title: std::mem::take(&mut s.title),
                    description: std::mem::take(&mut s.description),
                    tags: std::mem::take(&mut s.tags),
                    category: std::mem::take(&mut s.category),
                    scheme: std::mem::take(&mut s.scheme),
                    ..(*row).clone()
                }
            }
            None => stored.push((*row).clone()),
        }
    }
    stored
}

/// A digest of everything a heartbeat stores, to recognise an unchanged report.
fn report_hash(agent: &AgentFields, components: &[component::Model]) -> String {
    let AgentFields(name, hostname, version, docker, docker_version, tags) = agent;
    let components: Vec<_> = components
        .iter()
        .map(|c| {
            (
                &c.component_id,
                &c.kind,
                &c.name,
                &c.status,
                &c.service,
                &c.container,
                &c.image,
                &c.version,
                c.restart_count,
                &c.last_error,
                &c.warnings,
            )
        })
        .collect();
    let text = serde_json::to_string(&(
        name,
        hostname,
        version,
        docker,
        docker_version,
        tags,
        components,
    ))
    .expect("strings serialise");
    token_hash(&text)
}

/// Whether the stored row already says what the Agent reports.
fn same_report(stored: &component::Model, reported: &component::Model) -> bool {
    stored.kind == reported.kind
        && stored.name == reported.name
        && stored.status == reported.status
        && stored.service == reported.service
        && stored.container == reported.container
        && stored.image == reported.image
        && stored.version == reported.version
        && stored.restart_count == reported.restart_count
        && stored.last_error == reported.last_error
        && stored.warnings == reported.warnings
}

/// Inserts or updates a reported component. `desired`, the network, the spec
/// and the deployment backoff are the admin's and reconciliation's, never
/// the heartbeat's.
async fn upsert_reported(
    db: &impl sea_orm::ConnectionTrait,
    row: &component::Model,
) -> Result<(), StoreError> {
    let mut active: component::ActiveModel = row.clone().into();
    active.id = sea_orm::ActiveValue::NotSet;
    component::Entity::insert(active)
        .on_conflict(
            OnConflict::columns([component::Column::AgentId, component::Column::ComponentId])
                .update_columns([
                    component::Column::Kind,
                    component::Column::Name,
                    component::Column::Status,
                    component::Column::Service,
                    component::Column::Container,
                    component::Column::Image,
                    component::Column::Version,
                    component::Column::RestartCount,
                    component::Column::LastError,
                    component::Column::Warnings,
                    component::Column::UpdatedAt,
                ])
                .to_owned(),
        )
        .exec(db)
        .await?;
    Ok(())
}
