//! A person with an account of their own. The break-glass owner account
//! (`KNOTROUTE_CONTROL_ADMIN_PASSWORD`) is not a row here.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "users")]
pub struct Model {
    /// `usr_…`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// The sign-in name (`protocol::users::user_name`): lowercase, unique.
    #[sea_orm(unique)]
    pub name: String,
    /// `owner`, `admin`, `operator` or `viewer`.
    pub role: String,
    /// Argon2id, in PHC form (`$argon2id$v=19$m=…`).
    pub password_hash: Option<String>,
    /// Set while the person is disabled: no sign-in, no session, no token.
    pub disabled_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub last_sign_in_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
