//! A component belongs to the network Control deployed it for, never to the
//! one a heartbeat's `io.knotroute.network-id` label names: components only
//! seen in heartbeats (never deployed, or removed since) lose the network
//! their label gave them. Desired components keep theirs, which came from
//! the deployment.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.get_connection()
            .execute_unprepared("UPDATE components SET network_id = NULL WHERE NOT desired")
            .await?;
        Ok(())
    }

    /// The labels are not kept, so there is nothing to give back.
    async fn down(&self, _m: &SchemaManager) -> Result<(), DbErr> {
        Ok(())
    }
}
