//! A known-browser mark remembers the account it last signed in to, so that
//! the account's own sign-in budget (which every other browser's guesses at
//! it use up) does not hold the account holder's browser back. Marks made
//! before are bound to no account until their next sign-in.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum SigninDevices {
    Table,
    Account,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(SigninDevices::Table)
                .add_column(ColumnDef::new(SigninDevices::Account).string_len(64).null())
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(SigninDevices::Table)
                .drop_column(SigninDevices::Account)
                .to_owned(),
        )
        .await
    }
}
