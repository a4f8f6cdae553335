//! Control's own signing keys (protocol::control_identity), and what each
//! Agent reports about them: the key it pinned, and answers it refused
//! because that key did not sign them (a server pretending to be Control).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum ControlKeys {
    Table,
    Generation,
    PublicKey,
    PrivateKey,
    CreatedAt,
    RetireAt,
}

#[derive(DeriveIden)]
enum AgentControlTrust {
    Table,
    AgentId,
    PinnedKey,
    PinState,
    RefusedAt,
    RefusedCount,
    RefusedReason,
    RefusedDetail,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Agents {
    Table,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(ControlKeys::Table)
                // 1 for the key made at first start, +1 per rotation: the
                // unique key that makes two replicas starting at once agree.
                .col(
                    ColumnDef::new(ControlKeys::Generation)
                        .big_integer()
                        .not_null()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(ControlKeys::PublicKey)
                        .string_len(64)
                        .not_null()
                        .unique_key(),
                )
                // The 32-byte seed, base64; '' once the key is retired.
                .col(
                    ColumnDef::new(ControlKeys::PrivateKey)
                        .string_len(64)
                        .not_null()
                        .default(""),
                )
                .col(
                    ColumnDef::new(ControlKeys::CreatedAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                // Set on the old key by a rotation: it signs until then.
                .col(ColumnDef::new(ControlKeys::RetireAt).timestamp_with_time_zone())
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(AgentControlTrust::Table)
                .col(
                    ColumnDef::new(AgentControlTrust::AgentId)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(AgentControlTrust::PinnedKey)
                        .string_len(64)
                        .not_null()
                        .default(""),
                )
                // `current`, `previous` (during a rotation), `retired`, `unknown`
                // or '' (no pin), as judged when the pin was reported.
                .col(
                    ColumnDef::new(AgentControlTrust::PinState)
                        .string_len(16)
                        .not_null()
                        .default(""),
                )
                .col(ColumnDef::new(AgentControlTrust::RefusedAt).timestamp_with_time_zone())
                .col(
                    ColumnDef::new(AgentControlTrust::RefusedCount)
                        .big_integer()
                        .not_null()
                        .default(0),
                )
                .col(
                    ColumnDef::new(AgentControlTrust::RefusedReason)
                        .string_len(40)
                        .not_null()
                        .default(""),
                )
                .col(
                    ColumnDef::new(AgentControlTrust::RefusedDetail)
                        .string_len(1024)
                        .not_null()
                        .default(""),
                )
                .col(
                    ColumnDef::new(AgentControlTrust::UpdatedAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .foreign_key(
                    ForeignKey::create()
                        .from(AgentControlTrust::Table, AgentControlTrust::AgentId)
                        .to(Agents::Table, Agents::Id)
                        .on_delete(ForeignKeyAction::Cascade),
                )
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(AgentControlTrust::Table).to_owned())
            .await?;
        m.drop_table(Table::drop().table(ControlKeys::Table).to_owned())
            .await
    }
}
