//! Network names are unique, compared without regard to case (single
//! sign-on role maps name networks by them). Profiles that shared a name are
//! renamed first, all but the oldest getting ` (2)`, ` (3)`, …, then a
//! unique index on `lower(name)` guards the rule against two replicas
//! racing. (The service compares with full Unicode case folding, which
//! SQLite's `lower` lacks; the index is its backstop.)

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend, Statement};

#[derive(DeriveMigrationName)]
pub struct Migration;

const NAME_MAX: usize = 80;

/// `wanted`, or the first of `wanted (2)`, `wanted (3)`, … none of `taken`
/// has, compared in lowercase.
fn unused(wanted: &str, taken: &[String]) -> String {
    let folded = |s: &str| s.trim().to_lowercase();
    let is_free = |name: &str| !taken.iter().any(|t| folded(t) == folded(name));
    if is_free(wanted) {
        return wanted.to_string();
    }
    (2..)
        .map(|n| {
            let suffix = format!(" ({n})");
            let keep = NAME_MAX - suffix.chars().count();
            let base: String = wanted.chars().take(keep).collect();
            format!("{}{suffix}", base.trim_end())
        })
        .find(|name| is_free(name))
        .expect("some number is free")
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let db = m.get_connection();
        let backend = db.get_database_backend();
        let rows = db
            .query_all(Statement::from_string(
                backend,
                "SELECT id, name FROM networks ORDER BY created_at, id",
            ))
            .await?;
        let mut kept: Vec<String> = Vec::new();
        for row in rows {
            let id: String = row.try_get("", "id")?;
            let name: String = row.try_get("", "name")?;
            let free = unused(&name, &kept);
            if free != name {
                db.execute(Statement::from_sql_and_values(
                    backend,
                    match backend {
                        DbBackend::Postgres => "UPDATE networks SET name = $1 WHERE id = $2",
                        _ => "UPDATE networks SET name = ? WHERE id = ?",
                    },
                    [free.clone().into(), id.into()],
                ))
                .await?;
            }
            kept.push(free);
        }
        db.execute_unprepared("CREATE UNIQUE INDEX networks_name_folded ON networks (lower(name))")
            .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.get_connection()
            .execute_unprepared("DROP INDEX networks_name_folded")
            .await?;
        Ok(())
    }
}
