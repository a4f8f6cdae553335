//! Revoked keys: what keeps a revoked host out once its Agent record is
//! deleted (enrollment refuses them with `agent_revoked`), and a rejected
//! newcomer's key (`agents::approval`) as well, and the admin's explicit
//! "allow again", the only way back in.

use crate::access::principal::Granted;
use crate::access::roles::ManageAgents;
use crate::access::scope::NetworkScope;
use crate::entities::{agent, revoked_key};
use crate::{audit, split_page, StoreError};
use chrono::{DateTime, SecondsFormat, Utc};
use protocol::api::RevokedKeyView;
use protocol::{AgentId, Id};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};
use std::collections::HashSet;

#[derive(Debug, thiserror::Error)]
pub enum RevokedKeyError {
    #[error("no such revoked key")]
    NotFound,
    /// The revoked Agent record still exists and still refuses the key.
    #[error("the revoked Agent is still on record")]
    RecordExists,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Records `agent`'s key as refused, in the caller's transaction: `reason`
/// is `revoked` (the revoke) or `rejected` (a pending Agent turned down).
pub async fn record(
    db: &impl ConnectionTrait,
    agent: &agent::Model,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let row = revoked_key::ActiveModel {
        agent_id: Set(agent.id.clone()),
        public_key: Set(agent.public_key.clone()),
        name: Set(agent.name.clone()),
        revoked_at: Set(now),
        reason: Set(reason.to_string()),
    };
    revoked_key::Entity::insert(row)
        .on_conflict(
            OnConflict::column(revoked_key::Column::AgentId)
                .update_columns([
                    revoked_key::Column::PublicKey,
                    revoked_key::Column::Name,
                    revoked_key::Column::RevokedAt,
                    revoked_key::Column::Reason,
                ])
                .to_owned(),
        )
        .exec(db)
        .await?;
    Ok(())
}

/// Whether enrollment must refuse the key that derives `agent_id`.
pub async fn is_revoked(db: &impl ConnectionTrait, agent_id: &str) -> Result<bool, StoreError> {
    Ok(revoked_key::Entity::find_by_id(agent_id).count(db).await? > 0)
}

#[derive(Clone)]
pub struct RevokedKeys {
    db: DatabaseConnection,
}

impl RevokedKeys {
    pub fn new(db: DatabaseConnection) -> Self {
        Self { db }
    }

    /// Newest first; `after` is the last Agent ID of the previous page.
    /// Keys belong to no network: someone who sees only some has none.
    pub async fn list(
        &self,
        scope: &NetworkScope,
        after: Option<&str>,
        limit: u64,
    ) -> Result<(Vec<RevokedKeyView>, Option<String>), RevokedKeyError> {
        if !scope.is_all() {
            return Ok((Vec::new(), None));
        }
        let limit = limit.clamp(1, 500);
        let mut query = revoked_key::Entity::find()
            .order_by_desc(revoked_key::Column::RevokedAt)
            .order_by_desc(revoked_key::Column::AgentId)
            .limit(limit + 1);
        if let Some(after) = after {
            let anchor = revoked_key::Entity::find_by_id(after)
                .one(&self.db)
                .await?
                .ok_or(RevokedKeyError::NotFound)?;
            query = query.filter(crate::older_than(
                revoked_key::Column::RevokedAt,
                revoked_key::Column::AgentId,
                anchor.revoked_at,
                anchor.agent_id,
            ));
        }
        let mut rows = query.all(&self.db).await?;
        let next = split_page(&mut rows, limit, |r| r.agent_id.clone());
        let ids: Vec<&str> = rows.iter().map(|r| r.agent_id.as_str()).collect();
        let on_record: HashSet<String> = agent::Entity::find()
            .select_only()
            .column(agent::Column::Id)
            .filter(agent::Column::Id.is_in(ids))
            .into_tuple::<String>()
            .all(&self.db)
            .await?
            .into_iter()
            .collect();
        let views = rows
            .into_iter()
            .map(|r| RevokedKeyView {
                record_exists: on_record.contains(&r.agent_id),
                revoked_at: r.revoked_at.to_rfc3339_opts(SecondsFormat::Secs, true),
                agent_id: AgentId::from_stored(r.agent_id),
                public_key: r.public_key,
                name: r.name,
                rejected: r.reason == "rejected",
            })
            .collect();
        Ok((views, next))
    }

    /// Lets the key enroll again, as a new Agent. While the revoked record
    /// exists it keeps refusing the key, so it must be deleted first: one
    /// rule, whichever is looked at.
    pub async fn allow(
        &self,
        by: &Granted<ManageAgents>,
        agent_id: &AgentId,
    ) -> Result<(), RevokedKeyError> {
        let agent_id = agent_id.as_str();
        if agent::Entity::find_by_id(agent_id).count(&self.db).await? > 0 {
            return Err(RevokedKeyError::RecordExists);
        }
        let done = revoked_key::Entity::delete_by_id(agent_id)
            .exec(&self.db)
            .await?;
        if done.rows_affected == 0 {
            return Err(RevokedKeyError::NotFound);
        }
        tracing::info!(agent_id, "revoked key allowed again by admin");
        audit::record(
            &self.db,
            &by.actor(),
            "agent.key_allowed",
            agent_id,
            "may enroll again as a new Agent",
        )
        .await;
        Ok(())
    }
}
