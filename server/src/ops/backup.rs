//! `knotroute-control backup --out FILE`: a consistent snapshot of Control's
//! data while it runs.
//!
//! The file is gzip-compressed JSON lines: a manifest (format, versions, time,
//! row count per table), then one line per row, then an end line with the
//! total. Rows are the entities' own JSON form, the same for both databases
//! (restoring into the other database is intended but not tested yet).
//! Every table is read inside one
//! transaction: PostgreSQL's REPEATABLE READ and SQLite's WAL read snapshot
//! both give the state at one instant, while Agents keep writing.

use super::tables;
use chrono::{DateTime, Utc};
use flate2::{read::GzDecoder, write::GzEncoder, Compression};
use migrations::{Migrator, MigratorTrait};
use sea_orm::{
    AccessMode, ConnectionTrait, DatabaseConnection, DbBackend, DbErr, IsolationLevel,
    TransactionTrait,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

pub const FORMAT: &str = "knotroute-control-backup";
pub const FORMAT_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub format_version: u32,
    /// The Control that wrote it.
    pub control_version: String,
    /// The last database migration applied: rows fit this schema.
    pub schema: String,
    pub created_at: DateTime<Utc>,
    /// `sqlite` or `postgres`: where it was taken (any restores anywhere).
    pub database: String,
    /// Rows per table.
    pub tables: BTreeMap<String, u64>,
}

/// One line of the file.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Line {
    Manifest(Manifest),
    Row {
        table: String,
        row: serde_json::Value,
    },
    End {
        rows: u64,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("cannot write {path}: {reason}")]
    Write { path: String, reason: String },
    #[error(
        "the database has schema {database} but this Control expects {ours}: \
         back up with the Control version that runs on it (or run `knotroute-control migrate` first)"
    )]
    Schema { database: String, ours: String },
    #[error("reading the database failed: {0}")]
    Db(#[from] DbErr),
}

/// The last migration this Control knows: backups carry it, restores compare it.
pub fn current_schema() -> String {
    Migrator::migrations()
        .last()
        .map(|m| m.name().to_string())
        .unwrap_or_default()
}

/// Writes the snapshot to `out` (through a temporary file beside it, renamed
/// at the end, so a failed backup never leaves a truncated file under the
/// name) and returns its manifest.
pub async fn write_backup(db: &DatabaseConnection, out: &Path) -> Result<Manifest, BackupError> {
    let write_error = |reason: String| BackupError::Write {
        path: out.display().to_string(),
        reason,
    };
    let partial = partial_path(out);
    let file = create_private(&partial).map_err(|e| write_error(e.to_string()))?;
    let result = write_snapshot(db, BufWriter::new(file)).await;
    let manifest = match result {
        Ok(m) => m,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(match e {
                SnapshotError::Io(reason) => write_error(reason),
                SnapshotError::Db(e) => BackupError::Db(e),
                SnapshotError::Schema(database) => BackupError::Schema {
                    database,
                    ours: current_schema(),
                },
            });
        }
    };
    std::fs::rename(&partial, out).map_err(|e| write_error(e.to_string()))?;
    Ok(manifest)
}

/// A backup holds the inventory and settings: readable by its owner only.
/// It is always a new file, never one found at `path` (which would keep its
/// mode and owner) nor one a symlink there points at: a stale `.partial` is
/// unlinked first, and if one appears again before creating, this fails.
fn create_private(path: &Path) -> std::io::Result<std::fs::File> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    out.with_file_name(name)
}

enum SnapshotError {
    Io(String),
    Db(DbErr),
    /// The database's last applied migration, when it is not ours.
    Schema(String),
}

impl From<DbErr> for SnapshotError {
    fn from(e: DbErr) -> Self {
        SnapshotError::Db(e)
    }
}

impl From<std::io::Error> for SnapshotError {
    fn from(e: std::io::Error) -> Self {
        SnapshotError::Io(e.to_string())
    }
}

// Only reads, in one snapshot: no write lock to take (domain::begin_write).
#[allow(clippy::disallowed_methods)]
async fn write_snapshot(
    db: &DatabaseConnection,
    file: BufWriter<std::fs::File>,
) -> Result<Manifest, SnapshotError> {
    let backend = db.get_database_backend();
    // SQLite ignores the settings (and sea-orm says so in a warning), its
    // deferred transaction already reads one snapshot in WAL mode.
    let txn = if backend == DbBackend::Postgres {
        db.begin_with_config(
            Some(IsolationLevel::RepeatableRead),
            Some(AccessMode::ReadOnly),
        )
        .await?
    } else {
        db.begin().await?
    };
    let applied = applied_schema(&txn).await?;
    if applied != current_schema() {
        return Err(SnapshotError::Schema(applied));
    }
    let tables = tables::backed_up();
    let mut counts = BTreeMap::new();
    for table in &tables {
        counts.insert(table.name().to_string(), table.count(&txn).await?);
    }
    let manifest = Manifest {
        format: FORMAT.into(),
        format_version: FORMAT_VERSION,
        control_version: crate::VERSION.into(),
        schema: current_schema(),
        created_at: Utc::now(),
        database: match backend {
            DbBackend::Postgres => "postgres",
            _ => "sqlite",
        }
        .into(),
        tables: counts,
    };
    let mut out = GzEncoder::new(file, Compression::default());
    write_line(&mut out, &Line::Manifest(manifest.clone()))?;
    let mut total = 0;
    for table in &tables {
        let name = table.name();
        let mut sink = |row: serde_json::Value| {
            write_line(
                &mut out,
                &Line::Row {
                    table: name.to_string(),
                    row,
                },
            )
            .map_err(|e| DbErr::Custom(format!("{IO_MARK}{e}")))
        };
        total += table.dump(&txn, &mut sink).await.map_err(io_or_db)?;
    }
    write_line(&mut out, &Line::End { rows: total })?;
    txn.commit().await?;
    let mut file = out.finish()?;
    file.flush()?;
    file.into_inner()
        .map_err(|e| SnapshotError::Io(e.to_string()))?
        .sync_all()?;
    Ok(manifest)
}

/// The last migration applied to the database (none: an empty database).
async fn applied_schema(txn: &sea_orm::DatabaseTransaction) -> Result<String, DbErr> {
    let row = txn
        .query_one(sea_orm::Statement::from_string(
            txn.get_database_backend(),
            "SELECT version FROM seaql_migrations ORDER BY version DESC LIMIT 1",
        ))
        .await;
    match row {
        Ok(Some(row)) => row.try_get::<String>("", "version"),
        // No migrations table: nothing was ever migrated here.
        Ok(None) | Err(_) => Ok("none".into()),
    }
}

/// Write errors inside the row sink travel as DbErr::Custom with this prefix,
/// so they are reported as the file's fault rather than the database's.
const IO_MARK: &str = "backup file: ";

fn io_or_db(e: DbErr) -> SnapshotError {
    match e {
        DbErr::Custom(text) if text.starts_with(IO_MARK) => {
            SnapshotError::Io(text[IO_MARK.len()..].to_string())
        }
        other => SnapshotError::Db(other),
    }
}

fn write_line(out: &mut impl Write, line: &Line) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, line)?;
    out.write_all(b"\n")
}

/// Reads a backup file line by line.
pub struct BackupReader {
    lines: std::io::Lines<BufReader<GzDecoder<std::fs::File>>>,
    number: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot open {path}: {reason}")]
    Open { path: String, reason: String },
    #[error("line {line}: {reason}")]
    Line { line: usize, reason: String },
}

impl BackupReader {
    pub fn open(path: &Path) -> Result<Self, ReadError> {
        let file = std::fs::File::open(path).map_err(|e| ReadError::Open {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Ok(BackupReader {
            lines: BufReader::new(GzDecoder::new(file)).lines(),
            number: 0,
        })
    }

    /// The next line, `None` at the end of the file.
    pub fn next_line(&mut self) -> Result<Option<Line>, ReadError> {
        let Some(text) = self.lines.next() else {
            return Ok(None);
        };
        self.number += 1;
        let line = self.number;
        let text = text.map_err(|e| ReadError::Line {
            line,
            reason: format!("not a readable backup (gzip-compressed JSON lines): {e}"),
        })?;
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| ReadError::Line {
                line,
                reason: format!("not a backup line: {e}"),
            })
    }

    pub fn line_number(&self) -> usize {
        self.number
    }
}
