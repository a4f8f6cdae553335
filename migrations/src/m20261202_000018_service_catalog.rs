//! A published service's catalog entry (title, description, tags, category,
//! scheme) on its component, as the admin deployed it: the Services screen
//! shows the title without reading each deploy payload. Existing rows start
//! empty, which means "no entry": the name is shown.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Components {
    Table,
    Title,
    Description,
    Tags,
    Category,
    Scheme,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // SQLite cannot add several columns in one ALTER TABLE. Bounds are the
        // rules' (protocol::catalog) in characters, with room for UTF-8.
        for col in [
            ColumnDef::new(Components::Title)
                .string_len(320)
                .not_null()
                .default("")
                .to_owned(),
            ColumnDef::new(Components::Description)
                .text()
                .not_null()
                .default("")
                .to_owned(),
            // A JSON array of strings, like `warnings`.
            ColumnDef::new(Components::Tags)
                .text()
                .not_null()
                .default("[]")
                .to_owned(),
            ColumnDef::new(Components::Category)
                .string_len(160)
                .not_null()
                .default("")
                .to_owned(),
            ColumnDef::new(Components::Scheme)
                .string_len(8)
                .not_null()
                .default("")
                .to_owned(),
        ] {
            m.alter_table(
                Table::alter()
                    .table(Components::Table)
                    .add_column(col)
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for col in [
            Components::Title,
            Components::Description,
            Components::Tags,
            Components::Category,
            Components::Scheme,
        ] {
            m.alter_table(
                Table::alter()
                    .table(Components::Table)
                    .drop_column(col)
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }
}
