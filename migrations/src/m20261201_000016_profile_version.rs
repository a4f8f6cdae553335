//! A version on each network profile, raised by one on every change, so a
//! writer can say which state its change was based on and a stale one is
//! refused instead of silently undoing another's change (lost updates).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Networks {
    Table,
    Version,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // Existing rows start at 1, like a newly created profile.
        m.alter_table(
            Table::alter()
                .table(Networks::Table)
                .add_column(
                    ColumnDef::new(Networks::Version)
                        .big_integer()
                        .not_null()
                        .default(1),
                )
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(Networks::Table)
                .drop_column(Networks::Version)
                .to_owned(),
        )
        .await
    }
}
