//! Admin sign-in: password check, throttling of failed attempts, and sessions
//! kept in the database (only token hashes) so any replica can serve any admin.

use super::secrets::{new_token, secret_matches, token_hash};
use super::StoreError;
use crate::entities::{admin_session, login_failure};
use chrono::{DateTime, Duration, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, Set,
};

pub const SESSION_LIFETIME: Duration = Duration::hours(12);
pub const FAILURE_WINDOW: Duration = Duration::minutes(10);
pub const MAX_FAILURES: u64 = 8;

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("wrong password")]
    WrongPassword,
    /// Too many failures from this client; it may try again after `retry_after`.
    #[error("too many failed sign-in attempts")]
    Throttled { retry_after: Duration },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for AuthError {
    fn from(e: sea_orm::DbErr) -> Self {
        AuthError::Store(StoreError(e))
    }
}

/// A session just created: the token goes into the cookie and is never stored.
#[derive(Clone)]
pub struct NewSession {
    pub token: String,
    pub expires_at: DateTime<Utc>,
}

impl std::fmt::Debug for NewSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewSession")
            .field("token", &"<redacted>")
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

/// A valid session found from a cookie.
#[derive(Clone, Debug)]
pub struct AdminSession {
    pub expires_at: DateTime<Utc>,
}

#[derive(Clone)]
pub struct AuthService {
    db: DatabaseConnection,
    admin_password: std::sync::Arc<str>,
}

impl AuthService {
    pub fn new(db: DatabaseConnection, admin_password: &str) -> Self {
        Self {
            db,
            admin_password: admin_password.into(),
        }
    }

    /// Checks the password for `client` (its address) and opens a session.
    ///
    /// The attempt is recorded *before* the count, so parallel guesses cannot
    /// all see a count below the limit: the k-th attempt to commit sees at
    /// least k rows. A successful attempt deletes its own row; a refused one
    /// stays for the window. Once over the limit the password is not checked.
    pub async fn sign_in(&self, password: &str, client: &str) -> Result<NewSession, AuthError> {
        let now = Utc::now();
        let attempt = login_failure::ActiveModel {
            client: Set(client.to_string()),
            failed_at: Set(now),
            ..Default::default()
        }
        .insert(&self.db)
        .await?;
        let recent = login_failure::Entity::find()
            .filter(login_failure::Column::Client.eq(client))
            .filter(login_failure::Column::FailedAt.gt(now - FAILURE_WINDOW));
        if recent.clone().count(&self.db).await? > MAX_FAILURES {
            let oldest = recent
                .order_by_asc(login_failure::Column::FailedAt)
                .one(&self.db)
                .await?
                .map(|f| f.failed_at)
                .unwrap_or(now);
            let retry_after = (oldest + FAILURE_WINDOW - now).max(Duration::seconds(1));
            tracing::warn!(client, "admin sign-in refused: too many failed attempts");
            return Err(AuthError::Throttled { retry_after });
        }
        if !secret_matches(password, &self.admin_password) {
            tracing::warn!(client, "admin sign-in failed: wrong password");
            return Err(AuthError::WrongPassword);
        }
        login_failure::Entity::delete_by_id(attempt.id)
            .exec(&self.db)
            .await?;
        let token = new_token();
        let expires_at = now + SESSION_LIFETIME;
        admin_session::ActiveModel {
            token_hash: Set(token_hash(&token)),
            created_at: Set(now),
            expires_at: Set(expires_at),
            client: Set(client.to_string()),
        }
        .insert(&self.db)
        .await?;
        tracing::info!(client, "admin signed in");
        Ok(NewSession { token, expires_at })
    }

    /// The session a cookie token belongs to, if it exists and has not expired.
    pub async fn session(&self, token: &str) -> Result<Option<AdminSession>, AuthError> {
        let found = admin_session::Entity::find_by_id(token_hash(token))
            .filter(admin_session::Column::ExpiresAt.gt(Utc::now()))
            .one(&self.db)
            .await?;
        Ok(found.map(|s| AdminSession {
            expires_at: s.expires_at,
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
        Ok(())
    }
}
