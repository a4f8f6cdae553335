//! The durable job queue.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Jobs {
    Table,
    Id,
    AgentId,
    Kind,
    Payload,
    Status,
    Result,
    CreatedAt,
    StartedAt,
    FinishedAt,
    LeaseExpiresAt,
    RetryOf,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Jobs::Table)
                .col(
                    ColumnDef::new(Jobs::Id)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(ColumnDef::new(Jobs::AgentId).string_len(64).not_null())
                .col(ColumnDef::new(Jobs::Kind).string_len(32).not_null())
                .col(ColumnDef::new(Jobs::Payload).text().not_null())
                .col(ColumnDef::new(Jobs::Status).string_len(16).not_null())
                .col(ColumnDef::new(Jobs::Result).text().not_null().default(""))
                .col(
                    ColumnDef::new(Jobs::CreatedAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .col(
                    ColumnDef::new(Jobs::StartedAt)
                        .timestamp_with_time_zone()
                        .null(),
                )
                .col(
                    ColumnDef::new(Jobs::FinishedAt)
                        .timestamp_with_time_zone()
                        .null(),
                )
                .col(
                    ColumnDef::new(Jobs::LeaseExpiresAt)
                        .timestamp_with_time_zone()
                        .null(),
                )
                .col(ColumnDef::new(Jobs::RetryOf).string_len(64).null())
                .to_owned(),
        )
        .await?;
        // Claiming looks for an agent's oldest pending job.
        m.create_index(
            Index::create()
                .name("jobs_agent_status_created")
                .table(Jobs::Table)
                .col(Jobs::AgentId)
                .col(Jobs::Status)
                .col(Jobs::CreatedAt)
                .to_owned(),
        )
        .await?;
        // The lease sweep looks for running jobs past their lease.
        m.create_index(
            Index::create()
                .name("jobs_status_lease")
                .table(Jobs::Table)
                .col(Jobs::Status)
                .col(Jobs::LeaseExpiresAt)
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(Jobs::Table).to_owned())
            .await
    }
}
