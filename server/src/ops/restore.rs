//! `knotroute-control restore FILE [--force]`: the whole file is checked
//! before anything is written, then every row goes in inside one
//! transaction, so a restore either completes or changes nothing.

use super::backup::{
    current_schema, BackupReader, Line, Manifest, ReadError, FORMAT, FORMAT_VERSION,
};
use super::tables::{self, Table};
use sea_orm::{DatabaseConnection, DbErr};
use std::collections::BTreeMap;
use std::path::Path;

/// Rows buffered per table before they are inserted.
const FLUSH_ROWS: usize = 1000;

#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("{0}")]
    Read(#[from] ReadError),
    #[error("this is not a KnotRoute Control backup: {0}")]
    NotABackup(String),
    #[error(
        "the backup was written by Control {control_version} with database schema {backup}; \
         this Control has schema {ours}. Restore it with the Control version that wrote it, \
         then upgrade"
    )]
    Schema {
        backup: String,
        ours: String,
        control_version: String,
    },
    #[error("line {line}: {reason}")]
    BadRow { line: usize, reason: String },
    #[error("the backup is incomplete (it ends without its end line): it was cut short while being written or copied")]
    Truncated,
    #[error("table {table}: the manifest says {expected} rows but the file holds {found}")]
    CountMismatch {
        table: String,
        expected: u64,
        found: u64,
    },
    #[error(
        "the database is not empty (table {table} has {rows} rows); nothing was changed. \
         Restore into an empty data directory or database, or add --force to replace \
         everything in it"
    )]
    NotEmpty { table: String, rows: u64 },
    #[error("writing the database failed, nothing was changed: {0}")]
    Db(#[from] DbErr),
}

#[derive(Debug)]
pub struct RestoreReport {
    pub manifest: Manifest,
    /// Rows written per table.
    pub restored: BTreeMap<String, u64>,
    /// Whether existing data was replaced (`--force`).
    pub replaced: bool,
}

/// Checks the file, then restores it into `db` (already migrated).
pub async fn restore(
    db: &DatabaseConnection,
    file: &Path,
    force: bool,
) -> Result<RestoreReport, RestoreError> {
    let tables = tables::backed_up();
    let manifest = validate(file, &tables)?;
    let txn = crate::domain::begin_write(db).await?;
    let mut replaced = false;
    for table in &tables {
        let rows = table.count(&txn).await?;
        if rows > 0 && !force {
            return Err(RestoreError::NotEmpty {
                table: table.name().into(),
                rows,
            });
        }
        replaced |= rows > 0;
    }
    if replaced {
        // Children before parents.
        for table in tables.iter().rev() {
            table.clear(&txn).await?;
        }
    }
    let mut reader = BackupReader::open(file)?;
    let mut restored = BTreeMap::new();
    let mut pending: Vec<serde_json::Value> = Vec::new();
    let mut pending_table: Option<&dyn Table> = None;
    while let Some(line) = reader.next_line()? {
        let Line::Row { table, row } = line else {
            continue;
        };
        if pending_table.is_some_and(|t| t.name() != table) || pending.len() >= FLUSH_ROWS {
            flush(&txn, pending_table, &mut pending).await?;
        }
        let target = find(&tables, &table).expect("validated: every row names a known table");
        pending_table = Some(target);
        pending.push(row);
        *restored.entry(table).or_insert(0) += 1;
    }
    flush(&txn, pending_table, &mut pending).await?;
    for table in &tables {
        table.advance_sequence(&txn).await?;
    }
    txn.commit().await?;
    Ok(RestoreReport {
        manifest,
        restored,
        replaced,
    })
}

async fn flush(
    txn: &sea_orm::DatabaseTransaction,
    table: Option<&dyn Table>,
    rows: &mut Vec<serde_json::Value>,
) -> Result<(), DbErr> {
    match table {
        Some(t) if !rows.is_empty() => t.insert(txn, std::mem::take(rows)).await,
        _ => Ok(()),
    }
}

fn find<'a>(tables: &'a [Box<dyn Table>], name: &str) -> Option<&'a dyn Table> {
    tables.iter().find(|t| t.name() == name).map(|t| t.as_ref())
}

/// Reads the whole file: the manifest first, each row's table and shape, the
/// counts against the manifest and the end line.
pub fn validate(file: &Path, tables: &[Box<dyn Table>]) -> Result<Manifest, RestoreError> {
    let mut reader = BackupReader::open(file)?;
    let manifest = match reader.next_line() {
        Ok(Some(Line::Manifest(m))) => m,
        Ok(_) => {
            return Err(RestoreError::NotABackup(
                "it does not start with a manifest".into(),
            ))
        }
        Err(e) => return Err(RestoreError::NotABackup(e.to_string())),
    };
    if manifest.format != FORMAT || manifest.format_version != FORMAT_VERSION {
        return Err(RestoreError::NotABackup(format!(
            "format {} version {} (expected {FORMAT} version {FORMAT_VERSION})",
            manifest.format, manifest.format_version
        )));
    }
    let ours = current_schema();
    if manifest.schema != ours {
        return Err(RestoreError::Schema {
            backup: manifest.schema.clone(),
            ours,
            control_version: manifest.control_version.clone(),
        });
    }
    let mut found: BTreeMap<String, u64> = BTreeMap::new();
    let mut ended = false;
    while let Some(line) = reader.next_line()? {
        let number = reader.line_number();
        match line {
            Line::Row { table, row } => {
                if ended {
                    return Err(RestoreError::BadRow {
                        line: number,
                        reason: "a row after the end line".into(),
                    });
                }
                let target = find(tables, &table).ok_or_else(|| RestoreError::BadRow {
                    line: number,
                    reason: format!("unknown table {table}"),
                })?;
                target.check(&row).map_err(|reason| RestoreError::BadRow {
                    line: number,
                    reason: format!("a row of {table} that does not fit: {reason}"),
                })?;
                *found.entry(table).or_insert(0) += 1;
            }
            Line::End { rows } => {
                let total: u64 = found.values().sum();
                if rows != total {
                    return Err(RestoreError::BadRow {
                        line: number,
                        reason: format!("the end line counts {rows} rows, the file holds {total}"),
                    });
                }
                ended = true;
            }
            Line::Manifest(_) => {
                return Err(RestoreError::BadRow {
                    line: number,
                    reason: "a second manifest".into(),
                })
            }
        }
    }
    if !ended {
        return Err(RestoreError::Truncated);
    }
    for table in tables {
        let name = table.name();
        let expected = manifest.tables.get(name).copied().unwrap_or(0);
        let got = found.get(name).copied().unwrap_or(0);
        if expected != got {
            return Err(RestoreError::CountMismatch {
                table: name.into(),
                expected,
                found: got,
            });
        }
    }
    Ok(manifest)
}
