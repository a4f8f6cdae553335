//! Monitoring: each Beacon URL's latest check and last failure, hourly
//! latency roll-ups for the 24-hour sparkline (reading raw history for a
//! thousand URLs would be too slow), and webhook alerts — the last state seen
//! of every watched thing, the alerts to deliver, and the settings screen's
//! values.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum BeaconStatus {
    Table,
    NetworkId,
    Url,
    CheckedAt,
    Ok,
    LatencyMs,
    Class,
    Detail,
    FailedAt,
    FailureClass,
    FailureDetail,
}

#[derive(DeriveIden)]
enum BeaconCheckHours {
    Table,
    NetworkId,
    Url,
    Hour,
    Checks,
    Failures,
    LatencySumMs,
    LatencyMaxMs,
}

#[derive(DeriveIden)]
enum AlertStates {
    Table,
    Key,
    State,
    ChangedAt,
}

#[derive(DeriveIden)]
enum Alerts {
    Table,
    Id,
    Key,
    Event,
    State,
    Payload,
    CreatedAt,
    SendAfter,
    Status,
    Attempts,
    LeaseUntil,
    LastError,
    SentAt,
}

#[derive(DeriveIden)]
enum Settings {
    Table,
    Name,
    Value,
    UpdatedAt,
}

fn text(name: impl IntoIden) -> ColumnDef {
    ColumnDef::new(name).text().not_null().to_owned()
}

fn time(name: impl IntoIden) -> ColumnDef {
    ColumnDef::new(name)
        .timestamp_with_time_zone()
        .not_null()
        .to_owned()
}

fn time_or_null(name: impl IntoIden) -> ColumnDef {
    ColumnDef::new(name)
        .timestamp_with_time_zone()
        .null()
        .to_owned()
}

fn int(name: impl IntoIden) -> ColumnDef {
    ColumnDef::new(name).integer().not_null().to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(BeaconStatus::Table)
                .col(text(BeaconStatus::NetworkId))
                .col(text(BeaconStatus::Url))
                .col(time(BeaconStatus::CheckedAt))
                .col(ColumnDef::new(BeaconStatus::Ok).boolean().not_null())
                .col(ColumnDef::new(BeaconStatus::LatencyMs).integer().null())
                .col(text(BeaconStatus::Class))
                .col(text(BeaconStatus::Detail))
                .col(time_or_null(BeaconStatus::FailedAt))
                .col(text(BeaconStatus::FailureClass))
                .col(text(BeaconStatus::FailureDetail))
                .primary_key(
                    Index::create()
                        .col(BeaconStatus::NetworkId)
                        .col(BeaconStatus::Url),
                )
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(BeaconCheckHours::Table)
                .col(text(BeaconCheckHours::NetworkId))
                .col(text(BeaconCheckHours::Url))
                .col(time(BeaconCheckHours::Hour))
                .col(int(BeaconCheckHours::Checks))
                .col(int(BeaconCheckHours::Failures))
                .col(
                    ColumnDef::new(BeaconCheckHours::LatencySumMs)
                        .big_integer()
                        .not_null(),
                )
                .col(int(BeaconCheckHours::LatencyMaxMs))
                .primary_key(
                    Index::create()
                        .col(BeaconCheckHours::NetworkId)
                        .col(BeaconCheckHours::Url)
                        .col(BeaconCheckHours::Hour),
                )
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("beacon_check_hours_hour")
                .table(BeaconCheckHours::Table)
                .col(BeaconCheckHours::Hour)
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(AlertStates::Table)
                .col(text(AlertStates::Key).primary_key())
                .col(text(AlertStates::State))
                .col(time(AlertStates::ChangedAt))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(Alerts::Table)
                .col(
                    ColumnDef::new(Alerts::Id)
                        .big_integer()
                        .not_null()
                        .auto_increment()
                        .primary_key(),
                )
                .col(text(Alerts::Key))
                .col(text(Alerts::Event))
                .col(text(Alerts::State))
                .col(text(Alerts::Payload))
                .col(time(Alerts::CreatedAt))
                .col(time(Alerts::SendAfter))
                .col(ColumnDef::new(Alerts::Status).string_len(16).not_null())
                .col(int(Alerts::Attempts))
                .col(time_or_null(Alerts::LeaseUntil))
                .col(text(Alerts::LastError))
                .col(time_or_null(Alerts::SentAt))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("alerts_key_status")
                .table(Alerts::Table)
                .col(Alerts::Key)
                .col(Alerts::Status)
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("alerts_status_send_after")
                .table(Alerts::Table)
                .col(Alerts::Status)
                .col(Alerts::SendAfter)
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(Settings::Table)
                .col(
                    ColumnDef::new(Settings::Name)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(text(Settings::Value))
                .col(time(Settings::UpdatedAt))
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            Settings::Table.into_iden(),
            Alerts::Table.into_iden(),
            AlertStates::Table.into_iden(),
            BeaconCheckHours::Table.into_iden(),
            BeaconStatus::Table.into_iden(),
        ] {
            m.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}
