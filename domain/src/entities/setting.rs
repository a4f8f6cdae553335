//! A value set on the settings screen (e.g. the alert webhook URL).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "settings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub name: String,
    pub value: String,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

/// Sets setting `name` to `value`, adding its row if there is none.
pub async fn put(db: &impl ConnectionTrait, name: &str, value: String) -> Result<(), DbErr> {
    use sea_orm::sea_query::OnConflict;
    let row = ActiveModel {
        name: sea_orm::Set(name.to_string()),
        value: sea_orm::Set(value),
        updated_at: sea_orm::Set(chrono::Utc::now()),
    };
    Entity::insert(row)
        .on_conflict(
            OnConflict::column(Column::Name)
                .update_columns([Column::Value, Column::UpdatedAt])
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    Ok(())
}
