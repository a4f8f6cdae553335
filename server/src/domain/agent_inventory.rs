//! The admin's view of Agents: listing them with their components and
//! status, and disabling or enabling one.

use super::agent_status::{agent_status, component_error};
use super::{audit, StoreError};
use crate::entities::{agent, component};
use chrono::{SecondsFormat, Utc};
use protocol::api::{AgentView, ComponentView};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, LoaderTrait, QueryFilter,
    QueryOrder, Set,
};

#[derive(Debug, thiserror::Error)]
pub enum InventoryError {
    #[error("no such agent")]
    NotFound,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for InventoryError {
    fn from(e: sea_orm::DbErr) -> Self {
        InventoryError::Store(StoreError(e))
    }
}

fn view(agent: &agent::Model, components: &[component::Model]) -> AgentView {
    let status = agent_status(agent, components, Utc::now());
    AgentView {
        id: agent.id.clone(),
        name: agent.name.clone(),
        hostname: agent.hostname.clone(),
        version: agent.version.clone(),
        tags: serde_json::from_str(&agent.tags).unwrap_or_default(),
        docker_available: agent.docker_available,
        docker_version: agent.docker_version.clone(),
        status: status.status.to_string(),
        reason: status.reason,
        reason_text: status.reason_text,
        last_heartbeat_at: agent
            .last_heartbeat_at
            .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true)),
        components: components
            .iter()
            .map(|c| ComponentView {
                id: c.component_id.clone(),
                kind: c.kind.clone(),
                name: c.name.clone(),
                network_id: c.network_id.clone(),
                desired: c.desired,
                status: c.status.clone(),
                image: c.image.clone(),
                version: c.version.clone(),
                service: c.service.clone(),
                restart_count: c.restart_count,
                last_error: component_error(c).unwrap_or_default(),
                warnings: serde_json::from_str(&c.warnings).unwrap_or_default(),
            })
            .collect(),
    }
}

#[derive(Clone)]
pub struct AgentInventory {
    db: DatabaseConnection,
}

impl AgentInventory {
    pub fn new(db: DatabaseConnection) -> Self {
        Self { db }
    }

    /// Every Agent with its components, by name. (Two queries, whatever the count.)
    pub async fn list(&self) -> Result<Vec<AgentView>, InventoryError> {
        let agents = agent::Entity::find()
            .order_by_asc(agent::Column::Name)
            .order_by_asc(agent::Column::Id)
            .all(&self.db)
            .await?;
        let components = agents.load_many(component::Entity, &self.db).await?;
        Ok(agents
            .iter()
            .zip(components)
            .map(|(a, c)| view(a, &c))
            .collect())
    }

    pub async fn get(&self, id: &str) -> Result<AgentView, InventoryError> {
        let agent = agent::Entity::find_by_id(id)
            .one(&self.db)
            .await?
            .ok_or(InventoryError::NotFound)?;
        let components = component::Entity::find()
            .filter(component::Column::AgentId.eq(agent.id.as_str()))
            .order_by_asc(component::Column::ComponentId)
            .all(&self.db)
            .await?;
        Ok(view(&agent, &components))
    }

    /// A disabled Agent gets no jobs and its heartbeats do not count as connected.
    pub async fn set_disabled(
        &self,
        id: &str,
        disabled: bool,
    ) -> Result<AgentView, InventoryError> {
        let agent = agent::Entity::find_by_id(id)
            .one(&self.db)
            .await?
            .ok_or(InventoryError::NotFound)?;
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
        audit::record(&self.db, audit::ADMIN, action, id, "").await;
        self.get(id).await
    }
}
