//! The audit log: who did what to which thing, and when.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum AuditLog {
    Table,
    Id,
    At,
    Actor,
    Action,
    Subject,
    Detail,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(AuditLog::Table)
                .col(
                    ColumnDef::new(AuditLog::Id)
                        .big_integer()
                        .not_null()
                        .auto_increment()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(AuditLog::At)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .col(ColumnDef::new(AuditLog::Actor).string_len(80).not_null())
                .col(ColumnDef::new(AuditLog::Action).string_len(64).not_null())
                .col(ColumnDef::new(AuditLog::Subject).string_len(128).not_null())
                .col(
                    ColumnDef::new(AuditLog::Detail)
                        .string_len(1024)
                        .not_null()
                        .default(""),
                )
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("audit_log_action_id")
                .table(AuditLog::Table)
                .col(AuditLog::Action)
                .col(AuditLog::Id)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(AuditLog::Table).to_owned())
            .await
    }
}
