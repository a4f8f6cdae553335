//! The setup checklist of a network: the guide's ten steps for a
//! first KnotRoute network, each worked out from what Control sees
//! (`facts`, then `steps`), and the guide's "bootstrap complete" criteria
//! (`bootstrap`). Nothing is stored but the steps an admin chose to skip.

mod beacon_steps;
mod bootstrap;
mod facts;
mod steps;
mod text;

use crate::access::principal::Granted;
use crate::access::roles::EditNetworks;
use crate::access::scope::NetworkScope;
use crate::agents::inventory::{AgentInventory, InventoryError};
use crate::entities::setup_skip;
use crate::networks::{NetworkError, Networks};
use crate::{audit, StoreError};
use chrono::Utc;
use protocol::setup::{SetupChecklist, SetupStep, SetupSummary, SkipInput};
use protocol::{Lang, NetworkId};
use sea_orm::sea_query::OnConflict;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, Set};

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Network(#[from] NetworkError),
    #[error(transparent)]
    Inventory(#[from] InventoryError),
    #[error("invalid step")]
    Invalid(Vec<protocol::FieldError>),
    #[error("the network profile step cannot be skipped")]
    NotSkippable,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// How the request that asks reached Control, which only its HTTP layer
/// knows: whether a trusted proxy said it came over HTTPS.
#[derive(Clone, Copy, Debug, Default)]
pub struct RequestTransport {
    pub proxy_said_https: bool,
}

/// How many networks the Overview summarises.
pub const SUMMARISED: u64 = 5;

#[derive(Clone)]
pub struct SetupChecklists {
    db: DatabaseConnection,
    networks: Networks,
    inventory: AgentInventory,
    public_url: Option<String>,
}

impl SetupChecklists {
    pub fn new(
        db: DatabaseConnection,
        networks: Networks,
        inventory: AgentInventory,
        public_url: Option<&url::Url>,
    ) -> Self {
        Self {
            db,
            networks,
            inventory,
            public_url: public_url.map(|u| u.as_str().trim_end_matches('/').to_string()),
        }
    }

    /// Network `id`'s checklist, as `scope` sees it (a network outside it is
    /// not found).
    pub async fn checklist(
        &self,
        scope: &NetworkScope,
        id: &NetworkId,
        transport: RequestTransport,
        lang: Lang,
    ) -> Result<SetupChecklist, SetupError> {
        let profile = self.networks.get(scope, id).await?;
        let shared = facts::Shared::read(&self.db, &self.inventory, scope).await?;
        self.of(scope, profile, &shared, transport, lang).await
    }

    /// The first [`SUMMARISED`] networks `scope` sees, by name, each in one line.
    pub async fn summaries(
        &self,
        scope: &NetworkScope,
        transport: RequestTransport,
        lang: Lang,
    ) -> Result<Vec<SetupSummary>, SetupError> {
        let page = self.networks.list(scope, None, None, SUMMARISED).await?;
        if page.items.is_empty() {
            return Ok(Vec::new());
        }
        let shared = facts::Shared::read(&self.db, &self.inventory, scope).await?;
        let mut out = Vec::with_capacity(page.items.len());
        for profile in page.items {
            let checklist = self.of(scope, profile, &shared, transport, lang).await?;
            out.push(checklist.summary());
        }
        Ok(out)
    }

    async fn of(
        &self,
        scope: &NetworkScope,
        profile: protocol::api::NetworkProfile,
        shared: &facts::Shared,
        transport: RequestTransport,
        lang: Lang,
    ) -> Result<SetupChecklist, SetupError> {
        let control = facts::ControlFacts {
            public_url: self.public_url.clone(),
            transport,
        };
        let facts =
            facts::gather(&self.db, &self.inventory, scope, profile, control, shared).await?;
        let steps = steps::assess(&facts, lang);
        // Only the second-Beacon step can find the network on one host.
        let single_host = steps
            .iter()
            .find(|s| s.step == SetupStep::SecondBeacon)
            .and_then(|s| s.warning.clone());
        Ok(SetupChecklist {
            network_id: facts.network_id.clone(),
            network_name: facts.network_name.clone(),
            bootstrap: bootstrap::criteria(&facts, lang),
            steps,
            warnings: single_host.into_iter().collect(),
            checked_at: crate::rfc3339(Utc::now()),
        })
    }

    /// Skips a step of network `id` by choice, or takes it back (`skipped`
    /// false). Audited when it changes something; doing either twice does not.
    pub async fn skip(
        &self,
        by: &Granted<EditNetworks>,
        id: &NetworkId,
        input: &SkipInput,
    ) -> Result<(), SetupError> {
        let step = input.step().map_err(|e| SetupError::Invalid(vec![e]))?;
        let skipped = input.skipped;
        if !step.skippable() {
            return Err(SetupError::NotSkippable);
        }
        // Found in the actor's scope, or not at all.
        let profile = self.networks.get(by.scope(), id).await?;
        let actor = by.actor();
        let changed = if skipped {
            let row = setup_skip::ActiveModel {
                network_id: Set(id.to_string()),
                step: Set(step.slug().to_string()),
                skipped_by: Set(actor.clone()),
                skipped_at: Set(Utc::now()),
            };
            setup_skip::Entity::insert(row)
                .on_conflict(
                    OnConflict::columns([setup_skip::Column::NetworkId, setup_skip::Column::Step])
                        .do_nothing()
                        .to_owned(),
                )
                .exec_without_returning(&self.db)
                .await
                .map_err(StoreError)?
        } else {
            setup_skip::Entity::delete_many()
                .filter(setup_skip::Column::NetworkId.eq(id.as_str()))
                .filter(setup_skip::Column::Step.eq(step.slug()))
                .exec(&self.db)
                .await
                .map_err(StoreError)?
                .rows_affected
        };
        if changed == 0 {
            return Ok(());
        }
        let action = if skipped {
            "setup.step_skipped"
        } else {
            "setup.step_restored"
        };
        audit::record_in(
            &self.db,
            Some(id.as_str()),
            &actor,
            action,
            step.slug(),
            &profile.name,
        )
        .await;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
