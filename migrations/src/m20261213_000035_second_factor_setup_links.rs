//! Setting up a second factor the owner requires takes a one-time setup
//! link besides the password (`access::second_factor::setup_link`): one per
//! person, its token kept hashed.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum SecondFactorSetupLinks {
    Table,
    UserId,
    TokenHash,
    ExpiresAt,
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        use SecondFactorSetupLinks as L;
        m.create_table(
            Table::create()
                .table(L::Table)
                .col(
                    ColumnDef::new(L::UserId)
                        .string_len(32)
                        .not_null()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(L::TokenHash)
                        .string_len(64)
                        .not_null()
                        .unique_key(),
                )
                .col(
                    ColumnDef::new(L::ExpiresAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .foreign_key(
                    ForeignKey::create()
                        .name("second_factor_setup_links_user")
                        .from(L::Table, L::UserId)
                        .to(Users::Table, Users::Id)
                        .on_delete(ForeignKeyAction::Cascade),
                )
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(
            Table::drop()
                .table(SecondFactorSetupLinks::Table)
                .to_owned(),
        )
        .await
    }
}
