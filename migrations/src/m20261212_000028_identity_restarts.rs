//! "Identities survive restarts": the `.knot` address a sidecar
//! announced before and after each restart its Agent made for a
//! `restart_component` job, one row per restart.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum IdentityRestarts {
    Table,
    Id,
    AgentId,
    ComponentId,
    NetworkId,
    JobId,
    AddressBefore,
    AddressAfter,
    At,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        use IdentityRestarts as R;
        m.create_table(
            Table::create()
                .table(R::Table)
                .col(
                    ColumnDef::new(R::Id)
                        .big_integer()
                        .not_null()
                        .auto_increment()
                        .primary_key(),
                )
                .col(ColumnDef::new(R::AgentId).string_len(64).not_null())
                .col(ColumnDef::new(R::ComponentId).string_len(128).not_null())
                .col(ColumnDef::new(R::NetworkId).string_len(64).null())
                .col(ColumnDef::new(R::JobId).string_len(64).not_null())
                .col(ColumnDef::new(R::AddressBefore).string_len(255).not_null())
                .col(ColumnDef::new(R::AddressAfter).string_len(255).not_null())
                .col(ColumnDef::new(R::At).timestamp_with_time_zone().not_null())
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("identity_restarts_network")
                .table(R::Table)
                .col(R::NetworkId)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(IdentityRestarts::Table).to_owned())
            .await
    }
}
