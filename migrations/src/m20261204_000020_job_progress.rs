//! Live job progress: a job's stages and its output lines, kept
//! per job within a bound, and on the job what the progress extension needs:
//! whether its Agent reports progress, the last message number seen (repeats
//! are ignored), when the last one came (the live feed watches it), the size
//! of the kept output, and an admin's request to stop it.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Jobs {
    Table,
    ReportsProgress,
    ProgressSeq,
    ProgressAt,
    LogBytes,
    LogLines,
    LogHeadLines,
    CancelRequestedAt,
}

#[derive(DeriveIden)]
enum JobStages {
    Table,
    JobId,
    Idx,
    Name,
    Status,
    StartedAt,
    EndedAt,
    Command,
    ExitCode,
}

#[derive(DeriveIden)]
enum JobLogLines {
    Table,
    JobId,
    Line,
    Stage,
    Text,
    Bytes,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters a table one change at a time.
        let columns = [
            ColumnDef::new(Jobs::ReportsProgress)
                .boolean()
                .not_null()
                .default(false)
                .to_owned(),
            ColumnDef::new(Jobs::ProgressSeq)
                .big_integer()
                .not_null()
                .default(0)
                .to_owned(),
            ColumnDef::new(Jobs::ProgressAt)
                .timestamp_with_time_zone()
                .null()
                .to_owned(),
            ColumnDef::new(Jobs::LogBytes)
                .big_integer()
                .not_null()
                .default(0)
                .to_owned(),
            ColumnDef::new(Jobs::LogLines)
                .big_integer()
                .not_null()
                .default(0)
                .to_owned(),
            ColumnDef::new(Jobs::LogHeadLines)
                .big_integer()
                .not_null()
                .default(0)
                .to_owned(),
            ColumnDef::new(Jobs::CancelRequestedAt)
                .timestamp_with_time_zone()
                .null()
                .to_owned(),
        ];
        for mut column in columns {
            m.alter_table(
                Table::alter()
                    .table(Jobs::Table)
                    .add_column(&mut column)
                    .to_owned(),
            )
            .await?;
        }
        m.create_index(
            Index::create()
                .name("jobs_progress_at")
                .table(Jobs::Table)
                .col(Jobs::ProgressAt)
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(JobStages::Table)
                .col(ColumnDef::new(JobStages::JobId).string_len(64).not_null())
                .col(ColumnDef::new(JobStages::Idx).integer().not_null())
                .col(ColumnDef::new(JobStages::Name).string_len(64).not_null())
                .col(ColumnDef::new(JobStages::Status).string_len(16).not_null())
                .col(
                    ColumnDef::new(JobStages::StartedAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .col(
                    ColumnDef::new(JobStages::EndedAt)
                        .timestamp_with_time_zone()
                        .null(),
                )
                .col(ColumnDef::new(JobStages::Command).text().null())
                .col(ColumnDef::new(JobStages::ExitCode).integer().null())
                .primary_key(Index::create().col(JobStages::JobId).col(JobStages::Idx))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(JobLogLines::Table)
                .col(ColumnDef::new(JobLogLines::JobId).string_len(64).not_null())
                .col(ColumnDef::new(JobLogLines::Line).big_integer().not_null())
                .col(ColumnDef::new(JobLogLines::Stage).integer().not_null())
                .col(ColumnDef::new(JobLogLines::Text).text().not_null())
                .col(ColumnDef::new(JobLogLines::Bytes).integer().not_null())
                .primary_key(
                    Index::create()
                        .col(JobLogLines::JobId)
                        .col(JobLogLines::Line),
                )
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(JobLogLines::Table).to_owned())
            .await?;
        m.drop_table(Table::drop().table(JobStages::Table).to_owned())
            .await?;
        m.drop_index(
            Index::drop()
                .name("jobs_progress_at")
                .table(Jobs::Table)
                .to_owned(),
        )
        .await?;
        for column in [
            Jobs::CancelRequestedAt,
            Jobs::LogHeadLines,
            Jobs::LogLines,
            Jobs::LogBytes,
            Jobs::ProgressAt,
            Jobs::ProgressSeq,
            Jobs::ReportsProgress,
        ] {
            m.alter_table(
                Table::alter()
                    .table(Jobs::Table)
                    .drop_column(column)
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }
}
