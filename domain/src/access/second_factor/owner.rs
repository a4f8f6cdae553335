//! What the owner decides about second factors: whether everyone who signs
//! in with a password must have one, and resetting a person's.

use super::{forget, SecondFactorError, SecondFactors, REQUIRED_SETTING};
use crate::access::principal::Granted;
use crate::access::roles::ManageUsers;
use crate::entities::{setting, user};
use crate::{audit, StoreError};
use protocol::UserId;
use sea_orm::EntityTrait;

impl SecondFactors {
    /// Whether the owner requires a second factor of every password sign-in.
    pub async fn required(&self) -> Result<bool, StoreError> {
        Ok(setting::Entity::find_by_id(REQUIRED_SETTING)
            .one(&self.db)
            .await?
            .is_some_and(|s| s.value == "true"))
    }

    /// Requires (or stops requiring) a second factor of everyone who signs in
    /// with a password. Those without one set it up at their next sign-in;
    /// sessions already open stay open.
    pub async fn set_required(
        &self,
        by: &Granted<ManageUsers>,
        required: bool,
    ) -> Result<(), StoreError> {
        setting::put(&self.db, REQUIRED_SETTING, required.to_string()).await?;
        let detail = if required {
            "a second factor is required of every password sign-in"
        } else {
            "a second factor is optional"
        };
        audit::record(
            &self.db,
            &by.actor(),
            "settings.second_factor",
            "people",
            detail,
        )
        .await;
        Ok(())
    }

    /// The owner takes a person's second factor away (a lost phone and no
    /// recovery codes left): their next sign-in needs only the password, or
    /// sets a new one up when the owner requires it.
    pub async fn reset(
        &self,
        by: &Granted<ManageUsers>,
        id: &UserId,
    ) -> Result<(), SecondFactorError> {
        // Without a code, one's own would be a way around it.
        if by.user_id() == Some(id) {
            return Err(SecondFactorError::ResetOwn);
        }
        let person = user::Entity::find_by_id(id.as_str())
            .one(&self.db)
            .await?
            .ok_or(SecondFactorError::NotFound)?;
        let txn = crate::begin_write(&self.db).await?;
        forget(&txn, &person.id).await?;
        audit::record(
            &txn,
            &by.actor(),
            "user.second_factor_reset",
            &person.name,
            "",
        )
        .await;
        txn.commit().await?;
        Ok(())
    }
}
