//! Only someone who may change Control-wide settings points Control at a
//! private address. What Control checks by itself follows who listed it:
//!
//! - `networks.beacons_may_be_private`: the profile's Beacon list was last
//!   changed by such a person, so the scheduled checks may reach private
//!   addresses for it;
//! - `jobs.may_reach_private`: the job was queued by Control or by such a
//!   person, so a Beacon it deploys joins its profile as they would list it.
//!
//! Both are true for what exists already: it was written before the rule.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Networks {
    Table,
    BeaconsMayBePrivate,
}

#[derive(DeriveIden)]
enum Jobs {
    Table,
    MayReachPrivate,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(Networks::Table)
                .add_column(
                    ColumnDef::new(Networks::BeaconsMayBePrivate)
                        .boolean()
                        .not_null()
                        .default(true),
                )
                .to_owned(),
        )
        .await?;
        m.alter_table(
            Table::alter()
                .table(Jobs::Table)
                .add_column(
                    ColumnDef::new(Jobs::MayReachPrivate)
                        .boolean()
                        .not_null()
                        .default(true),
                )
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(Jobs::Table)
                .drop_column(Jobs::MayReachPrivate)
                .to_owned(),
        )
        .await?;
        m.alter_table(
            Table::alter()
                .table(Networks::Table)
                .drop_column(Networks::BeaconsMayBePrivate)
                .to_owned(),
        )
        .await
    }
}
