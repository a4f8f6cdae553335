//! The agent API: replay protection for signed requests, the enrollment log,
//! and the component fields heartbeats report.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum SeenSignatures {
    Table,
    SignatureHash,
    AgentId,
    SeenAt,
}

#[derive(DeriveIden)]
enum EnrollmentLog {
    Table,
    Id,
    At,
    Client,
    AgentId,
    Name,
    Accepted,
    Reason,
}

#[derive(DeriveIden)]
enum Components {
    Table,
    Container,
    Image,
    Version,
    RestartCount,
    LastError,
    Warnings,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // One row per accepted signed request; the primary key makes a replay
        // fail on every replica that shares the database.
        m.create_table(
            Table::create()
                .table(SeenSignatures::Table)
                .col(
                    ColumnDef::new(SeenSignatures::SignatureHash)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(SeenSignatures::AgentId)
                        .string_len(64)
                        .not_null(),
                )
                .col(
                    ColumnDef::new(SeenSignatures::SeenAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("seen_signatures_seen_at")
                .table(SeenSignatures::Table)
                .col(SeenSignatures::SeenAt)
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(EnrollmentLog::Table)
                .col(
                    ColumnDef::new(EnrollmentLog::Id)
                        .big_integer()
                        .not_null()
                        .auto_increment()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(EnrollmentLog::At)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .col(
                    ColumnDef::new(EnrollmentLog::Client)
                        .string_len(64)
                        .not_null(),
                )
                .col(ColumnDef::new(EnrollmentLog::AgentId).string_len(64).null())
                .col(
                    ColumnDef::new(EnrollmentLog::Name)
                        .string_len(320)
                        .not_null()
                        .default(""),
                )
                .col(ColumnDef::new(EnrollmentLog::Accepted).boolean().not_null())
                .col(
                    ColumnDef::new(EnrollmentLog::Reason)
                        .string_len(64)
                        .not_null(),
                )
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("enrollment_log_client_at")
                .table(EnrollmentLog::Table)
                .col(EnrollmentLog::Client)
                .col(EnrollmentLog::At)
                .to_owned(),
        )
        .await?;

        // SQLite cannot add several columns in one ALTER TABLE.
        for col in [
            ColumnDef::new(Components::Container)
                .string_len(320)
                .not_null()
                .default("")
                .to_owned(),
            ColumnDef::new(Components::Image)
                .string_len(320)
                .not_null()
                .default("")
                .to_owned(),
            ColumnDef::new(Components::Version)
                .string_len(64)
                .not_null()
                .default("")
                .to_owned(),
            ColumnDef::new(Components::RestartCount)
                .integer()
                .not_null()
                .default(0)
                .to_owned(),
            ColumnDef::new(Components::LastError)
                .string_len(1024)
                .not_null()
                .default("")
                .to_owned(),
            ColumnDef::new(Components::Warnings)
                .text()
                .not_null()
                .default("[]")
                .to_owned(),
        ] {
            m.alter_table(
                Table::alter()
                    .table(Components::Table)
                    .add_column(col)
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for col in [
            Components::Container,
            Components::Image,
            Components::Version,
            Components::RestartCount,
            Components::LastError,
            Components::Warnings,
        ] {
            m.alter_table(
                Table::alter()
                    .table(Components::Table)
                    .drop_column(col)
                    .to_owned(),
            )
            .await?;
        }
        m.drop_table(Table::drop().table(EnrollmentLog::Table).to_owned())
            .await?;
        m.drop_table(Table::drop().table(SeenSignatures::Table).to_owned())
            .await?;
        Ok(())
    }
}
