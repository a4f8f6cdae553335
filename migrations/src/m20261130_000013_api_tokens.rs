//! Personal API tokens for scripts: only a SHA-256 of each token is kept,
//! with a short prefix to recognise it by in the list.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum ApiTokens {
    Table,
    Id,
    Name,
    TokenHash,
    Prefix,
    Scope,
    CreatedAt,
    LastUsedAt,
    RevokedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let at = |c: ApiTokens| ColumnDef::new(c).timestamp_with_time_zone().to_owned();
        m.create_table(
            Table::create()
                .table(ApiTokens::Table)
                .col(
                    ColumnDef::new(ApiTokens::Id)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(ColumnDef::new(ApiTokens::Name).string_len(80).not_null())
                .col(
                    ColumnDef::new(ApiTokens::TokenHash)
                        .string_len(64)
                        .not_null()
                        .unique_key(),
                )
                .col(ColumnDef::new(ApiTokens::Prefix).string_len(16).not_null())
                .col(ColumnDef::new(ApiTokens::Scope).string_len(16).not_null())
                .col(at(ApiTokens::CreatedAt).not_null().to_owned())
                .col(at(ApiTokens::LastUsedAt).null().to_owned())
                .col(at(ApiTokens::RevokedAt).null().to_owned())
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(ApiTokens::Table).to_owned())
            .await
    }
}
