//! The numbers on the Overview screen, counted in the database.

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

    pub async fn counts(&self) -> Result<OverviewCounts, StoreError> {
        let db = &self.db;
        let now = crate::database_now(db).await;
        let networks = network::Entity::find().count(db).await?;
        let networks_without_beacon = network::Entity::find()
            .filter(Expr::col(network::Column::Beacons).eq("[]"))
            .count(db)
            .await?;
        // Revoked and moved records are history, not part of the fleet.
        let agents_total = agent::Entity::find()
            .filter(agent::Column::Retired.eq(Retirement::Active))
            .count(db)
            .await?;
        let agents_online = agent::Entity::find()
            .filter(agent::Column::Retired.eq(Retirement::Active))
            .filter(agent::Column::Disabled.eq(false))
            .filter(agent::Column::LastHeartbeatAt.gt(now - self.offline_after))
            .count(db)
            .await?;
        let managed_beacons = component::Entity::find()
            .filter(component::Column::Desired.eq(true))
            .filter(component::Column::Kind.eq("beacon"))
            .count(db)
            .await?;
        let services = component::Entity::find()
            .filter(component::Column::Desired.eq(true))
            .filter(component::Column::Kind.eq("sidecar"))
            .count(db)
            .await?;
        Ok(OverviewCounts {
            networks,
            networks_without_beacon,
            agents_online,
            agents_total,
            managed_beacons,
            services,
        })
    }
}
