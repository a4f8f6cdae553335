//! New Agents wait for approval. With the setting on (the default), an
//! Agent enrolled with the shared token is *pending* until an admin approves
//! it; one enrolled with an install token is approved already (the admin who
//! made the token approved it), unless the token was made to need approval.
//!
//! A pending Agent's heartbeats are recorded, so the admin sees its host,
//! version and key fingerprint before deciding; it is handed no job, no job
//! can be queued for it, and it belongs to no network (nothing Control
//! deployed runs on it). Approving it makes it an Agent like any other;
//! rejecting it refuses its key for good, as revoking does (`revoked_keys`,
//! reason `rejected`), and deletes its record.

use crate::access::principal::Granted;
use crate::access::roles::{ChangeSettings, ManageAgents};
use crate::agents::inventory::{AgentInventory, InventoryError};
use crate::alerts::settings::{Alerts, Observation, Place};
use crate::entities::{agent, component, setting};
use crate::{audit, StoreError};
use chrono::Utc;
use protocol::api::{AgentApprovalSettings, AgentView};
use protocol::AgentId;
use sea_orm::{ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter};

/// The `settings` row: `off` when shared-token Agents are approved at once.
const SETTING: &str = "agent_approval";

/// Whether an Agent enrolled with the shared token waits for approval.
pub async fn required(db: &impl ConnectionTrait) -> Result<bool, StoreError> {
    Ok(setting::Entity::find_by_id(SETTING)
        .one(db)
        .await?
        .is_none_or(|s| s.value != "off"))
}

#[derive(Clone)]
pub struct AgentApproval {
    db: DatabaseConnection,
    inventory: AgentInventory,
    alerts: Alerts,
}

impl AgentApproval {
    pub fn new(db: DatabaseConnection, inventory: AgentInventory, alerts: Alerts) -> Self {
        Self {
            db,
            inventory,
            alerts,
        }
    }

    /// What Settings shows: whether new Agents wait.
    pub async fn settings(&self) -> Result<AgentApprovalSettings, StoreError> {
        Ok(AgentApprovalSettings {
            required: required(&self.db).await?,
        })
    }

    /// Turns the waiting on or off for Agents enrolled from now on; those
    /// waiting already keep waiting for a decision.
    pub async fn set_required(
        &self,
        by: &Granted<ChangeSettings>,
        input: &AgentApprovalSettings,
    ) -> Result<AgentApprovalSettings, StoreError> {
        let value = if input.required { "on" } else { "off" };
        setting::put(&self.db, SETTING, value.to_string()).await?;
        let detail = if input.required {
            "Agents enrolled with the shared token wait for approval"
        } else {
            "Agents enrolled with the shared token are approved at once"
        };
        audit::record(
            &self.db,
            &by.actor(),
            "settings.agent_approval",
            "agents",
            detail,
        )
        .await;
        self.settings().await
    }

    /// Approves a pending Agent: from now on it is handed jobs.
    pub async fn approve(
        &self,
        by: &Granted<ManageAgents>,
        id: &AgentId,
    ) -> Result<AgentView, InventoryError> {
        let agent = self.waiting(by, id).await?;
        let approved = agent::Entity::update_many()
            .col_expr(agent::Column::Pending, false.into())
            .col_expr(agent::Column::UpdatedAt, Utc::now().into())
            .filter(agent::Column::Id.eq(agent.id.as_str()))
            .filter(agent::Column::Pending.eq(true))
            .exec(&self.db)
            .await?;
        if approved.rows_affected != 1 {
            return Err(InventoryError::NotPending);
        }
        tracing::info!(agent_id = %agent.id, "agent approved by admin");
        let detail = format!("key {}", fingerprint(&agent));
        audit::record(&self.db, &by.actor(), "agent.approved", &agent.id, &detail).await;
        self.inventory.get(by.scope(), id).await
    }

    /// Rejects a pending Agent: its key is refused from now on, as a revoked
    /// one is (only the admin's "allow again" lets it back), and its record
    /// and what it reported are deleted.
    pub async fn reject(
        &self,
        by: &Granted<ManageAgents>,
        id: &AgentId,
    ) -> Result<(), InventoryError> {
        let agent = self.waiting(by, id).await?;
        let txn = crate::begin_write(&self.db).await?;
        let deleted = agent::Entity::delete_many()
            .filter(agent::Column::Id.eq(agent.id.as_str()))
            .filter(agent::Column::Pending.eq(true))
            .exec(&txn)
            .await?;
        if deleted.rows_affected != 1 {
            return Err(InventoryError::NotPending);
        }
        component::Entity::delete_many()
            .filter(component::Column::AgentId.eq(agent.id.as_str()))
            .exec(&txn)
            .await?;
        crate::agents::revoked_keys::record(&txn, &agent, "rejected", Utc::now()).await?;
        txn.commit().await?;
        tracing::info!(agent_id = %agent.id, "pending agent rejected by admin");
        let detail = format!("key {} refused", fingerprint(&agent));
        audit::record(&self.db, &by.actor(), "agent.rejected", &agent.id, &detail).await;
        Ok(())
    }

    /// Agent `id`, which must be waiting for approval.
    async fn waiting(
        &self,
        by: &Granted<ManageAgents>,
        id: &AgentId,
    ) -> Result<agent::Model, InventoryError> {
        // Pending Agents belong to no network: only someone who sees every
        // network sees them (and `ManageAgents` needs that anyway).
        if !by.scope().is_all() {
            return Err(InventoryError::NotFound);
        }
        let agent = agent::Entity::find_by_id(id.as_str())
            .one(&self.db)
            .await?
            .ok_or(InventoryError::NotFound)?;
        if !agent.pending || agent.retired.is_retired() {
            return Err(InventoryError::NotPending);
        }
        Ok(agent)
    }

    /// Tells whoever gets alerts that an Agent waits for approval.
    pub async fn announce(&self, agent_id: &AgentId, name: &str, client: &str) {
        let observation = Observation {
            key: format!("approval:{agent_id}"),
            state: "pending",
            healthy: "",
            news_when_first: true,
            event: "agent.pending",
            text: format!(
                "Agent {name} ({agent_id}) enrolled from {client} and waits for approval under Infrastructure → Agents."
            ),
            subject: serde_json::json!({"agent_id": agent_id.as_str(), "name": name, "client": client}),
            place: Place::agent(agent_id.as_str()),
        };
        if let Err(e) = self.alerts.queue(&observation, Utc::now()).await {
            tracing::warn!(error = %e, "queueing the alert about a pending Agent failed");
        }
    }
}

/// The fingerprint of an Agent's pinned key, as the Agent logs it.
pub fn fingerprint(agent: &agent::Model) -> String {
    protocol::signing::AgentPublicKey::parse(&agent.public_key)
        .map(|k| k.fingerprint())
        .unwrap_or_default()
}
