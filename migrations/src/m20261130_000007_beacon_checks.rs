//! Beacon health checks, kept as history: the Infrastructure screen shows the
//! latest per Beacon URL, and scheduled checks (later) add latency history.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum BeaconChecks {
    Table,
    Id,
    NetworkId,
    Url,
    CheckedAt,
    Ok,
    LatencyMs,
    Class,
    Detail,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(BeaconChecks::Table)
                .col(
                    ColumnDef::new(BeaconChecks::Id)
                        .big_integer()
                        .not_null()
                        .auto_increment()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(BeaconChecks::NetworkId)
                        .string_len(64)
                        .not_null(),
                )
                .col(ColumnDef::new(BeaconChecks::Url).string_len(512).not_null())
                .col(
                    ColumnDef::new(BeaconChecks::CheckedAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .col(ColumnDef::new(BeaconChecks::Ok).boolean().not_null())
                .col(ColumnDef::new(BeaconChecks::LatencyMs).integer().null())
                .col(
                    ColumnDef::new(BeaconChecks::Class)
                        .string_len(32)
                        .not_null(),
                )
                .col(
                    ColumnDef::new(BeaconChecks::Detail)
                        .string_len(512)
                        .not_null()
                        .default(""),
                )
                .to_owned(),
        )
        .await?;
        // The latest check of a URL is the highest id for (network, url).
        m.create_index(
            Index::create()
                .name("beacon_checks_network_url_id")
                .table(BeaconChecks::Table)
                .col(BeaconChecks::NetworkId)
                .col(BeaconChecks::Url)
                .col(BeaconChecks::Id)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(BeaconChecks::Table).to_owned())
            .await
    }
}
