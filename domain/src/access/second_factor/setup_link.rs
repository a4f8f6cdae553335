//! What setting up a required second factor takes besides the password.
//!
//! When the owner requires a second factor, a person who has none sets it up
//! as part of signing in. Were the password enough for that, whoever stole
//! it would take the second factor too, and the owner's rule would protect
//! nothing. So setting up needs a one-time *setup link* as well: the owner
//! makes one for the person ([`SecondFactors::setup_link`]) and hands it over
//! as they would an invitation, or the invitation itself counts, right after
//! it is taken up ([`SecondFactors::setup_token_for_newcomer`]). Opening the
//! link leaves its token in a cookie of that browser; the sign-in there sends
//! it along ([`SecondFactors::may_set_up`]), and the set-up, once confirmed,
//! uses it up. Someone with the password alone is refused, and the owner is
//! told (an alert, and the People tab, which lists who still has to set up).

use super::SecondFactors;
use crate::access::principal::Granted;
use crate::access::roles::ManageUsers;
use crate::access::secrets::{new_token, token_hash};
use crate::alerts::settings::{Observation, Place};
use crate::entities::{second_factor_setup_link, user};
use crate::{audit, rfc3339, StoreError};
use chrono::{DateTime, Duration, Utc};
use protocol::second_factor::SetupLink;
use protocol::UserId;
use sea_orm::sea_query::OnConflict;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

/// Where a setup link leads: `<public URL>/two-step-setup/<token>`.
pub const SETUP_PATH: &str = "/two-step-setup/";
/// How long a link the owner makes can be used.
pub const LINK_LIFETIME: Duration = Duration::hours(24);
/// How long the one an invitation gives lasts: the person sets up right
/// after choosing their password.
const NEWCOMER_LIFETIME: Duration = Duration::hours(1);

/// Why a setup link cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum SetupLinkError {
    #[error("no such user")]
    NotFound,
    /// The account signs in without a password of its own (single sign-on).
    #[error("no second factor for this account")]
    NotApplicable,
    #[error("the second factor is already on")]
    AlreadyOn,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl SecondFactors {
    /// A one-time link with which person `id` sets up a second factor at
    /// their next sign-in, for [`LINK_LIFETIME`]. A newer link replaces an
    /// older one.
    pub async fn setup_link(
        &self,
        by: &Granted<ManageUsers>,
        id: &UserId,
    ) -> Result<SetupLink, SetupLinkError> {
        let person = user::Entity::find_by_id(id.as_str())
            .one(&self.db)
            .await?
            .ok_or(SetupLinkError::NotFound)?;
        if person.password_hash.is_none() || person.oidc_subject.is_some() {
            return Err(SetupLinkError::NotApplicable);
        }
        if self
            .factor_of(&person.id)
            .await?
            .is_some_and(|f| f.confirmed_at.is_some())
        {
            return Err(SetupLinkError::AlreadyOn);
        }
        let expires_at = Utc::now() + LINK_LIFETIME;
        let token = store(&self.db, &person.id, expires_at).await?;
        audit::record(
            &self.db,
            &by.actor(),
            "user.second_factor_setup_link",
            &person.name,
            &format!("expires {}", rfc3339(expires_at)),
        )
        .await;
        let path = format!("{SETUP_PATH}{token}");
        let link = match &self.public_url {
            Some(base) => format!("{}{path}", base.as_str().trim_end_matches('/')),
            None => path,
        };
        Ok(SetupLink {
            link,
            expires_at: rfc3339(expires_at),
        })
    }

    /// The setup token of a person who just took up their invitation: the
    /// invitation link was the something beyond the password.
    pub async fn setup_token_for_newcomer(&self, id: &str) -> Result<String, StoreError> {
        store(&self.db, id, Utc::now() + NEWCOMER_LIFETIME).await
    }

    /// Whether `token` is a setup link that can still be used (the page the
    /// link opens asks, before it leaves the token in the browser).
    pub async fn setup_token_usable(&self, token: &str) -> Result<bool, StoreError> {
        Ok(usable(&self.db, token, Utc::now()).await?.is_some())
    }

    /// Whether `person`, whose password was right, may set up the required
    /// second factor now: `token` (from the browser's cookie) is their
    /// unexpired setup link. When not, the owner is told.
    pub(crate) async fn may_set_up(
        &self,
        person: &user::Model,
        token: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        if let Some(token) = token {
            if usable(&self.db, token, now)
                .await?
                .is_some_and(|link| link.user_id == person.id)
            {
                return Ok(true);
            }
        }
        self.tell_owner(person, now).await;
        Ok(false)
    }

    /// Once the second factor is set up, its link is used up.
    pub(crate) async fn use_up_setup_link(
        &self,
        db: &impl ConnectionTrait,
        person: &str,
    ) -> Result<(), StoreError> {
        second_factor_setup_link::Entity::delete_by_id(person)
            .exec(db)
            .await?;
        Ok(())
    }

    /// An alert (when a webhook is set) that a person with the right
    /// password was held back for want of a setup link: once, until their
    /// second factor is set up or reset.
    async fn tell_owner(&self, person: &user::Model, now: DateTime<Utc>) {
        let Some(alerts) = &self.alerts else { return };
        let observation = Observation {
            key: format!("setup:{}", person.id),
            state: "needs_link",
            healthy: "",
            news_when_first: true,
            event: "user.second_factor_setup_needs_link",
            text: format!(
                "{} signed in with the right password but has no second factor yet, as the owner requires: make them a setup link on Settings → People. If they did not just try to sign in, their password is known to someone else.",
                person.name
            ),
            subject: serde_json::json!({"user_id": person.id, "name": person.name}),
            place: Place::default(),
        };
        alerts.observe(vec![observation], now).await;
    }
}

/// Stores a new link for person `user_id` (replacing theirs); its token.
async fn store(
    db: &impl ConnectionTrait,
    user_id: &str,
    expires_at: DateTime<Utc>,
) -> Result<String, StoreError> {
    let token = new_token();
    let row = second_factor_setup_link::ActiveModel {
        user_id: Set(user_id.to_string()),
        token_hash: Set(token_hash(&token)),
        expires_at: Set(expires_at),
    };
    second_factor_setup_link::Entity::insert(row)
        .on_conflict(
            OnConflict::column(second_factor_setup_link::Column::UserId)
                .update_columns([
                    second_factor_setup_link::Column::TokenHash,
                    second_factor_setup_link::Column::ExpiresAt,
                ])
                .to_owned(),
        )
        .exec(db)
        .await?;
    Ok(token)
}

async fn usable(
    db: &impl ConnectionTrait,
    token: &str,
    now: DateTime<Utc>,
) -> Result<Option<second_factor_setup_link::Model>, StoreError> {
    Ok(second_factor_setup_link::Entity::find()
        .filter(second_factor_setup_link::Column::TokenHash.eq(token_hash(token)))
        .filter(second_factor_setup_link::Column::ExpiresAt.gt(now))
        .one(db)
        .await?)
}
