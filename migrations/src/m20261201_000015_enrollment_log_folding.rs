//! Repeated refused enrollments fold into one row per client address and
//! reason (`attempts`, from `first_at` to `at`), and both logs are pruned by
//! time, so indexes on their times.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum EnrollmentLog {
    Table,
    At,
    Attempts,
    FirstAt,
}

#[derive(DeriveIden)]
enum AuditLog {
    Table,
    At,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // SQLite cannot add several columns in one ALTER TABLE, nor a NOT NULL
        // column without a default: the default is overwritten right below.
        for col in [
            ColumnDef::new(EnrollmentLog::Attempts)
                .big_integer()
                .not_null()
                .default(1)
                .to_owned(),
            ColumnDef::new(EnrollmentLog::FirstAt)
                .timestamp_with_time_zone()
                .not_null()
                .default("1970-01-01T00:00:00Z")
                .to_owned(),
        ] {
            m.alter_table(
                Table::alter()
                    .table(EnrollmentLog::Table)
                    .add_column(col)
                    .to_owned(),
            )
            .await?;
        }
        m.get_connection()
            .execute_unprepared("UPDATE enrollment_log SET first_at = at")
            .await?;
        m.create_index(
            Index::create()
                .name("enrollment_log_at")
                .table(EnrollmentLog::Table)
                .col(EnrollmentLog::At)
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("audit_log_at")
                .table(AuditLog::Table)
                .col(AuditLog::At)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(Index::drop().name("audit_log_at").to_owned())
            .await?;
        m.drop_index(Index::drop().name("enrollment_log_at").to_owned())
            .await?;
        for col in [EnrollmentLog::FirstAt, EnrollmentLog::Attempts] {
            m.alter_table(
                Table::alter()
                    .table(EnrollmentLog::Table)
                    .drop_column(col)
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }
}
