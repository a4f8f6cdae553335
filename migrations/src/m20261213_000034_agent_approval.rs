//! New Agents wait for approval: `agents.pending` (enrolled, not approved;
//! no jobs, no network), `install_tokens.needs_approval` (a token whose Agent
//! waits too; otherwise the admin who made it approved it) and
//! `revoked_keys.reason` (`revoked`, or `rejected` for a refused newcomer:
//! both stay refused). Agents enrolled before were approved by being there.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Agents {
    Table,
    Pending,
}

#[derive(DeriveIden)]
enum InstallTokens {
    Table,
    NeedsApproval,
}

#[derive(DeriveIden)]
enum RevokedKeys {
    Table,
    Reason,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(Agents::Table)
                .add_column(
                    ColumnDef::new(Agents::Pending)
                        .boolean()
                        .not_null()
                        .default(false),
                )
                .to_owned(),
        )
        .await?;
        m.alter_table(
            Table::alter()
                .table(InstallTokens::Table)
                .add_column(
                    ColumnDef::new(InstallTokens::NeedsApproval)
                        .boolean()
                        .not_null()
                        .default(false),
                )
                .to_owned(),
        )
        .await?;
        m.alter_table(
            Table::alter()
                .table(RevokedKeys::Table)
                .add_column(
                    ColumnDef::new(RevokedKeys::Reason)
                        .string_len(16)
                        .not_null()
                        .default("revoked"),
                )
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for (table, column) in [
            (
                RevokedKeys::Table.into_iden(),
                RevokedKeys::Reason.into_iden(),
            ),
            (
                InstallTokens::Table.into_iden(),
                InstallTokens::NeedsApproval.into_iden(),
            ),
            (Agents::Table.into_iden(), Agents::Pending.into_iden()),
        ] {
            m.alter_table(Table::alter().table(table).drop_column(column).to_owned())
                .await?;
        }
        Ok(())
    }
}
