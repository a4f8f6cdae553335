//! Identity backups: what Agents reported about the archives of
//! their sidecars' `/data` volumes, one row per Agent, sidecar and archive.
//! Only the description: the archives, and the private identities in them,
//! stay on the Agents' hosts. `keep` and `every` are the plan the backup job
//! that took the archive asked for, which the schedule follows;
//! `recorded_at` is Control's clock when it first heard of the archive
//! (`taken_at` is the Agent's).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum IdentityBackups {
    Table,
    AgentId,
    ComponentId,
    Archive,
    NetworkId,
    Directory,
    SizeBytes,
    Sha256,
    TakenAt,
    Address,
    VerifiedAt,
    VerifyError,
    Keep,
    Every,
    RecordedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        use IdentityBackups as B;
        m.create_table(
            Table::create()
                .table(B::Table)
                .col(ColumnDef::new(B::AgentId).string_len(64).not_null())
                .col(ColumnDef::new(B::ComponentId).string_len(128).not_null())
                .col(ColumnDef::new(B::Archive).string_len(32).not_null())
                .col(ColumnDef::new(B::NetworkId).string_len(64).null())
                .col(ColumnDef::new(B::Directory).text().not_null())
                .col(ColumnDef::new(B::SizeBytes).big_integer().not_null())
                .col(ColumnDef::new(B::Sha256).string_len(64).not_null())
                .col(
                    ColumnDef::new(B::TakenAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .col(ColumnDef::new(B::Address).text().not_null())
                .col(
                    ColumnDef::new(B::VerifiedAt)
                        .timestamp_with_time_zone()
                        .null(),
                )
                .col(ColumnDef::new(B::VerifyError).text().not_null())
                .col(ColumnDef::new(B::Keep).integer().not_null())
                .col(ColumnDef::new(B::Every).string_len(8).not_null())
                .col(
                    ColumnDef::new(B::RecordedAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .primary_key(
                    Index::create()
                        .col(B::AgentId)
                        .col(B::ComponentId)
                        .col(B::Archive),
                )
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("identity_backups_network")
                .table(B::Table)
                .col(B::NetworkId)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(IdentityBackups::Table).to_owned())
            .await
    }
}
