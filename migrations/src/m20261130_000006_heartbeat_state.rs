//! What lets a steady heartbeat cost one statement (the hash of the last
//! report, a flag while reconciliation may be due), and whether an admin
//! named the Agent (then heartbeats do not rename it).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Agents {
    Table,
    ReportHash,
    ReconcilePending,
    NamedByAdmin,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // SQLite cannot add several columns in one ALTER TABLE.
        for col in [
            ColumnDef::new(Agents::ReportHash)
                .string_len(64)
                .not_null()
                .default("")
                .to_owned(),
            ColumnDef::new(Agents::ReconcilePending)
                .boolean()
                .not_null()
                .default(false)
                .to_owned(),
            ColumnDef::new(Agents::NamedByAdmin)
                .boolean()
                .not_null()
                .default(false)
                .to_owned(),
        ] {
            m.alter_table(
                Table::alter()
                    .table(Agents::Table)
                    .add_column(col)
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for col in [
            Agents::ReportHash,
            Agents::ReconcilePending,
            Agents::NamedByAdmin,
        ] {
            m.alter_table(
                Table::alter()
                    .table(Agents::Table)
                    .drop_column(col)
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }
}
