//! Admin sign-in: password check, throttling of failed attempts, and sessions
//! kept in the database (only token hashes) so any replica can serve any admin.
//!
//! Throttling, and why it cannot lock the admin out: failures are counted per
//! *key* in the database (shared by replicas); past [`MAX_FAILURES`] in
//! [`FAILURE_WINDOW`] a key's attempts are refused (429, `Retry-After`)
//! without the password being looked at, so guessing stays at 8 per 10
//! minutes per key. The key is the client address, except for a browser the
//! admin signed in with before: it carries a known-browser token (cookie
//! `kr_device`, stored here as a hash) and has a budget of its own. Behind a
//! proxy that is not trusted every visitor shares one address, and whoever
//! guesses there can only exhaust the address's budget, never a known
//! browser's: the admin's own browser gets its password checked at once,
//! however long the guessing goes on. A browser new to Control cannot be told
//! apart from the guesser by anything but the password, and checking the
//! password of every attempt would make guessing fast; by the password alone
//! it waits until the address's window has passed. Refused attempts are not
//! stored, so they neither extend that wait (at most [`FAILURE_WINDOW`] after
//! the last checked failure) nor fill the table. So that this wait never
//! lasts as long as the guessing does, whoever runs the server can make any
//! browser a known one at once: `knotroute-control trust-browser` prints a
//! one-time link ([`AdminSessions::issue_browser_link`]) whose page hands that
//! browser its own mark, and with it its own budget.
//!
//! Budgets also bound the guesses at one *account*. Anyone with an account
//! can mint known-browser marks by signing in, each with a budget of its
//! own; so every attempt at an account also counts against that account's
//! budget, whatever browser or address it comes from, unless it comes from
//! a browser that signed in to that very account before (its mark is bound
//! to the account it last signed in as; one a trust-browser link made counts
//! for every account until it signs in to one). Guessing another person's (or the
//! break-glass owner's) password thus stays at [`MAX_FAILURES`] per window
//! in all, while the person's own browser is never held back by it.

use crate::access::principal::Principal;
use crate::access::second_factor::{Gate, SecondFactors};
use crate::access::secrets::{new_token, secret_matches, token_hash};
use crate::access::users::Users;
use crate::entities::{admin_session, login_failure, signin_device};
use crate::StoreError;
use chrono::{DateTime, Duration, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, Set,
};

pub const SESSION_LIFETIME: Duration = Duration::hours(12);
pub const FAILURE_WINDOW: Duration = Duration::minutes(10);
pub const MAX_FAILURES: u64 = 8;
/// How long a browser stays known after it signed in again with its mark.
pub const DEVICE_LIFETIME: Duration = Duration::days(90);
/// How long a mark just handed out is kept if it never comes back: a script
/// that signs in without keeping cookies adds one each time, and these must
/// neither pile up nor push out the admin's own browser (nothing is evicted
/// by count; every mark lives by its own expiry).
pub const NEW_DEVICE_LIFETIME: Duration = Duration::days(14);
/// How long a link from `knotroute-control trust-browser` can be used (once).
pub const BROWSER_LINK_LIFETIME: Duration = Duration::minutes(15);

/// What the throttle counts an account's failures under: its sign-in name
/// as the sign-in compares it (trimmed, lowercase; empty for the
/// break-glass owner), hashed to fit the column whatever was typed.
const ACCOUNT_KEY: &str = "account:";

/// What a mark from a trust-browser link is bound to: whoever runs the
/// server made that browser known, for every account (until it signs in to
/// one, and is bound to that one).
const ANY_ACCOUNT: &str = "*";

fn account_key(name: &str) -> String {
    let name = name.trim().to_ascii_lowercase();
    format!(
        "{ACCOUNT_KEY}{}",
        &token_hash(&format!("account:{name}"))[..24]
    )
}

/// A trust-browser link's token is stored among the marks, hashed with a
/// prefix: the link is never itself a mark (a cookie with its value opens
/// nothing), and unused links expire and are pruned with them.
fn browser_link_hash(token: &str) -> String {
    token_hash(&format!("browser-link:{token}"))
}

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// A wrong password, or a name nobody enabled has: the two are not told
    /// apart, so answers do not reveal which names exist.
    #[error("wrong name or password")]
    WrongPassword,
    /// Too many failures from this client; it may try again after `retry_after`.
    #[error("too many failed sign-in attempts")]
    Throttled { retry_after: Duration },
    /// The password was right and the person has a second factor: send it
    /// again with a code (`Credentials::code`).
    #[error("a code from the authenticator app is needed")]
    CodeNeeded,
    /// The password was right but the code malformed or wrong; counted like
    /// a wrong password.
    #[error("wrong code")]
    WrongCode(protocol::FieldError),
    /// The password was right, the owner requires a second factor and the
    /// person has none: add Control to an authenticator app with this, then
    /// send the password again with the app's first code.
    #[error("a second factor must be set up first")]
    SetUpSecondFactor(Box<protocol::second_factor::Enrollment>),
    /// As [`AuthError::SetUpSecondFactor`], but the sign-in brought no setup
    /// link: the password alone does not set one up.
    #[error("setting up the second factor needs a setup link")]
    SetupNeedsLink,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A session just created: the token goes into the cookie and is never stored.
#[derive(Clone)]
pub struct NewSession {
    pub token: String,
    pub expires_at: DateTime<Utc>,
    /// The known-browser token for the `kr_device` cookie: a new one, or the
    /// one the browser presented, whose lifetime this sign-in extended.
    pub new_device: Option<String>,
    /// Recovery codes, when this sign-in set up the person's second factor
    /// (shown once; only their hashes are kept).
    pub recovery_codes: Vec<String>,
}

impl std::fmt::Debug for NewSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewSession")
            .field("token", &"<redacted>")
            .field("expires_at", &self.expires_at)
            .field(
                "new_device",
                &self.new_device.as_ref().map(|_| "<redacted>"),
            )
            .field("recovery_codes", &self.recovery_codes.len())
            .finish()
    }
}

/// Who a sign-in attempt comes from.
#[derive(Clone, Copy, Debug)]
pub struct Attempt<'a> {
    /// The client address (`http::extract::client_address`).
    pub client: &'a str,
    /// The known-browser token its `kr_device` cookie carried, if any.
    pub device: Option<&'a str>,
}

/// What a sign-in form sends.
#[derive(Clone, Copy)]
pub struct Credentials<'a> {
    /// A person's name; empty for the break-glass owner account.
    pub name: &'a str,
    pub password: &'a str,
    /// The authenticator's code or a recovery code, for a person with a
    /// second factor (`second_factor`); ignored otherwise.
    pub code: Option<&'a str>,
    /// The token of a second-factor setup link the browser holds
    /// (`second_factor::setup_link`): setting up a required second factor
    /// needs it besides the password.
    pub setup: Option<&'a str>,
}

/// A valid session found from a cookie, and who it acts as now.
#[derive(Clone, Debug)]
pub struct AdminSession {
    pub expires_at: DateTime<Utc>,
    pub principal: Principal,
}

#[derive(Clone)]
pub struct AdminSessions {
    db: DatabaseConnection,
    admin_password: std::sync::Arc<str>,
    users: Users,
    second_factors: SecondFactors,
}

impl AdminSessions {
    pub fn new(
        db: DatabaseConnection,
        admin_password: &str,
        users: Users,
        second_factors: SecondFactors,
    ) -> Self {
        Self {
            db,
            admin_password: admin_password.into(),
            users,
            second_factors,
        }
    }

    /// Checks the password and opens a session, unless the attempt's key
    /// (module docs) has failed too often.
    ///
    /// The attempt is recorded *before* the count, so parallel guesses cannot
    /// all see a count below the limit: the k-th attempt to commit sees at
    /// least k rows. A successful attempt deletes its own row, and so does a
    /// refused one (it was never checked, and must not prolong the lock); a
    /// wrong password's row stays for the window.
    ///
    /// The key is per address or browser, so trying many names is no faster
    /// than trying one; and per account too (module docs), so many browsers
    /// are no faster against one account than one browser.
    pub async fn sign_in(
        &self,
        credentials: Credentials<'_>,
        from: Attempt<'_>,
    ) -> Result<NewSession, AuthError> {
        let now = Utc::now();
        let client = from.client;
        let account = account_key(credentials.name);
        let mark = match from.device {
            Some(token) => self.known_device(token, now).await?.map(|d| (token, d)),
            None => None,
        };
        let device = mark.as_ref().map(|(token, _)| *token);
        let key = match device {
            Some(token) => format!("device:{}", &token_hash(token)[..24]),
            None => client.to_string(),
        };
        // A browser that signed in to this account before is the account
        // holder's own: the account's budget, which others' guesses use up,
        // does not hold it back.
        let own_browser = mark.as_ref().is_some_and(
            |(_, d)| matches!(d.account.as_deref(), Some(a) if a == account || a == ANY_ACCOUNT),
        );
        let mut keys = vec![key];
        if !own_browser {
            keys.push(account.clone());
        }
        let mut attempts = Vec::new();
        for key in &keys {
            attempts.push(
                login_failure::ActiveModel {
                    client: Set(key.clone()),
                    failed_at: Set(now),
                    ..Default::default()
                }
                .insert(&self.db)
                .await?
                .id,
            );
        }
        let forget_attempts = || async {
            login_failure::Entity::delete_many()
                .filter(login_failure::Column::Id.is_in(attempts.clone()))
                .exec(&self.db)
                .await?;
            Ok::<_, AuthError>(())
        };
        // This attempt's own rows count: more than the limit refuses it.
        for key in &keys {
            if let Some(retry_after) = self.locked_out(key, MAX_FAILURES + 1, now).await? {
                forget_attempts().await?;
                tracing::warn!(
                    client,
                    known_browser = device.is_some(),
                    per_account = key.starts_with(ACCOUNT_KEY),
                    "admin sign-in refused: too many failed attempts"
                );
                return Err(AuthError::Throttled { retry_after });
            }
        }
        let person = match credentials.name.trim() {
            "" => secret_matches(credentials.password, &self.admin_password).then_some(None),
            name => self
                .users
                .check_password(name, credentials.password)
                .await?
                .map(Some),
        };
        let Some(person) = person else {
            tracing::warn!(
                client,
                known_browser = device.is_some(),
                "admin sign-in failed: wrong name or password"
            );
            return Err(AuthError::WrongPassword);
        };
        let mut recovery_codes = Vec::new();
        if let Some(person) = &person {
            match self
                .second_step(person, credentials.code, credentials.setup, now)
                .await
            {
                Ok(codes) => recovery_codes = codes,
                // A wrong code keeps the attempt's row: it counts as a failure.
                Err(e @ AuthError::WrongCode(_)) => {
                    tracing::warn!(
                        client,
                        user = person.id.as_str(),
                        "admin sign-in failed: wrong code"
                    );
                    return Err(e);
                }
                Err(e) => {
                    forget_attempts().await?;
                    return Err(e);
                }
            }
        }
        let user_id = person.map(|p| p.id);
        forget_attempts().await?;
        let new_device = match device {
            Some(token) => {
                self.extend_device(token, &account, now).await?;
                // Sent again so the cookie lives as long as the record.
                Some(token.to_string())
            }
            None => Some(self.remember_device(Some(&account), now).await?),
        };
        let mut session = self.open(user_id.clone(), client, now, new_device).await?;
        session.recovery_codes = recovery_codes;
        match &user_id {
            Some(id) => {
                self.users.signed_in(id, now).await?;
                tracing::info!(client, user = id.as_str(), "person signed in");
            }
            None => tracing::info!(client, "owner signed in with the break-glass password"),
        }
        Ok(session)
    }

    /// The second step of person `person`'s sign-in, whose password was
    /// right: nothing, a code, or setting up the second factor the owner
    /// requires (whose recovery codes are returned). Wrong codes are also
    /// counted per person, so that someone who has the password cannot try
    /// codes from many addresses at once.
    async fn second_step(
        &self,
        person: &crate::entities::user::Model,
        code: Option<&str>,
        setup: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Vec<String>, AuthError> {
        let key = format!("code:{}", person.id);
        // As for addresses, the attempt is written before the count, so
        // guesses sent in parallel from many addresses all see each other.
        let attempt = match code {
            Some(_) => Some(
                login_failure::ActiveModel {
                    client: Set(key.clone()),
                    failed_at: Set(now),
                    ..Default::default()
                }
                .insert(&self.db)
                .await?,
            ),
            None => None,
        };
        let forget_attempt = || async {
            if let Some(attempt) = &attempt {
                login_failure::Entity::delete_by_id(attempt.id)
                    .exec(&self.db)
                    .await?;
            }
            Ok::<_, AuthError>(())
        };
        if attempt.is_some() {
            if let Some(retry_after) = self.locked_out(&key, MAX_FAILURES + 1, now).await? {
                forget_attempt().await?;
                tracing::warn!(
                    user = person.id.as_str(),
                    "sign-in code refused: too many wrong codes"
                );
                return Err(AuthError::Throttled { retry_after });
            }
        }
        let gate = self.second_factors.gate(person, code, setup, now).await?;
        // Only a wrong code keeps its row: it counts as a failure.
        if !matches!(gate, Gate::Wrong(_)) {
            forget_attempt().await?;
        }
        match gate {
            Gate::Open { recovery_codes } => Ok(recovery_codes),
            Gate::AskForCode => Err(AuthError::CodeNeeded),
            Gate::SetUp(enrollment) => Err(AuthError::SetUpSecondFactor(Box::new(enrollment))),
            Gate::NeedsSetupLink => Err(AuthError::SetupNeedsLink),
            Gate::Wrong(error) => Err(AuthError::WrongCode(error)),
        }
    }

    /// How long throttle key `key` must wait when it has `limit` or more
    /// failures in the window: until its oldest one leaves the window.
    async fn locked_out(
        &self,
        key: &str,
        limit: u64,
        now: DateTime<Utc>,
    ) -> Result<Option<Duration>, AuthError> {
        let recent = login_failure::Entity::find()
            .filter(login_failure::Column::Client.eq(key))
            .filter(login_failure::Column::FailedAt.gt(now - FAILURE_WINDOW));
        if recent.clone().count(&self.db).await? < limit {
            return Ok(None);
        }
        let oldest = recent
            .order_by_asc(login_failure::Column::FailedAt)
            .one(&self.db)
            .await?
            .map(|f| f.failed_at)
            .unwrap_or(now);
        Ok(Some(
            (oldest + FAILURE_WINDOW - now).max(Duration::seconds(1)),
        ))
    }

    /// Opens a session for person `id`, whose identity the OpenID provider
    /// proved (`access::sso`): no password, so no throttle or browser mark.
    pub(crate) async fn open_for_person(
        &self,
        id: &protocol::UserId,
        client: &str,
    ) -> Result<NewSession, AuthError> {
        let now = Utc::now();
        let session = self.open(Some(id.to_string()), client, now, None).await?;
        self.users.signed_in(id.as_str(), now).await?;
        Ok(session)
    }

    /// A new session row (only its token's hash is stored).
    async fn open(
        &self,
        user_id: Option<String>,
        client: &str,
        now: DateTime<Utc>,
        new_device: Option<String>,
    ) -> Result<NewSession, AuthError> {
        let token = new_token();
        let expires_at = now + SESSION_LIFETIME;
        admin_session::ActiveModel {
            token_hash: Set(token_hash(&token)),
            created_at: Set(now),
            expires_at: Set(expires_at),
            client: Set(client.to_string()),
            user_id: Set(user_id),
        }
        .insert(&self.db)
        .await?;
        Ok(NewSession {
            token,
            expires_at,
            new_device,
            recovery_codes: Vec::new(),
        })
    }

    async fn known_device(
        &self,
        token: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<signin_device::Model>, AuthError> {
        Ok(signin_device::Entity::find_by_id(token_hash(token))
            .filter(signin_device::Column::ExpiresAt.gt(now))
            .one(&self.db)
            .await?)
    }

    /// Stores a new known-browser token (its hash), kept for
    /// [`NEW_DEVICE_LIFETIME`] unless it comes back, bound to the account
    /// (`account_key`) it just signed in to, if any.
    async fn remember_device(
        &self,
        account: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<String, AuthError> {
        let token = new_token();
        signin_device::ActiveModel {
            token_hash: Set(token_hash(&token)),
            created_at: Set(now),
            expires_at: Set(now + NEW_DEVICE_LIFETIME),
            account: Set(account.map(str::to_string)),
        }
        .insert(&self.db)
        .await?;
        Ok(token)
    }

    /// A mark that came back with a correct password stays known for
    /// [`DEVICE_LIFETIME`] from now, bound to the account it signed in to.
    async fn extend_device(
        &self,
        token: &str,
        account: &str,
        now: DateTime<Utc>,
    ) -> Result<(), AuthError> {
        signin_device::Entity::update_many()
            .col_expr(
                signin_device::Column::ExpiresAt,
                sea_orm::sea_query::Expr::value(now + DEVICE_LIFETIME),
            )
            .col_expr(
                signin_device::Column::Account,
                sea_orm::sea_query::Expr::value(account),
            )
            .filter(signin_device::Column::TokenHash.eq(token_hash(token)))
            .exec(&self.db)
            .await?;
        Ok(())
    }

    /// A one-time token for a trust-browser link, valid for
    /// [`BROWSER_LINK_LIFETIME`] (only its hash is stored).
    pub async fn issue_browser_link(&self) -> Result<String, AuthError> {
        let now = Utc::now();
        let token = new_token();
        signin_device::ActiveModel {
            token_hash: Set(browser_link_hash(&token)),
            created_at: Set(now),
            expires_at: Set(now + BROWSER_LINK_LIFETIME),
            account: Set(None),
        }
        .insert(&self.db)
        .await?;
        tracing::info!("trust-browser link issued");
        Ok(token)
    }

    /// Uses up a trust-browser link: a new known-browser mark for the browser
    /// that opened it, or `None` when the link is unknown, expired or used
    /// (deleting the row is what makes it one-time, also across replicas).
    pub async fn claim_browser_link(&self, token: &str) -> Result<Option<String>, AuthError> {
        let now = Utc::now();
        let claimed = signin_device::Entity::delete_many()
            .filter(signin_device::Column::TokenHash.eq(browser_link_hash(token)))
            .filter(signin_device::Column::ExpiresAt.gt(now))
            .exec(&self.db)
            .await?;
        if claimed.rows_affected != 1 {
            return Ok(None);
        }
        tracing::info!("trust-browser link used: a browser was made known");
        Ok(Some(self.remember_device(Some(ANY_ACCOUNT), now).await?))
    }

    /// The session a cookie token belongs to, if it exists and has not
    /// expired, with who it acts as now: a person's current role, read on
    /// every request; a disabled or deleted person's session is no session.
    pub async fn session(&self, token: &str) -> Result<Option<AdminSession>, AuthError> {
        let Some(found) = admin_session::Entity::find_by_id(token_hash(token))
            .filter(admin_session::Column::ExpiresAt.gt(Utc::now()))
            .one(&self.db)
            .await?
        else {
            return Ok(None);
        };
        let principal = match &found.user_id {
            None => Some(Principal::owner()),
            Some(id) => self.users.principal(id).await?,
        };
        Ok(principal.map(|principal| AdminSession {
            expires_at: found.expires_at,
            principal,
        }))
    }

    pub async fn sign_out(&self, token: &str) -> Result<(), AuthError> {
        admin_session::Entity::delete_by_id(token_hash(token))
            .exec(&self.db)
            .await?;
        Ok(())
    }

    /// Deletes expired sessions and failures older than the throttle window.
    pub async fn prune(&self) -> Result<(), AuthError> {
        let now = Utc::now();
        admin_session::Entity::delete_many()
            .filter(admin_session::Column::ExpiresAt.lte(now))
            .exec(&self.db)
            .await?;
        login_failure::Entity::delete_many()
            .filter(login_failure::Column::FailedAt.lte(now - FAILURE_WINDOW))
            .exec(&self.db)
            .await?;
        signin_device::Entity::delete_many()
            .filter(signin_device::Column::ExpiresAt.lte(now))
            .exec(&self.db)
            .await?;
        Ok(())
    }
}
