//! The setup checklist of a network.
//!
//! - `beacon_diagnoses`: what the last Diagnose found about each Beacon that
//!   a health check does not: the addresses its name resolved to (to tell
//!   Beacons on one host from Beacons on two) and whether its relay port
//!   accepted a connection. One row per profile and Beacon URL, replaced by
//!   each diagnosis.
//! - `setup_skips`: the steps an admin chose to leave out, per profile.
//! - `invite_opens`: the platforms (as the invite page told them from the
//!   browser) an invite was opened on, one row per invite and platform.
//!
//! The operations policy is a row of `settings`.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum BeaconDiagnoses {
    Table,
    NetworkId,
    Url,
    CheckedAt,
    Addresses,
    Relay,
    RelayDetail,
}

#[derive(DeriveIden)]
enum InviteOpens {
    Table,
    InviteId,
    Platform,
    FirstAt,
}

#[derive(DeriveIden)]
enum SetupSkips {
    Table,
    NetworkId,
    Step,
    SkippedBy,
    SkippedAt,
}

fn at<C: IntoIden>(c: C) -> ColumnDef {
    ColumnDef::new(c)
        .timestamp_with_time_zone()
        .not_null()
        .to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(BeaconDiagnoses::Table)
                .col(
                    ColumnDef::new(BeaconDiagnoses::NetworkId)
                        .string_len(64)
                        .not_null(),
                )
                .col(ColumnDef::new(BeaconDiagnoses::Url).text().not_null())
                .col(at(BeaconDiagnoses::CheckedAt))
                .col(ColumnDef::new(BeaconDiagnoses::Addresses).text().not_null())
                .col(
                    ColumnDef::new(BeaconDiagnoses::Relay)
                        .string_len(16)
                        .not_null(),
                )
                .col(
                    ColumnDef::new(BeaconDiagnoses::RelayDetail)
                        .text()
                        .not_null(),
                )
                .primary_key(
                    Index::create()
                        .col(BeaconDiagnoses::NetworkId)
                        .col(BeaconDiagnoses::Url),
                )
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(SetupSkips::Table)
                .col(
                    ColumnDef::new(SetupSkips::NetworkId)
                        .string_len(64)
                        .not_null(),
                )
                .col(ColumnDef::new(SetupSkips::Step).string_len(32).not_null())
                .col(ColumnDef::new(SetupSkips::SkippedBy).text().not_null())
                .col(at(SetupSkips::SkippedAt))
                .primary_key(
                    Index::create()
                        .col(SetupSkips::NetworkId)
                        .col(SetupSkips::Step),
                )
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(InviteOpens::Table)
                .col(
                    ColumnDef::new(InviteOpens::InviteId)
                        .string_len(64)
                        .not_null(),
                )
                .col(
                    ColumnDef::new(InviteOpens::Platform)
                        .string_len(16)
                        .not_null(),
                )
                .col(at(InviteOpens::FirstAt))
                .primary_key(
                    Index::create()
                        .col(InviteOpens::InviteId)
                        .col(InviteOpens::Platform),
                )
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(InviteOpens::Table).to_owned())
            .await?;
        m.drop_table(Table::drop().table(SetupSkips::Table).to_owned())
            .await?;
        m.drop_table(Table::drop().table(BeaconDiagnoses::Table).to_owned())
            .await
    }
}
