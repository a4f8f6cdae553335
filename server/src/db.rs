//! Opening the database (embedded SQLite by default, PostgreSQL when
//! configured) and applying the migrations.

use crate::config::DatabaseTarget;
use migrations::{Migrator, MigratorTrait};
use sea_orm::{
    ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DbBackend, DbErr,
    SqlxSqliteConnector, TransactionTrait,
};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum DbSetupError {
    #[error("cannot create the data directory {path}: {reason}")]
    DataDir { path: String, reason: String },
    #[error("cannot open the SQLite database {path}: {reason}")]
    Sqlite { path: String, reason: String },
    #[error("cannot connect to PostgreSQL: {0}")]
    Postgres(String),
    #[error("database migration failed: {0}")]
    Migrate(DbErr),
}

/// Connects to the configured database. SQLite gets WAL mode, foreign keys
/// and a busy timeout on every pooled connection.
pub async fn connect(target: &DatabaseTarget) -> Result<DatabaseConnection, DbSetupError> {
    match target {
        DatabaseTarget::Sqlite(path) => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| DbSetupError::DataDir {
                    path: dir.display().to_string(),
                    reason: e.to_string(),
                })?;
            }
            let options = SqliteConnectOptions::new()
                .filename(path)
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .foreign_keys(true)
                .busy_timeout(Duration::from_secs(10));
            // As PostgreSQL's: a pool that stays busy answers 503 in 10 s, not
            // sqlx's default 30 s, which a browser's timeouts would hit first.
            let pool = SqlitePoolOptions::new()
                .max_connections(8)
                .acquire_timeout(Duration::from_secs(10))
                .connect_with(options)
                .await
                .map_err(|e| DbSetupError::Sqlite {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                })?;
            Ok(SqlxSqliteConnector::from_sqlx_sqlite_pool(pool))
        }
        DatabaseTarget::Postgres(url) => {
            let mut options = ConnectOptions::new(url.expose().to_string());
            // More connections than cores only adds PostgreSQL backends competing
            // for CPU: on the 2-core machine 8 gave the most heartbeats/s
            // (16: 2,346/s, 8: 2,897/s, 6: 2,743/s, 4: 2,337/s; BENCHMARKS.md).
            options
                .max_connections(8)
                .min_connections(1)
                .connect_timeout(Duration::from_secs(10))
                .acquire_timeout(Duration::from_secs(10))
                .sqlx_logging(false);
            // sqlx's error text never includes the password.
            Database::connect(options)
                .await
                .map_err(|e| DbSetupError::Postgres(e.to_string()))
        }
    }
}

/// Applies pending migrations. On PostgreSQL a transaction-scoped advisory
/// lock is held meanwhile, so replicas starting together take turns instead of
/// racing on `CREATE TABLE`; SQLite serialises writers by itself.
pub async fn migrate(db: &DatabaseConnection) -> Result<(), DbSetupError> {
    if db.get_database_backend() != DbBackend::Postgres {
        return Migrator::up(db, None).await.map_err(DbSetupError::Migrate);
    }
    // PostgreSQL only: domain::begin_write's SQLite lock does not apply.
    #[allow(clippy::disallowed_methods)]
    let lock = db.begin().await.map_err(DbSetupError::Migrate)?;
    lock.execute_unprepared(&format!(
        "SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})"
    ))
    .await
    .map_err(DbSetupError::Migrate)?;
    let result = Migrator::up(db, None).await.map_err(DbSetupError::Migrate);
    lock.commit().await.map_err(DbSetupError::Migrate)?;
    result
}

/// Arbitrary, fixed: identifies "KnotRoute Control migrations" among advisory locks.
const MIGRATION_LOCK_KEY: i64 = 0x4b52_4d49_4752;

/// `SELECT 1`, for /readyz.
pub async fn ping(db: &DatabaseConnection) -> bool {
    db.ping().await.is_ok()
}
