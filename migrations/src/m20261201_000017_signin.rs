//! Browsers the admin signed in with before: only a SHA-256 of each
//! known-browser token is kept. Such a browser has a sign-in budget of its
//! own, so failed guesses from others behind the same address cannot lock
//! the admin out.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum SigninDevices {
    Table,
    TokenHash,
    CreatedAt,
    ExpiresAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let at = |c: SigninDevices| {
            ColumnDef::new(c)
                .timestamp_with_time_zone()
                .not_null()
                .to_owned()
        };
        m.create_table(
            Table::create()
                .table(SigninDevices::Table)
                .col(
                    ColumnDef::new(SigninDevices::TokenHash)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(at(SigninDevices::CreatedAt))
                .col(at(SigninDevices::ExpiresAt))
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(SigninDevices::Table).to_owned())
            .await
    }
}
