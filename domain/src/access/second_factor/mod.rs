//! The optional second factor of a person's password sign-in: an
//! authenticator app (TOTP, `totp-rs`) and ten single-use recovery codes.
//!
//! - A person turns it on in Settings: [`SecondFactors::begin`] keeps a new
//!   secret unconfirmed and shows it as a QR code; the first code the app
//!   gives confirms it ([`SecondFactors::confirm`]) and hands out recovery
//!   codes, shown once (only hashes are kept).
//! - From then on every password sign-in asks for a code
//!   ([`SecondFactors::gate`], called by `sign_in`). A code works once: the
//!   step of the last accepted one is stored, and the update that accepts a
//!   code is conditional on it, so two replicas cannot both accept it.
//! - The owner can require it of everyone who signs in with a password
//!   ([`SecondFactors::set_required`]); a person without one then sets it up
//!   as part of signing in, before any session exists. The owner can also
//!   reset a person's second factor (a lost phone, no recovery codes).
//! - It protects people's own passwords. The break-glass owner password and
//!   single sign-on (whose provider has its own second factors) are not
//!   asked for codes; API tokens are not either (they are secrets of their
//!   own, revocable, and capped at their person).
//!
//! The secret is stored as it is, not hashed: the server must compute the
//! same codes as the app. A copy of the database therefore holds the
//! secrets (SECURITY.md says so); a code alone still needs the password.

mod gate;
mod owner;
mod recovery;
mod setup_link;

pub(crate) use gate::Gate;
pub(super) use recovery::{enabled_among, forget};
use recovery::{new_recovery_codes, recovery_hash};
pub use setup_link::{SetupLinkError, LINK_LIFETIME, SETUP_PATH};

use super::principal::Principal;
use crate::entities::{user, user_recovery_code, user_second_factor};
use crate::{audit, StoreError};
use chrono::{DateTime, Utc};
use data_encoding::BASE32_NOPAD;
use protocol::refusals::Refusal;
use protocol::second_factor::{Code, Enrollment, RecoveryCodes, SecondFactorStatus};
use protocol::{FieldError, Problem};
use rand::RngCore;
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, PaginatorTrait, QueryFilter, Set};
use std::sync::Arc;

/// The `settings` row that holds whether the owner requires a second factor.
const REQUIRED_SETTING: &str = "second_factor_required";
/// Secret bytes: 160 bits, what RFC 4226 recommends.
const SECRET_BYTES: usize = 20;
/// How long a secret being set up is shown again rather than replaced.
const SETUP_KEPT: chrono::Duration = chrono::Duration::minutes(15);

#[derive(Debug, thiserror::Error)]
pub enum SecondFactorError {
    /// The code is malformed or wrong (field `code`).
    #[error("invalid input")]
    Invalid(Vec<FieldError>),
    #[error("no second factor for this account")]
    NotApplicable,
    #[error("the second factor is already on")]
    AlreadyOn,
    #[error("the second factor is not on")]
    NotOn,
    #[error("the owner requires a second factor")]
    Required,
    #[error("one's own second factor is not reset without a code")]
    ResetOwn,
    #[error("no such user")]
    NotFound,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl SecondFactorError {
    /// What the caller is told, as the one catalogue entry for it.
    pub fn refusal(&self) -> Option<Refusal> {
        Some(match self {
            SecondFactorError::NotApplicable => Refusal::SecondFactorNotApplicable,
            SecondFactorError::AlreadyOn => Refusal::SecondFactorAlreadyOn,
            SecondFactorError::NotOn => Refusal::SecondFactorNotOn,
            SecondFactorError::Required => Refusal::SecondFactorRequired,
            SecondFactorError::ResetOwn => Refusal::SecondFactorResetOwn,
            _ => return None,
        })
    }
}

impl From<sea_orm::DbErr> for SecondFactorError {
    fn from(e: sea_orm::DbErr) -> Self {
        SecondFactorError::Store(e.into())
    }
}

/// The `code` field's refusal of a well-formed code that is not accepted.
fn wrong_code_field() -> FieldError {
    FieldError::new(protocol::second_factor::CODE_FIELD, Problem::WrongCode)
}

fn wrong_code() -> SecondFactorError {
    SecondFactorError::Invalid(vec![wrong_code_field()])
}

fn parse(raw: &str) -> Result<Code, SecondFactorError> {
    Code::parse(raw).map_err(|e| SecondFactorError::Invalid(vec![e]))
}

#[derive(Clone)]
pub struct SecondFactors {
    db: DatabaseConnection,
    /// The issuer an authenticator app lists the account under.
    issuer: Arc<str>,
    /// Where setup links lead (`setup_link`); without it, a path.
    public_url: Option<url::Url>,
    /// Told when someone is held back for want of a setup link.
    alerts: Option<crate::alerts::settings::Alerts>,
}

impl SecondFactors {
    /// `public_url`'s host tells two Controls apart in one app.
    pub fn new(db: DatabaseConnection, public_url: Option<&url::Url>) -> Self {
        let issuer = match public_url.and_then(|u| u.host_str()) {
            // A colon would end the issuer in the otpauth label.
            Some(host) => format!("KnotRoute Control ({})", host.replace(':', "")),
            None => "KnotRoute Control".to_string(),
        };
        Self {
            db,
            issuer: issuer.into(),
            public_url: public_url.cloned(),
            alerts: None,
        }
    }

    /// The same, telling `alerts` when a person is held back for want of a
    /// setup link.
    pub fn telling(self, alerts: crate::alerts::settings::Alerts) -> Self {
        Self {
            alerts: Some(alerts),
            ..self
        }
    }

    /// The signed-in person's own second factor, for Settings.
    pub async fn status(&self, who: &Principal) -> Result<SecondFactorStatus, StoreError> {
        let required = self.required().await?;
        let Some(person) = self.person(who).await? else {
            return Ok(SecondFactorStatus {
                required,
                ..Default::default()
            });
        };
        let factor = self.factor_of(&person.id).await?;
        let left = user_recovery_code::Entity::find()
            .filter(user_recovery_code::Column::UserId.eq(person.id.as_str()))
            .filter(user_recovery_code::Column::UsedAt.is_null())
            .count(&self.db)
            .await?;
        Ok(SecondFactorStatus {
            applies: true,
            enabled: factor.is_some_and(|f| f.confirmed_at.is_some()),
            required,
            recovery_codes_left: left as u32,
        })
    }

    /// Begins setting up an authenticator app for the signed-in person: a
    /// new secret, kept unconfirmed until [`Self::confirm`].
    pub async fn begin(&self, who: &Principal) -> Result<Enrollment, SecondFactorError> {
        let person = self.own(who).await?;
        // `None`: it is on already.
        self.setup_secret(&person)
            .await?
            .ok_or(SecondFactorError::AlreadyOn)
    }

    /// Turns the second factor on with the app's first code; the recovery
    /// codes are shown this once.
    pub async fn confirm(
        &self,
        who: &Principal,
        code: &str,
    ) -> Result<RecoveryCodes, SecondFactorError> {
        let person = self.own(who).await?;
        let codes = self.confirm_for(&person, code).await?;
        Ok(RecoveryCodes { codes })
    }

    /// New recovery codes in place of the old ones, given a current code.
    pub async fn renew_recovery_codes(
        &self,
        who: &Principal,
        code: &str,
    ) -> Result<RecoveryCodes, SecondFactorError> {
        let person = self.own(who).await?;
        let factor = self.confirmed(&person.id).await?;
        self.prove(&factor, code).await?;
        let txn = crate::begin_write(&self.db).await?;
        let codes = new_recovery_codes(&txn, &person.id, Utc::now()).await?;
        audit::record(
            &txn,
            &actor_of(&person),
            "user.recovery_codes_renewed",
            &person.name,
            "",
        )
        .await;
        txn.commit().await?;
        Ok(RecoveryCodes { codes })
    }

    /// Turns the signed-in person's second factor off, given a current code,
    /// unless the owner requires one.
    pub async fn turn_off(&self, who: &Principal, code: &str) -> Result<(), SecondFactorError> {
        let person = self.own(who).await?;
        let factor = self.confirmed(&person.id).await?;
        if self.required().await? {
            return Err(SecondFactorError::Required);
        }
        self.prove(&factor, code).await?;
        let txn = crate::begin_write(&self.db).await?;
        forget(&txn, &person.id).await?;
        audit::record(
            &txn,
            &actor_of(&person),
            "user.second_factor_off",
            &person.name,
            "",
        )
        .await;
        txn.commit().await?;
        Ok(())
    }

    /// Accepts `code` (typed) as a current code of `factor`, used up, or
    /// refuses it on the `code` field.
    async fn prove(
        &self,
        factor: &user_second_factor::Model,
        code: &str,
    ) -> Result<(), SecondFactorError> {
        let code = parse(code)?;
        if self.accept(factor, &code, Utc::now()).await? {
            Ok(())
        } else {
            Err(wrong_code())
        }
    }

    /// The person `who` is in a session, when they sign in with a password.
    async fn person(&self, who: &Principal) -> Result<Option<user::Model>, StoreError> {
        let Some(id) = who.person_in_session() else {
            return Ok(None);
        };
        Ok(user::Entity::find_by_id(id.as_str())
            .one(&self.db)
            .await?
            .filter(|row| row.password_hash.is_some() && row.oidc_subject.is_none()))
    }

    /// [`Self::person`], or the refusal for an account with no second factor.
    async fn own(&self, who: &Principal) -> Result<user::Model, SecondFactorError> {
        self.person(who)
            .await?
            .ok_or(SecondFactorError::NotApplicable)
    }

    async fn factor_of(&self, id: &str) -> Result<Option<user_second_factor::Model>, StoreError> {
        Ok(user_second_factor::Entity::find_by_id(id)
            .one(&self.db)
            .await?)
    }

    async fn confirmed(&self, id: &str) -> Result<user_second_factor::Model, SecondFactorError> {
        self.factor_of(id)
            .await?
            .filter(|f| f.confirmed_at.is_some())
            .ok_or(SecondFactorError::NotOn)
    }

    /// The secret `person` is setting up, as the app is shown it: the one
    /// begun in the last [`SETUP_KEPT`], so that a second tab, a repeated
    /// sign-in or a script does not change the QR code just scanned; else a
    /// new one. `None` once the person's second factor is on: a confirmed
    /// secret is never replaced, also not by a request that read the row
    /// before a confirmation committed (the upsert is conditional).
    async fn setup_secret(&self, person: &user::Model) -> Result<Option<Enrollment>, StoreError> {
        let now = Utc::now();
        if let Some(factor) = self.factor_of(&person.id).await? {
            if factor.confirmed_at.is_some() {
                return Ok(None);
            }
            if factor.created_at > now - SETUP_KEPT {
                return Ok(Some(self.enrollment(&factor.secret, &person.name)));
            }
        }
        let mut bytes = [0u8; SECRET_BYTES];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let secret = BASE32_NOPAD.encode(&bytes);
        let row = user_second_factor::ActiveModel {
            user_id: Set(person.id.clone()),
            secret: Set(secret.clone()),
            created_at: Set(now),
            confirmed_at: Set(None),
            last_step: Set(None),
        };
        let written = user_second_factor::Entity::insert(row)
            .on_conflict(
                OnConflict::column(user_second_factor::Column::UserId)
                    .update_columns([
                        user_second_factor::Column::Secret,
                        user_second_factor::Column::CreatedAt,
                        user_second_factor::Column::LastStep,
                    ])
                    .action_and_where(
                        Expr::col((
                            user_second_factor::Entity,
                            user_second_factor::Column::ConfirmedAt,
                        ))
                        .is_null(),
                    )
                    .to_owned(),
            )
            .exec_without_returning(&self.db)
            .await?;
        Ok((written == 1).then(|| self.enrollment(&secret, &person.name)))
    }

    /// What the app needs for `secret`: the QR code, the key, the link.
    fn enrollment(&self, secret: &str, name: &str) -> Enrollment {
        let totp = self.totp(secret, name);
        let otpauth_uri = totp.to_url().expect("issuer and name hold no colon");
        let grouped = secret
            .as_bytes()
            .chunks(4)
            .map(|c| std::str::from_utf8(c).expect("base 32 is ASCII"))
            .collect::<Vec<_>>()
            .join(" ");
        let label = format!("QR code: add {} to an authenticator app", self.issuer);
        Enrollment {
            secret: grouped,
            qr_svg: crate::onboarding::guide::qr_svg(&otpauth_uri, &label).unwrap_or_default(),
            otpauth_uri,
        }
    }

    /// Confirms `person`'s unconfirmed secret with the app's first code.
    async fn confirm_for(
        &self,
        person: &user::Model,
        code: &str,
    ) -> Result<Vec<String>, SecondFactorError> {
        let factor = self
            .factor_of(&person.id)
            .await?
            .ok_or(SecondFactorError::NotOn)?;
        if factor.confirmed_at.is_some() {
            return Err(SecondFactorError::AlreadyOn);
        }
        // Recovery codes do not exist yet: only the app's code proves the
        // app has the secret.
        let Code::Authenticator(digits) = parse(code)? else {
            return Err(wrong_code());
        };
        let now = Utc::now();
        let Some(step) = self.matching_step(&factor, &digits, now) else {
            return Err(wrong_code());
        };
        let txn = crate::begin_write(&self.db).await?;
        // Conditional on the secret still being the one checked and still
        // unconfirmed, so a concurrent begin or confirm cannot be mixed in.
        let confirmed = user_second_factor::Entity::update_many()
            .col_expr(user_second_factor::Column::ConfirmedAt, Expr::value(now))
            .col_expr(user_second_factor::Column::LastStep, Expr::value(step))
            .filter(user_second_factor::Column::UserId.eq(person.id.as_str()))
            .filter(user_second_factor::Column::Secret.eq(factor.secret.as_str()))
            .filter(user_second_factor::Column::ConfirmedAt.is_null())
            .exec(&txn)
            .await?;
        if confirmed.rows_affected != 1 {
            return Err(wrong_code());
        }
        let codes = new_recovery_codes(&txn, &person.id, now).await?;
        audit::record(
            &txn,
            &actor_of(person),
            "user.second_factor_on",
            &person.name,
            "authenticator app",
        )
        .await;
        txn.commit().await?;
        Ok(codes)
    }

    /// Accepts `code` once: an authenticator code of a step after the last
    /// accepted one, or an unused recovery code (used up here).
    async fn accept(
        &self,
        factor: &user_second_factor::Model,
        code: &Code,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let accepted = match code {
            Code::Authenticator(digits) => {
                let Some(step) = self.matching_step(factor, digits, now) else {
                    return Ok(false);
                };
                user_second_factor::Entity::update_many()
                    .col_expr(user_second_factor::Column::LastStep, Expr::value(step))
                    .filter(user_second_factor::Column::UserId.eq(factor.user_id.as_str()))
                    .filter(user_second_factor::Column::Secret.eq(factor.secret.as_str()))
                    .filter(user_second_factor::Column::ConfirmedAt.is_not_null())
                    .filter(
                        user_second_factor::Column::LastStep
                            .is_null()
                            .or(user_second_factor::Column::LastStep.lt(step)),
                    )
                    .exec(&self.db)
                    .await?
            }
            Code::Recovery(normal) => {
                user_recovery_code::Entity::update_many()
                    .col_expr(user_recovery_code::Column::UsedAt, Expr::value(now))
                    .filter(
                        user_recovery_code::Column::CodeHash
                            .eq(recovery_hash(&factor.user_id, normal)),
                    )
                    .filter(user_recovery_code::Column::UserId.eq(factor.user_id.as_str()))
                    .filter(user_recovery_code::Column::UsedAt.is_null())
                    .exec(&self.db)
                    .await?
            }
        };
        Ok(accepted.rows_affected == 1)
    }

    /// The step (of 30 s) whose code `digits` is, within one step either
    /// side of now for clocks that drift.
    fn matching_step(
        &self,
        factor: &user_second_factor::Model,
        digits: &str,
        now: DateTime<Utc>,
    ) -> Option<i64> {
        let totp = self.totp(&factor.secret, "");
        let step = totp.check(digits, u64::try_from(now.timestamp()).ok()?)?;
        i64::try_from(step).ok()
    }

    fn totp(&self, secret: &str, account: &str) -> totp_rs::Totp {
        let bytes = BASE32_NOPAD
            .decode(secret.as_bytes())
            .expect("stored secrets are base 32");
        // SHA-1, 6 digits, 30 s, one step of skew: what every app reads.
        totp_rs::Builder::new()
            .with_secret(bytes)
            .with_account_name(account)
            .with_issuer(Some(self.issuer.as_ref()))
            .build()
            .expect("a 160-bit secret and a name without colons")
    }
}

fn actor_of(person: &user::Model) -> String {
    format!("user:{}", person.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238, appendix B: the SHA-1 vectors (8 digits there; the last six
    /// of them are the 6-digit code, by the same truncation).
    #[test]
    fn codes_are_rfc_6238_sha1_six_digits_thirty_seconds() {
        let db = DatabaseConnection::Disconnected;
        let service = SecondFactors::new(db, None);
        let secret = BASE32_NOPAD.encode(b"12345678901234567890");
        let totp = service.totp(&secret, "anna");
        for (time, eight) in [
            (59u64, "94287082"),
            (1111111109, "07081804"),
            (1234567890, "89005924"),
            (2000000000, "69279037"),
        ] {
            assert_eq!(totp.generate(time).to_string(), eight[2..], "at {time}");
        }
    }

    #[test]
    fn the_qr_code_names_control_and_the_person() {
        let url = url::Url::parse("https://control.example.net:8443/").unwrap();
        let service = SecondFactors::new(DatabaseConnection::Disconnected, Some(&url));
        let totp = service.totp(&BASE32_NOPAD.encode(&[7; 20]), "anna");
        let uri = url::Url::parse(&totp.to_url().unwrap()).unwrap();
        assert_eq!((uri.scheme(), uri.host_str()), ("otpauth", Some("totp")));
        let query: std::collections::HashMap<_, _> = uri.query_pairs().into_owned().collect();
        assert_eq!(query["issuer"], "KnotRoute Control (control.example.net)");
        assert_eq!(query["secret"], BASE32_NOPAD.encode(&[7; 20]));
        assert!(uri.path().ends_with("anna"), "{uri}");
    }
}
