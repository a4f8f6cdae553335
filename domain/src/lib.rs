//! Domain services: the rules of Control, independent of HTTP, and the
//! entities they store. The UI's server functions (`app`, with `ssr`) and the
//! JSON API (`server`) both call these, so each rule lives here once; being
//! its own crate is what lets `app` call it without depending on `server`.

pub mod access;
pub mod address_policy;
pub mod agents;
pub mod alerts;
pub mod audit;
pub mod backups;
pub mod beacons;
pub mod entities;
pub mod failure;
pub mod identities;
pub mod jobs;
pub mod live;
pub mod log_retention;
pub mod metrics;
pub mod network_names;
pub mod networks;
pub mod onboarding;
pub mod overview;
pub mod policy;
pub mod probes;
pub mod services;
pub mod setup;
pub mod text;

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DbBackend, DbErr, Statement};

/// A time as the API and the screens show it: RFC 3339, UTC, whole seconds.
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Whether a write failed because a unique key already holds that value.
pub fn is_unique_violation(e: &DbErr) -> bool {
    matches!(
        e.sql_err(),
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_))
    )
}

/// A wait that starts at `first` and doubles with each attempt after the
/// first, up to `max`: the backoff of redeployments and of alert deliveries.
pub fn doubling_backoff(
    first: chrono::Duration,
    max: chrono::Duration,
    attempts: i32,
) -> chrono::Duration {
    let doublings = attempts.clamp(1, 16) - 1;
    (first * 2i32.pow(doublings as u32)).min(max)
}

/// Keyset paging: queries fetch `limit + 1` rows; this drops the extra one and
/// returns the cursor (the last kept row's key) when there is a next page.
pub fn split_page<T>(rows: &mut Vec<T>, limit: u64, key: impl Fn(&T) -> String) -> Option<String> {
    if rows.len() as u64 > limit {
        rows.truncate(limit as usize);
        rows.last().map(key)
    } else {
        None
    }
}

/// Rows whose `column` contains `search`, ignoring case: on PostgreSQL by
/// comparing lowercase forms (any letter its locale knows); on SQLite with
/// plain LIKE, whose case folding knows ASCII only (other letters then match
/// as typed, rather than never, as lowercasing one side would make them).
/// `%`, `_` and `\\` in the search are matched literally.
pub fn name_contains<C: sea_orm::ColumnTrait>(
    backend: DbBackend,
    column: C,
    search: &str,
) -> sea_orm::sea_query::SimpleExpr {
    use sea_orm::sea_query::{Expr, Func, LikeExpr};
    let postgres = backend == DbBackend::Postgres;
    let typed = search.trim();
    let typed = if postgres {
        typed.to_lowercase()
    } else {
        typed.to_string()
    };
    let mut pattern = String::from("%");
    for ch in typed.chars() {
        if matches!(ch, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(ch);
    }
    pattern.push('%');
    let like = LikeExpr::new(pattern).escape('\\');
    if postgres {
        Expr::expr(Func::lower(Expr::col(column))).like(like)
    } else {
        Expr::col(column).like(like)
    }
}

/// Keyset paging for lists ordered newest first by `(created_at, id)`: the
/// rows that come after the anchor row (the last one of the previous page).
pub fn older_than<C: sea_orm::ColumnTrait>(
    created_at: C,
    id: C,
    anchor_created_at: DateTime<Utc>,
    anchor_id: String,
) -> sea_orm::Condition {
    sea_orm::Condition::any()
        .add(created_at.lt(anchor_created_at))
        .add(
            sea_orm::Condition::all()
                .add(created_at.eq(anchor_created_at))
                .add(id.lt(anchor_id)),
        )
}

/// The clock Agent liveness and job leases are judged by. On PostgreSQL it is
/// the database's, so every replica writes and reads those times against one
/// clock; the embedded SQLite has one process, whose clock it uses.
pub async fn database_now(db: &impl ConnectionTrait) -> DateTime<Utc> {
    if db.get_database_backend() != DbBackend::Postgres {
        return Utc::now();
    }
    let stmt = Statement::from_string(DbBackend::Postgres, "SELECT now() AS now");
    match db.query_one(stmt).await {
        Ok(Some(row)) => row
            .try_get::<DateTime<Utc>>("", "now")
            .unwrap_or_else(|_| Utc::now()),
        Ok(None) => Utc::now(),
        Err(e) => {
            tracing::warn!(error = %e, "reading the database clock failed; using this replica's");
            Utc::now()
        }
    }
}

/// Begins a transaction that writes. On SQLite it takes the write lock
/// first: a deferred transaction that reads and then writes fails at once
/// with "database is locked" when another connection wrote in between (its
/// read snapshot is stale, and SQLite does not wait out the busy timeout
/// then), which an admin saw as a sporadic 503 while Agents claimed jobs.
/// Locking first makes it wait its turn like a single write. A no-op UPDATE
/// is how to do that through sea-orm, which always sends a plain `BEGIN`.
/// PostgreSQL needs nothing.
pub async fn begin_write(
    db: &sea_orm::DatabaseConnection,
) -> Result<sea_orm::DatabaseTransaction, DbErr> {
    use sea_orm::TransactionTrait;
    #[allow(clippy::disallowed_methods)] // the one place that begins them
    let txn = db.begin().await?;
    if db.get_database_backend() == DbBackend::Sqlite {
        txn.execute_unprepared("UPDATE seaql_migrations SET version = version WHERE 0")
            .await?;
    }
    Ok(txn)
}

/// A database failure, logged in full where it happens and shown to clients only as "internal".
#[derive(Debug, thiserror::Error)]
#[error("database error: {0}")]
pub struct StoreError(#[from] pub DbErr);

/// A database error inside a service is that service's store failure: every
/// service error has a `Store(StoreError)` variant, so `?` on a query works.
macro_rules! store_failures_from_db {
    ($($error:ty),* $(,)?) => {$(
        impl From<DbErr> for $error {
            fn from(e: DbErr) -> Self {
                <$error>::Store(StoreError(e))
            }
        }
    )*};
}
store_failures_from_db!(
    networks::NetworkError,
    jobs::queue::JobError,
    beacons::checks::BeaconError,
    agents::install_tokens::InstallTokenError,
    agents::inventory::InventoryError,
    agents::enrollment::EnrollError,
    agents::requests::AgentAuthError,
    agents::revoked_keys::RevokedKeyError,
    access::sign_in::AuthError,
    access::api_tokens::TokenError,
    access::users::UserError,
    onboarding::invites::InviteError,
    onboarding::invites::OpenError,
    alerts::settings::AlertError,
    access::control_identity::IdentityError,
    access::second_factor::SetupLinkError,
);
