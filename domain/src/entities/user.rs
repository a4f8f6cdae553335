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
    /// The OpenID provider this person signs in through (its issuer URL),
    /// with `oidc_subject`; both `None` for a local account.
    #[serde(default)]
    pub oidc_issuer: Option<String>,
    #[serde(default)]
    pub oidc_subject: Option<String>,
    /// Set while a person who came through single sign-on with no role to
    /// give waits for the owner's approval: no access until then.
    #[serde(default)]
    pub pending_since: Option<DateTimeUtc>,
    /// The role came from the provider's groups (or the default role), so
    /// the next sign-in may change or take it away; `false` once the owner
    /// chose it.
    #[serde(default)]
    pub role_from_sso: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
