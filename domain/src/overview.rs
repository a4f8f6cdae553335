//! The numbers on the Overview screen, counted in the database.

use crate::access::scope::NetworkScope;
use crate::entities::agent::Retirement;
use crate::entities::{agent, component, network};
use crate::StoreError;
use chrono::Duration;
use protocol::api::OverviewCounts;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, PaginatorTrait, QueryFilter};

#[derive(Clone)]
pub struct Overview {
    db: DatabaseConnection,
    offline_after: Duration,
}

impl Overview {
    pub fn new(db: DatabaseConnection, offline_after: Duration) -> Self {
        Self { db, offline_after }
    }

    /// The numbers of what `scope` sees.
    pub async fn counts(&self, scope: &NetworkScope) -> Result<OverviewCounts, StoreError> {
        let db = &self.db;
        let now = crate::database_now(db).await;
        let networks = network::Entity::find()
            .filter(scope.condition(network::Column::Id))
            .count(db)
            .await?;
        let networks_without_beacon = network::Entity::find()
            .filter(scope.condition(network::Column::Id))
            .filter(Expr::col(network::Column::Beacons).eq("[]"))
            .count(db)
            .await?;
        // Revoked and moved records are history, not part of the fleet.
        let agents_total = agent::Entity::find()
            .filter(agent::Column::Retired.eq(Retirement::Active))
            .filter(scope.agents_condition(agent::Column::Id))
            .count(db)
            .await?;
        let agents_pending = agent::Entity::find()
            .filter(agent::Column::Retired.eq(Retirement::Active))
            .filter(scope.agents_condition(agent::Column::Id))
            .filter(agent::Column::Pending.eq(true))
            .count(db)
            .await?;
        let agents_online = agent::Entity::find()
            .filter(agent::Column::Retired.eq(Retirement::Active))
            .filter(scope.agents_condition(agent::Column::Id))
            .filter(agent::Column::Disabled.eq(false))
            .filter(agent::Column::Pending.eq(false))
            .filter(agent::Column::LastHeartbeatAt.gt(now - self.offline_after))
            .count(db)
            .await?;
        let managed_beacons = component::Entity::find()
            .filter(component::Column::Desired.eq(true))
            .filter(component::Column::Kind.eq("beacon"))
            .filter(scope.condition(component::Column::NetworkId))
            .count(db)
            .await?;
        let services = component::Entity::find()
            .filter(component::Column::Desired.eq(true))
            .filter(component::Column::Kind.eq("sidecar"))
            .filter(scope.condition(component::Column::NetworkId))
            .count(db)
            .await?;
        Ok(OverviewCounts {
            networks,
            networks_without_beacon,
            agents_online,
            agents_total,
            managed_beacons,
            services,
            agents_pending,
        })
    }

    /// Every network's numbers: for the metrics endpoint, whose token reads
    /// the whole fleet by design.
    pub async fn fleet_counts(&self) -> Result<OverviewCounts, StoreError> {
        self.counts(&NetworkScope::all()).await
    }
}
