//! The Services screen pages through sidecars by name: an index on
//! (kind, name, id) keeps each page as cheap with 10,000 Agents as with ten.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Components {
    Table,
    Kind,
    Name,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_index(
            Index::create()
                .name("components_kind_name_id")
                .table(Components::Table)
                .col(Components::Kind)
                .col(Components::Name)
                .col(Components::Id)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(
            Index::drop()
                .name("components_kind_name_id")
                .table(Components::Table)
                .to_owned(),
        )
        .await
    }
}
