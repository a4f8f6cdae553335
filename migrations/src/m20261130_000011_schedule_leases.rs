//! Scheduled work that exactly one replica should do per round (Beacon
//! checks first): a lease row per task whose `next_at` the winning replica
//! moves on. And an index on check times, for pruning history.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum ScheduleLeases {
    Table,
    Name,
    NextAt,
}

#[derive(DeriveIden)]
enum BeaconChecks {
    Table,
    CheckedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(ScheduleLeases::Table)
                .col(
                    ColumnDef::new(ScheduleLeases::Name)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(ScheduleLeases::NextAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("beacon_checks_checked_at")
                .table(BeaconChecks::Table)
                .col(BeaconChecks::CheckedAt)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(
            Index::drop()
                .name("beacon_checks_checked_at")
                .table(BeaconChecks::Table)
                .to_owned(),
        )
        .await?;
        m.drop_table(Table::drop().table(ScheduleLeases::Table).to_owned())
            .await
    }
}
