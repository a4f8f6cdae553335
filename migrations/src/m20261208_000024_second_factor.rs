//! The optional second factor of password sign-ins.
//!
//! - `user_second_factors`: one row per person who began or finished setting
//!   up an authenticator app. `confirmed_at` is NULL until a first code
//!   proved the app has the secret; only then do sign-ins ask for codes.
//!   `last_step` is the 30-second step of the last code accepted, so a code
//!   works once even when two replicas see it at the same moment (the update
//!   is conditional on it).
//! - `user_recovery_codes`: ten single-use codes per person, kept as SHA-256
//!   hashes (50 random bits each, so a slow hash would add nothing that the
//!   sign-in throttle does not already give).
//!
//! Whether the owner requires a second factor is a row of `settings`.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum UserSecondFactors {
    Table,
    UserId,
    Secret,
    CreatedAt,
    ConfirmedAt,
    LastStep,
}

#[derive(DeriveIden)]
enum UserRecoveryCodes {
    Table,
    CodeHash,
    UserId,
    CreatedAt,
    UsedAt,
}

fn at<C: IntoIden>(c: C) -> ColumnDef {
    ColumnDef::new(c).timestamp_with_time_zone().to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(UserSecondFactors::Table)
                .col(
                    ColumnDef::new(UserSecondFactors::UserId)
                        .string_len(32)
                        .not_null()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(UserSecondFactors::Secret)
                        .string_len(64)
                        .not_null(),
                )
                .col(at(UserSecondFactors::CreatedAt).not_null().to_owned())
                .col(at(UserSecondFactors::ConfirmedAt).null().to_owned())
                .col(
                    ColumnDef::new(UserSecondFactors::LastStep)
                        .big_integer()
                        .null(),
                )
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(UserRecoveryCodes::Table)
                .col(
                    ColumnDef::new(UserRecoveryCodes::CodeHash)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(UserRecoveryCodes::UserId)
                        .string_len(32)
                        .not_null(),
                )
                .col(at(UserRecoveryCodes::CreatedAt).not_null().to_owned())
                .col(at(UserRecoveryCodes::UsedAt).null().to_owned())
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("idx_user_recovery_codes_user")
                .table(UserRecoveryCodes::Table)
                .col(UserRecoveryCodes::UserId)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(UserRecoveryCodes::Table).to_owned())
            .await?;
        m.drop_table(Table::drop().table(UserSecondFactors::Table).to_owned())
            .await
    }
}
