//! The second step of a person's password sign-in (`sign_in` calls it once
//! the password was right): nothing, a code, or setting up the second factor
//! the owner requires.

use super::{actor_of, wrong_code_field, SecondFactorError, SecondFactors};
use crate::entities::user;
use crate::{audit, StoreError};
use chrono::{DateTime, Utc};
use protocol::second_factor::{Code, Enrollment};
use protocol::FieldError;

/// What a password sign-in needs besides the password
/// ([`SecondFactors::gate`]).
#[derive(Debug)]
pub(crate) enum Gate {
    /// Go ahead; `recovery_codes` are new when the sign-in just set up the
    /// second factor that the owner requires.
    Open { recovery_codes: Vec<String> },
    /// The person has a second factor: send a code with the password.
    AskForCode,
    /// The owner requires one and the person has none yet: add Control to
    /// an authenticator app, then send its first code with the password.
    SetUp(Enrollment),
    /// The owner requires one, the person has none yet, and the sign-in
    /// brought no setup link of theirs: the password alone sets none up.
    NeedsSetupLink,
    /// The code was malformed or wrong; counted like a wrong password.
    Wrong(FieldError),
}

impl SecondFactors {
    /// Setting up, unless it was turned on meanwhile: then a code is asked.
    async fn set_up(&self, person: &user::Model) -> Result<Gate, StoreError> {
        Ok(match self.setup_secret(person).await? {
            Some(enrollment) => Gate::SetUp(enrollment),
            None => Gate::AskForCode,
        })
    }

    /// What person `person`'s password sign-in needs besides the password,
    /// which was right. `code` is what the sign-in form sent, if anything;
    /// `setup` the setup link's token its browser holds (`setup_link`).
    pub(crate) async fn gate(
        &self,
        person: &user::Model,
        code: Option<&str>,
        setup: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Gate, StoreError> {
        let code = code.filter(|c| !c.trim().is_empty());
        let factor = self.factor_of(&person.id).await?;
        if let Some(factor) = factor.filter(|f| f.confirmed_at.is_some()) {
            let Some(raw) = code else {
                return Ok(Gate::AskForCode);
            };
            let code = match Code::parse(raw) {
                Ok(code) => code,
                Err(e) => return Ok(Gate::Wrong(e)),
            };
            if !self.accept(&factor, &code, now).await? {
                return Ok(Gate::Wrong(wrong_code_field()));
            }
            if matches!(code, Code::Recovery(_)) {
                audit::record(
                    &self.db,
                    &actor_of(person),
                    "user.recovery_code_used",
                    &person.name,
                    "signed in with a recovery code",
                )
                .await;
            }
            return Ok(Gate::Open {
                recovery_codes: Vec::new(),
            });
        }
        if !self.required().await? {
            return Ok(Gate::Open {
                recovery_codes: Vec::new(),
            });
        }
        if !self.may_set_up(person, setup, now).await? {
            return Ok(Gate::NeedsSetupLink);
        }
        let Some(raw) = code else {
            return self.set_up(person).await;
        };
        match self.confirm_for(person, raw).await {
            Ok(recovery_codes) => {
                self.use_up_setup_link(&self.db, &person.id).await?;
                Ok(Gate::Open { recovery_codes })
            }
            Err(SecondFactorError::Invalid(mut errors)) => Ok(Gate::Wrong(errors.remove(0))),
            // The setup was never begun (or was reset meanwhile): begin it.
            Err(SecondFactorError::NotOn) => self.set_up(person).await,
            Err(SecondFactorError::Store(e)) => Err(e),
            Err(other) => Err(StoreError(sea_orm::DbErr::Custom(other.to_string()))),
        }
    }
}
