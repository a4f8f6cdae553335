//! Network profiles, admin sessions, login throttling, and the agent and
//! component inventory that the Overview counts.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Networks {
    Table,
    Id,
    Name,
    Description,
    Beacons,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum AdminSessions {
    Table,
    TokenHash,
    CreatedAt,
    ExpiresAt,
    Client,
}

#[derive(DeriveIden)]
enum LoginFailures {
    Table,
    Id,
    Client,
    FailedAt,
}

#[derive(DeriveIden)]
enum Agents {
    Table,
    Id,
    Name,
    PublicKey,
    Hostname,
    Version,
    Tags,
    Disabled,
    DockerAvailable,
    DockerVersion,
    LastHeartbeatAt,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Components {
    Table,
    Id,
    AgentId,
    ComponentId,
    Kind,
    Name,
    NetworkId,
    Desired,
    Status,
    Service,
    UpdatedAt,
}

fn ts(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col)
        .timestamp_with_time_zone()
        .not_null()
        .to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Networks::Table)
                .col(
                    ColumnDef::new(Networks::Id)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(ColumnDef::new(Networks::Name).string_len(320).not_null())
                .col(ColumnDef::new(Networks::Description).text().not_null())
                .col(ColumnDef::new(Networks::Beacons).text().not_null())
                .col(ts(Networks::CreatedAt))
                .col(ts(Networks::UpdatedAt))
                .to_owned(),
        )
        .await?;
        // Lists are ordered by name, then id (keyset pagination).
        m.create_index(
            Index::create()
                .name("networks_name_id")
                .table(Networks::Table)
                .col(Networks::Name)
                .col(Networks::Id)
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(AdminSessions::Table)
                .col(
                    ColumnDef::new(AdminSessions::TokenHash)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(ts(AdminSessions::CreatedAt))
                .col(ts(AdminSessions::ExpiresAt))
                .col(
                    ColumnDef::new(AdminSessions::Client)
                        .string_len(64)
                        .not_null(),
                )
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("admin_sessions_expires_at")
                .table(AdminSessions::Table)
                .col(AdminSessions::ExpiresAt)
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(LoginFailures::Table)
                .col(
                    ColumnDef::new(LoginFailures::Id)
                        .big_integer()
                        .not_null()
                        .auto_increment()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(LoginFailures::Client)
                        .string_len(64)
                        .not_null(),
                )
                .col(ts(LoginFailures::FailedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("login_failures_client_failed_at")
                .table(LoginFailures::Table)
                .col(LoginFailures::Client)
                .col(LoginFailures::FailedAt)
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(Agents::Table)
                .col(
                    ColumnDef::new(Agents::Id)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(ColumnDef::new(Agents::Name).string_len(320).not_null())
                .col(
                    ColumnDef::new(Agents::PublicKey)
                        .string_len(64)
                        .not_null()
                        .unique_key(),
                )
                .col(
                    ColumnDef::new(Agents::Hostname)
                        .string_len(320)
                        .not_null()
                        .default(""),
                )
                .col(
                    ColumnDef::new(Agents::Version)
                        .string_len(64)
                        .not_null()
                        .default(""),
                )
                .col(ColumnDef::new(Agents::Tags).text().not_null())
                .col(
                    ColumnDef::new(Agents::Disabled)
                        .boolean()
                        .not_null()
                        .default(false),
                )
                .col(
                    ColumnDef::new(Agents::DockerAvailable)
                        .boolean()
                        .not_null()
                        .default(false),
                )
                .col(
                    ColumnDef::new(Agents::DockerVersion)
                        .string_len(128)
                        .not_null()
                        .default(""),
                )
                .col(
                    ColumnDef::new(Agents::LastHeartbeatAt)
                        .timestamp_with_time_zone()
                        .null(),
                )
                .col(ts(Agents::CreatedAt))
                .col(ts(Agents::UpdatedAt))
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(Components::Table)
                .col(
                    ColumnDef::new(Components::Id)
                        .big_integer()
                        .not_null()
                        .auto_increment()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(Components::AgentId)
                        .string_len(64)
                        .not_null(),
                )
                .col(
                    ColumnDef::new(Components::ComponentId)
                        .string_len(96)
                        .not_null(),
                )
                .col(ColumnDef::new(Components::Kind).string_len(16).not_null())
                .col(ColumnDef::new(Components::Name).string_len(320).not_null())
                .col(ColumnDef::new(Components::NetworkId).string_len(64).null())
                .col(
                    ColumnDef::new(Components::Desired)
                        .boolean()
                        .not_null()
                        .default(false),
                )
                .col(
                    ColumnDef::new(Components::Status)
                        .string_len(32)
                        .not_null()
                        .default(""),
                )
                .col(
                    ColumnDef::new(Components::Service)
                        .string_len(320)
                        .not_null()
                        .default(""),
                )
                .col(ts(Components::UpdatedAt))
                .foreign_key(
                    ForeignKey::create()
                        .name("components_agent")
                        .from(Components::Table, Components::AgentId)
                        .to(Agents::Table, Agents::Id)
                        .on_delete(ForeignKeyAction::Cascade),
                )
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("components_agent_component")
                .table(Components::Table)
                .col(Components::AgentId)
                .col(Components::ComponentId)
                .unique()
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            Components::Table.into_iden(),
            Agents::Table.into_iden(),
            LoginFailures::Table.into_iden(),
            AdminSessions::Table.into_iden(),
            Networks::Table.into_iden(),
        ] {
            m.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}
