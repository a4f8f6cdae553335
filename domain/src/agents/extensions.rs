//! What each Agent announced it speaks beyond version 1 (`X-Knot-Extensions`
//! on its requests; protocol::extensions). Control sends a job kind or a
//! field of an extension only to an Agent that announced it, so the first
//! Agent keeps getting exactly version 1.
//!
//! An Agent announces with every request; its heartbeats keep the record
//! current. When an Agent stops announcing an extension (an older Agent
//! took its place on the same identity), its pending jobs that need it are
//! failed with the reason rather than left waiting for ever.

use crate::entities::{agent, job};
use crate::{database_now, StoreError};
use protocol::extensions::{Extension, Extensions};
use protocol::jobs::JobPayload;
use protocol::JobStatus;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter};

#[derive(Clone)]
pub struct AgentExtensions {
    db: DatabaseConnection,
}

impl AgentExtensions {
    pub fn new(db: DatabaseConnection) -> Self {
        Self { db }
    }

    /// Records that `agent` announced `announced` (no write when unchanged).
    pub async fn record(
        &self,
        agent: &agent::Model,
        announced: Extensions,
    ) -> Result<(), StoreError> {
        let stored = announced.header_value();
        if agent.extensions == stored {
            return Ok(());
        }
        agent::Entity::update_many()
            .col_expr(agent::Column::Extensions, stored.clone().into())
            .filter(agent::Column::Id.eq(agent.id.as_str()))
            .exec(&self.db)
            .await?;
        let lost = agent.extensions().without(announced);
        tracing::info!(agent_id = %agent.id, extensions = %announced, "the Agent announced what it speaks");
        let kinds: Vec<&str> = JobPayload::KINDS
            .into_iter()
            .filter(|k| Extension::of_job_kind(k).is_some_and(|e| lost.has(e)))
            .collect();
        if kinds.is_empty() {
            return Ok(());
        }
        let needed: Extensions = kinds
            .iter()
            .filter_map(|k| Extension::of_job_kind(k))
            .collect();
        let names: Vec<&str> = needed.iter().map(Extension::name).collect();
        let why = format!(
            "not sent: the Agent no longer announces {} (an older Agent took its place?). Update it, then queue the job again.",
            names.join(", ")
        );
        let now = database_now(&self.db).await;
        let failed = job::Entity::update_many()
            .col_expr(job::Column::Status, JobStatus::Failed.into())
            .col_expr(job::Column::Result, why.into())
            .col_expr(job::Column::FinishedAt, Some(now).into())
            .filter(job::Column::AgentId.eq(agent.id.as_str()))
            .filter(job::Column::Status.eq(JobStatus::Pending))
            .filter(job::Column::Kind.is_in(kinds))
            .exec(&self.db)
            .await?;
        if failed.rows_affected > 0 {
            tracing::warn!(agent_id = %agent.id, failed = failed.rows_affected, "pending jobs failed: the Agent no longer speaks their extension");
        }
        Ok(())
    }
}
