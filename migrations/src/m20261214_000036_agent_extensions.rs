//! `agents.extensions`: what the Agent announced it speaks beyond version 1
//! (`X-Knot-Extensions`, protocol::extensions), as the header names them.
//! Empty for an Agent that announced nothing, which then gets version 1
//! only; an Agent of ours announces again with its next request.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Agents {
    Table,
    Extensions,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(Agents::Table)
                .add_column(
                    ColumnDef::new(Agents::Extensions)
                        .string_len(400)
                        .not_null()
                        .default(""),
                )
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(Agents::Table)
                .drop_column(Agents::Extensions)
                .to_owned(),
        )
        .await
    }
}
