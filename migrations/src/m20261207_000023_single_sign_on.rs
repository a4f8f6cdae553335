//! Single sign-on through OpenID Connect.
//!
//! - `users` gains the provider link (`oidc_issuer`, `oidc_subject`: unique
//!   together, so one provider account is one person), `pending_since` (a
//!   person who signed in through the provider with no role to give waits
//!   for the owner's approval, and has no access meanwhile), and
//!   `role_from_sso` (the role came from the provider's groups or the
//!   default role, so the next sign-in may take it away again; a role the
//!   owner chose stays until the owner changes it).
//! - `oidc_flows`: one row per sign-in begun, keyed by the hash of its
//!   `state`, holding the nonce, the PKCE verifier and where to go after, so
//!   that any replica can finish the callback. A row is deleted when used.
//! - `audit_log.actor` grows to 300 characters: `sso:<issuer>/<subject>`
//!   is longer than the 80 that local names needed (PostgreSQL only; SQLite
//!   does not enforce a length).

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Users {
    Table,
    OidcIssuer,
    OidcSubject,
    PendingSince,
    RoleFromSso,
}

#[derive(DeriveIden)]
enum OidcFlows {
    Table,
    StateHash,
    Nonce,
    PkceVerifier,
    Next,
    CreatedAt,
    ExpiresAt,
}

fn at<C: IntoIden>(c: C) -> ColumnDef {
    ColumnDef::new(c).timestamp_with_time_zone().to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite adds one at a time.
        for column in [
            ColumnDef::new(Users::OidcIssuer)
                .string_len(300)
                .null()
                .to_owned(),
            ColumnDef::new(Users::OidcSubject)
                .string_len(255)
                .null()
                .to_owned(),
            at(Users::PendingSince).null().to_owned(),
            ColumnDef::new(Users::RoleFromSso)
                .boolean()
                .not_null()
                .default(false)
                .to_owned(),
        ] {
            let mut column = column;
            m.alter_table(
                Table::alter()
                    .table(Users::Table)
                    .add_column(&mut column)
                    .to_owned(),
            )
            .await?;
        }
        // NULLs never collide, so local people (no link) are not constrained.
        m.create_index(
            Index::create()
                .name("idx_users_oidc_link")
                .table(Users::Table)
                .col(Users::OidcIssuer)
                .col(Users::OidcSubject)
                .unique()
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(OidcFlows::Table)
                .col(
                    ColumnDef::new(OidcFlows::StateHash)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(ColumnDef::new(OidcFlows::Nonce).string_len(128).not_null())
                .col(
                    ColumnDef::new(OidcFlows::PkceVerifier)
                        .string_len(128)
                        .not_null(),
                )
                .col(ColumnDef::new(OidcFlows::Next).string_len(2048).not_null())
                .col(at(OidcFlows::CreatedAt).not_null().to_owned())
                .col(at(OidcFlows::ExpiresAt).not_null().to_owned())
                .to_owned(),
        )
        .await?;
        if m.get_database_backend() == DbBackend::Postgres {
            m.get_connection()
                .execute_unprepared("ALTER TABLE audit_log ALTER COLUMN actor TYPE varchar(300)")
                .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(OidcFlows::Table).to_owned())
            .await?;
        m.drop_index(Index::drop().name("idx_users_oidc_link").to_owned())
            .await?;
        for column in [
            Users::RoleFromSso,
            Users::PendingSince,
            Users::OidcSubject,
            Users::OidcIssuer,
        ] {
            m.alter_table(
                Table::alter()
                    .table(Users::Table)
                    .drop_column(column)
                    .to_owned(),
            )
            .await?;
        }
        // audit_log.actor stays wide: narrowing could fail on entries written since.
        Ok(())
    }
}
