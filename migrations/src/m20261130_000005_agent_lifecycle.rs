//! The agent lifecycle: one-time install tokens, revoked and moved Agents, and
//! desired components with their deployment backoff.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum InstallTokens {
    Table,
    Id,
    TokenHash,
    Name,
    Tags,
    CreatedAt,
    ExpiresAt,
    UsedAt,
    UsedBy,
    RevokedAt,
    ReplacesAgent,
}

#[derive(DeriveIden)]
enum Agents {
    Table,
    Retired,
    MovedTo,
}

#[derive(DeriveIden)]
enum Components {
    Table,
    Spec,
    DeployFailures,
    NextDeployAt,
    DeployError,
}

#[derive(DeriveIden)]
enum Jobs {
    Table,
    AgentId,
    ComponentId,
}

fn nullable_ts(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col)
        .timestamp_with_time_zone()
        .null()
        .to_owned()
}

/// SQLite cannot add several columns in one ALTER TABLE.
async fn add_columns(
    m: &SchemaManager<'_>,
    table: DynIden,
    cols: Vec<ColumnDef>,
) -> Result<(), DbErr> {
    for col in cols {
        m.alter_table(
            Table::alter()
                .table(table.clone())
                .add_column(col)
                .to_owned(),
        )
        .await?;
    }
    Ok(())
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(InstallTokens::Table)
                .col(
                    ColumnDef::new(InstallTokens::Id)
                        .string_len(32)
                        .not_null()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(InstallTokens::TokenHash)
                        .string_len(64)
                        .not_null()
                        .unique_key(),
                )
                .col(
                    ColumnDef::new(InstallTokens::Name)
                        .string_len(320)
                        .not_null()
                        .default(""),
                )
                .col(
                    ColumnDef::new(InstallTokens::Tags)
                        .text()
                        .not_null()
                        .default("[]"),
                )
                .col(
                    ColumnDef::new(InstallTokens::CreatedAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .col(
                    ColumnDef::new(InstallTokens::ExpiresAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .col(nullable_ts(InstallTokens::UsedAt))
                .col(ColumnDef::new(InstallTokens::UsedBy).string_len(64).null())
                .col(nullable_ts(InstallTokens::RevokedAt))
                // Set when the token moves an existing Agent record to a new host.
                .col(
                    ColumnDef::new(InstallTokens::ReplacesAgent)
                        .string_len(64)
                        .null(),
                )
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("install_tokens_created_at")
                .table(InstallTokens::Table)
                .col(InstallTokens::CreatedAt)
                .to_owned(),
        )
        .await?;

        add_columns(
            m,
            Agents::Table.into_iden(),
            vec![
                // '' (active), 'revoked' or 'moved': the key no longer works.
                ColumnDef::new(Agents::Retired)
                    .string_len(16)
                    .not_null()
                    .default("")
                    .to_owned(),
                ColumnDef::new(Agents::MovedTo)
                    .string_len(64)
                    .null()
                    .to_owned(),
            ],
        )
        .await?;
        add_columns(
            m,
            Components::Table.into_iden(),
            vec![
                // The deploy payload (JSON) the admin asked for; '' when not desired.
                ColumnDef::new(Components::Spec)
                    .text()
                    .not_null()
                    .default("")
                    .to_owned(),
                ColumnDef::new(Components::DeployFailures)
                    .integer()
                    .not_null()
                    .default(0)
                    .to_owned(),
                nullable_ts(Components::NextDeployAt),
                ColumnDef::new(Components::DeployError)
                    .string_len(1024)
                    .not_null()
                    .default("")
                    .to_owned(),
            ],
        )
        .await?;
        add_columns(
            m,
            Jobs::Table.into_iden(),
            vec![ColumnDef::new(Jobs::ComponentId)
                .string_len(96)
                .null()
                .to_owned()],
        )
        .await?;
        m.create_index(
            Index::create()
                .name("jobs_agent_component")
                .table(Jobs::Table)
                .col(Jobs::AgentId)
                .col(Jobs::ComponentId)
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(
            Index::drop()
                .name("jobs_agent_component")
                .table(Jobs::Table)
                .to_owned(),
        )
        .await?;
        let drops: [(DynIden, Vec<DynIden>); 3] = [
            (Jobs::Table.into_iden(), vec![Jobs::ComponentId.into_iden()]),
            (
                Components::Table.into_iden(),
                vec![
                    Components::Spec.into_iden(),
                    Components::DeployFailures.into_iden(),
                    Components::NextDeployAt.into_iden(),
                    Components::DeployError.into_iden(),
                ],
            ),
            (
                Agents::Table.into_iden(),
                vec![Agents::Retired.into_iden(), Agents::MovedTo.into_iden()],
            ),
        ];
        for (table, cols) in drops {
            for col in cols {
                m.alter_table(
                    Table::alter()
                        .table(table.clone())
                        .drop_column(col)
                        .to_owned(),
                )
                .await?;
            }
        }
        m.drop_table(Table::drop().table(InstallTokens::Table).to_owned())
            .await?;
        Ok(())
    }
}
