//! People with accounts of their own: users with a role
//! and an Argon2id password hash, one-time invitation links (only their
//! SHA-256 is kept), and the person each admin session and API token belongs
//! to (NULL: the break-glass owner account, as before).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
    Name,
    Role,
    PasswordHash,
    DisabledAt,
    CreatedAt,
    LastSignInAt,
}

#[derive(DeriveIden)]
enum UserInvites {
    Table,
    TokenHash,
    Role,
    CreatedBy,
    CreatedAt,
    ExpiresAt,
    UsedAt,
}

#[derive(DeriveIden)]
enum AdminSessions {
    Table,
    UserId,
}

#[derive(DeriveIden)]
enum ApiTokens {
    Table,
    UserId,
}

fn at<C: IntoIden>(c: C) -> ColumnDef {
    ColumnDef::new(c).timestamp_with_time_zone().to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Users::Table)
                .col(
                    ColumnDef::new(Users::Id)
                        .string_len(32)
                        .not_null()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(Users::Name)
                        .string_len(64)
                        .not_null()
                        .unique_key(),
                )
                .col(ColumnDef::new(Users::Role).string_len(16).not_null())
                .col(ColumnDef::new(Users::PasswordHash).string_len(256).null())
                .col(at(Users::DisabledAt).null().to_owned())
                .col(at(Users::CreatedAt).not_null().to_owned())
                .col(at(Users::LastSignInAt).null().to_owned())
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(UserInvites::Table)
                .col(
                    ColumnDef::new(UserInvites::TokenHash)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(ColumnDef::new(UserInvites::Role).string_len(16).not_null())
                .col(
                    ColumnDef::new(UserInvites::CreatedBy)
                        .string_len(200)
                        .not_null(),
                )
                .col(at(UserInvites::CreatedAt).not_null().to_owned())
                .col(at(UserInvites::ExpiresAt).not_null().to_owned())
                .col(at(UserInvites::UsedAt).null().to_owned())
                .to_owned(),
        )
        .await?;
        // One column per statement: SQLite adds one at a time.
        m.alter_table(
            Table::alter()
                .table(AdminSessions::Table)
                .add_column(ColumnDef::new(AdminSessions::UserId).string_len(32).null())
                .to_owned(),
        )
        .await?;
        m.alter_table(
            Table::alter()
                .table(ApiTokens::Table)
                .add_column(ColumnDef::new(ApiTokens::UserId).string_len(32).null())
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("idx_admin_sessions_user")
                .table(AdminSessions::Table)
                .col(AdminSessions::UserId)
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("idx_api_tokens_user")
                .table(ApiTokens::Table)
                .col(ApiTokens::UserId)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(Index::drop().name("idx_api_tokens_user").to_owned())
            .await?;
        m.drop_index(Index::drop().name("idx_admin_sessions_user").to_owned())
            .await?;
        m.alter_table(
            Table::alter()
                .table(ApiTokens::Table)
                .drop_column(ApiTokens::UserId)
                .to_owned(),
        )
        .await?;
        m.alter_table(
            Table::alter()
                .table(AdminSessions::Table)
                .drop_column(AdminSessions::UserId)
                .to_owned(),
        )
        .await?;
        m.drop_table(Table::drop().table(UserInvites::Table).to_owned())
            .await?;
        m.drop_table(Table::drop().table(Users::Table).to_owned())
            .await
    }
}
