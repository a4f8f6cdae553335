//! Agents after enrollment: verification of signed requests (with replay
//! refusal shared by every replica through the database) and heartbeats.

use super::secrets::token_hash;
use super::{is_unique_violation, StoreError};
use crate::entities::{agent, component, seen_signature};
use chrono::{Duration, Utc};
use protocol::agent::{ComponentReport, Heartbeat};
use protocol::signing::{check_timestamp, AgentPublicKey, TIMESTAMP_WINDOW_SECS};
use protocol::AgentId;
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, Set,
    TransactionTrait,
};

/// Storage bounds for what Agents send: a hostile heartbeat cannot grow the database.
pub mod limits {
    pub const NAME: usize = 80;
    pub const SHORT_TEXT: usize = 128;
    pub const LONG_TEXT: usize = 1024;
    pub const TAGS: usize = 32;
    pub const TAG: usize = 64;
    pub const COMPONENTS: usize = 64;
    pub const WARNINGS: usize = 16;
    pub const WARNING: usize = 256;
}

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

impl From<sea_orm::DbErr> for AgentAuthError {
    fn from(e: sea_orm::DbErr) -> Self {
        AgentAuthError::Store(StoreError(e))
    }
}

/// The signature headers of one request.
pub struct SignedHeaders<'a> {
    pub agent: &'a str,
    pub timestamp: &'a str,
    pub signature: &'a str,
}

/// Keeps at most `max` characters, cut on a character boundary, without
/// control characters (NUL included) and surrounding whitespace.
pub fn bounded(text: &str, max: usize) -> String {
    let kept: String = text
        .trim()
        .chars()
        .filter(|c| !c.is_control())
        .take(max)
        .collect();
    kept.trim_end().to_string()
}

/// Like [`bounded`] but keeps line breaks and tabs (command output).
pub fn bounded_multiline(text: &str, max_chars: usize) -> String {
    text.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .take(max_chars)
        .collect()
}

pub(crate) fn bounded_list(items: &[String], count: usize, each: usize) -> Vec<String> {
    items
        .iter()
        .map(|t| bounded(t, each))
        .filter(|t| !t.is_empty())
        .take(count)
        .collect()
}

#[derive(Clone)]
pub struct AgentService {
    db: DatabaseConnection,
}

impl AgentService {
    pub fn new(db: DatabaseConnection) -> Self {
        Self { db }
    }

    /// Verifies a signed request and records it, so the same request cannot be
    /// accepted twice by any replica.
    pub async fn authenticate(
        &self,
        method: &str,
        path: &str,
        headers: SignedHeaders<'_>,
        body: &[u8],
    ) -> Result<agent::Model, AgentAuthError> {
        let now = Utc::now();
        let id = AgentId::parse(headers.agent)
            .map_err(|_| AgentAuthError::Unauthorized("malformed_agent_id"))?;
        check_timestamp(headers.timestamp, now.timestamp())
            .map_err(|_| AgentAuthError::Unauthorized("stale_timestamp"))?;
        let row = agent::Entity::find_by_id(id.as_str())
            .one(&self.db)
            .await?
            .ok_or(AgentAuthError::Unauthorized("unknown_agent"))?;
        let key = AgentPublicKey::parse(&row.public_key)
            .map_err(|_| AgentAuthError::Unauthorized("no_pinned_key"))?;
        key.verify(method, path, headers.timestamp, body, headers.signature)
            .map_err(|_| AgentAuthError::Unauthorized("bad_signature"))?;
        match row.retired.as_str() {
            "" if row.disabled => return Err(AgentAuthError::Disabled),
            "" => {}
            "moved" => return Err(AgentAuthError::Moved),
            _ => return Err(AgentAuthError::Revoked),
        }
        let seen = seen_signature::ActiveModel {
            signature_hash: Set(token_hash(headers.signature.trim())),
            agent_id: Set(row.id.clone()),
            seen_at: Set(now),
        };
        match seen.insert(&self.db).await {
            Ok(_) => Ok(row),
            Err(e) if is_unique_violation(&e) => Err(AgentAuthError::Replayed),
            Err(e) => Err(e.into()),
        }
    }

    /// Stores what a heartbeat reports, bounded, and marks the Agent as seen now.
    pub async fn record_heartbeat(
        &self,
        agent: &agent::Model,
        heartbeat: &Heartbeat,
    ) -> Result<(), StoreError> {
        let now = Utc::now();
        let txn = self.db.begin().await?;
        let mut row: agent::ActiveModel = agent.clone().into();
        let name = bounded(&heartbeat.name, limits::NAME);
        if !name.is_empty() {
            row.name = Set(name);
        }
        row.hostname = Set(bounded(&heartbeat.hostname, limits::NAME));
        row.version = Set(bounded(&heartbeat.version, limits::SHORT_TEXT));
        row.docker_available = Set(heartbeat.docker_available);
        row.docker_version = Set(bounded(&heartbeat.docker_version, limits::SHORT_TEXT));
        row.tags =
            Set(
                serde_json::to_string(&bounded_list(&heartbeat.tags, limits::TAGS, limits::TAG))
                    .expect("strings serialise"),
            );
        row.last_heartbeat_at = Set(Some(now));
        row.updated_at = Set(now);
        row.update(&txn).await?;

        let reported: Vec<&ComponentReport> = heartbeat
            .components
            .iter()
            .filter(|c| protocol::jobs::component_id(&c.id).is_ok())
            .take(limits::COMPONENTS)
            .collect();
        let reported_ids: Vec<String> = reported
            .iter()
            .map(|c| c.id.trim().to_ascii_lowercase())
            .collect();
        // What the Agent no longer reports and nobody asked for is gone; desired
        // components stay (reconciliation redeploys them) but lose their status.
        component::Entity::delete_many()
            .filter(component::Column::AgentId.eq(agent.id.as_str()))
            .filter(component::Column::Desired.eq(false))
            .filter(component::Column::ComponentId.is_not_in(reported_ids.clone()))
            .exec(&txn)
            .await?;
        component::Entity::update_many()
            .col_expr(
                component::Column::Status,
                sea_orm::sea_query::Expr::value(""),
            )
            .filter(component::Column::AgentId.eq(agent.id.as_str()))
            .filter(component::Column::ComponentId.is_not_in(reported_ids.clone()))
            .exec(&txn)
            .await?;
        for (report, component_id) in reported.iter().zip(reported_ids) {
            let kind = if component_id.starts_with("beacon-") {
                "beacon"
            } else {
                "sidecar"
            };
            let warnings = bounded_list(&report.warnings, limits::WARNINGS, limits::WARNING);
            let network_id = report
                .labels
                .get("io.knotroute.network-id")
                .and_then(|n| protocol::NetworkId::parse(n).ok())
                .map(|n| n.to_string());
            let row = component::ActiveModel {
                agent_id: Set(agent.id.clone()),
                component_id: Set(component_id),
                kind: Set(kind.to_string()),
                name: Set(bounded(&report.name, limits::NAME)),
                network_id: Set(network_id),
                desired: Set(false),
                status: Set(bounded(&report.status, 32)),
                service: Set(bounded(&report.service, limits::NAME * 4)),
                container: Set(bounded(&report.container, limits::NAME * 4)),
                image: Set(bounded(&report.image, limits::NAME * 4)),
                version: Set(bounded(&report.version, 64)),
                restart_count: Set(report.restart_count.unwrap_or(0).min(i32::MAX as u32) as i32),
                last_error: Set(bounded(
                    report.last_error.as_deref().unwrap_or(""),
                    limits::LONG_TEXT,
                )),
                warnings: Set(serde_json::to_string(&warnings).expect("strings serialise")),
                updated_at: Set(now),
                ..Default::default()
            };
            // `desired` is the admin's, never the heartbeat's: not in the update list.
            component::Entity::insert(row)
                .on_conflict(
                    OnConflict::columns([
                        component::Column::AgentId,
                        component::Column::ComponentId,
                    ])
                    .update_columns([
                        component::Column::Kind,
                        component::Column::Name,
                        component::Column::NetworkId,
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
                .exec(&txn)
                .await?;
        }
        txn.commit().await?;
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::bounded;

    #[test]
    fn stored_text_is_cut_on_a_character_boundary_without_control_characters() {
        assert_eq!(bounded("  héllo\u{0}wörld\n ", 8), "héllowör");
        assert_eq!(bounded(&"я".repeat(100), 80).chars().count(), 80);
        assert_eq!(bounded("\u{7}", 10), "");
    }
}
