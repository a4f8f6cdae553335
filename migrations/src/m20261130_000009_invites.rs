//! Onboarding invites: a public link to one network profile for end users.
//! Only a hash of the link's token is kept; deleting the profile deletes its
//! invites (they would lead nowhere). The visitor key marks browsers already
//! counted, so only Control can mint that mark.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Invites {
    Table,
    Id,
    TokenHash,
    VisitorKey,
    NetworkId,
    Name,
    CreatedAt,
    ExpiresAt,
    MaxOpens,
    Opens,
    LastOpenedAt,
    RevokedAt,
}

#[derive(DeriveIden)]
enum Networks {
    Table,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Invites::Table)
                .col(
                    ColumnDef::new(Invites::Id)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(Invites::TokenHash)
                        .string_len(64)
                        .not_null()
                        .unique_key(),
                )
                .col(
                    ColumnDef::new(Invites::VisitorKey)
                        .string_len(64)
                        .not_null(),
                )
                .col(ColumnDef::new(Invites::NetworkId).string_len(64).not_null())
                .col(ColumnDef::new(Invites::Name).string_len(400).not_null())
                .col(
                    ColumnDef::new(Invites::CreatedAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .col(
                    ColumnDef::new(Invites::ExpiresAt)
                        .timestamp_with_time_zone()
                        .null(),
                )
                .col(ColumnDef::new(Invites::MaxOpens).integer().null())
                .col(
                    ColumnDef::new(Invites::Opens)
                        .integer()
                        .not_null()
                        .default(0),
                )
                .col(
                    ColumnDef::new(Invites::LastOpenedAt)
                        .timestamp_with_time_zone()
                        .null(),
                )
                .col(
                    ColumnDef::new(Invites::RevokedAt)
                        .timestamp_with_time_zone()
                        .null(),
                )
                .foreign_key(
                    ForeignKey::create()
                        .name("invites_network")
                        .from(Invites::Table, Invites::NetworkId)
                        .to(Networks::Table, Networks::Id)
                        .on_delete(ForeignKeyAction::Cascade),
                )
                .to_owned(),
        )
        .await?;
        // The list is newest first, keyset-paged.
        m.create_index(
            Index::create()
                .name("invites_created_id")
                .table(Invites::Table)
                .col(Invites::CreatedAt)
                .col(Invites::Id)
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("invites_network_id")
                .table(Invites::Table)
                .col(Invites::NetworkId)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(Invites::Table).to_owned())
            .await
    }
}
