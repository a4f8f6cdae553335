//! A person's authenticator app (`access::second_factor`): its secret, and
//! the step of the last code it gave that was accepted.

use sea_orm::entity::prelude::*;

#[derive(Clone, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "user_second_factors")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub user_id: String,
    /// The shared secret in base 32: the app has it, so it cannot be a hash.
    pub secret: String,
    pub created_at: DateTimeUtc,
    /// NULL while set-up waits for a first code; sign-ins ask for codes only
    /// once it is set.
    pub confirmed_at: Option<DateTimeUtc>,
    /// The 30-second step of the last code accepted: no code at or before it
    /// is accepted again.
    pub last_step: Option<i64>,
}

// By hand, so the secret never reaches a log through `{:?}`.
impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserSecondFactor")
            .field("user_id", &self.user_id)
            .field("secret", &"<redacted>")
            .field("confirmed_at", &self.confirmed_at)
            .field("last_step", &self.last_step)
            .finish()
    }
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
