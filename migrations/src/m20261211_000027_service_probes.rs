//! The end-to-end probe: per network, the service an admin chose
//! to open through the overlay and the Agent that opens it
//! (`network_probes`), and what each probe found (`probe_runs`, kept 30
//! days like Beacon checks).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum NetworkProbes {
    Table,
    NetworkId,
    Service,
    AgentId,
    EveryMinutes,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum ProbeRuns {
    Table,
    Id,
    NetworkId,
    JobId,
    AgentId,
    AgentName,
    Service,
    Address,
    At,
    Ok,
    LatencyMs,
    Stage,
    Detail,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        use NetworkProbes as P;
        use ProbeRuns as R;
        m.create_table(
            Table::create()
                .table(P::Table)
                .col(
                    ColumnDef::new(P::NetworkId)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(ColumnDef::new(P::Service).string_len(64).not_null())
                .col(ColumnDef::new(P::AgentId).string_len(64).not_null())
                .col(ColumnDef::new(P::EveryMinutes).integer().not_null())
                .col(
                    ColumnDef::new(P::UpdatedAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(R::Table)
                .col(
                    ColumnDef::new(R::Id)
                        .big_integer()
                        .not_null()
                        .auto_increment()
                        .primary_key(),
                )
                .col(ColumnDef::new(R::NetworkId).string_len(64).not_null())
                .col(ColumnDef::new(R::JobId).string_len(64).not_null())
                .col(ColumnDef::new(R::AgentId).string_len(64).not_null())
                .col(ColumnDef::new(R::AgentName).text().not_null())
                .col(ColumnDef::new(R::Service).string_len(64).not_null())
                .col(ColumnDef::new(R::Address).string_len(64).not_null())
                .col(ColumnDef::new(R::At).timestamp_with_time_zone().not_null())
                .col(ColumnDef::new(R::Ok).boolean().not_null())
                .col(ColumnDef::new(R::LatencyMs).integer().not_null())
                .col(ColumnDef::new(R::Stage).string_len(16).not_null())
                .col(ColumnDef::new(R::Detail).text().not_null())
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("probe_runs_network_at")
                .table(R::Table)
                .col(R::NetworkId)
                .col(R::At)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(ProbeRuns::Table).to_owned())
            .await?;
        m.drop_table(Table::drop().table(NetworkProbes::Table).to_owned())
            .await
    }
}
