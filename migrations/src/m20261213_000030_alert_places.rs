//! Where an alert's thing belongs, so that someone who sees only some
//! networks reads only their alerts: its network, or else its Agent. Alerts
//! queued before have neither and are seen only by those who see every
//! network (they are pruned after 30 days).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Alerts {
    Table,
    NetworkId,
    AgentId,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters one at a time.
        for column in [Alerts::NetworkId, Alerts::AgentId] {
            m.alter_table(
                Table::alter()
                    .table(Alerts::Table)
                    .add_column(ColumnDef::new(column).string_len(64).null())
                    .to_owned(),
            )
            .await?;
        }
        m.create_index(
            Index::create()
                .name("alerts_network_id")
                .table(Alerts::Table)
                .col(Alerts::NetworkId)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(
            Index::drop()
                .name("alerts_network_id")
                .table(Alerts::Table)
                .to_owned(),
        )
        .await?;
        for column in [Alerts::AgentId, Alerts::NetworkId] {
            m.alter_table(
                Table::alter()
                    .table(Alerts::Table)
                    .drop_column(column)
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }
}
