//! Operator commands that work on the database without serving:
//! `migrate`, `backup`, `restore`, `import-state`, `trust-browser` and `identity`. Each needs only the
//! database settings, not the secrets, and prints what it did.

pub mod backup;
pub mod import_state;
pub mod restore;
mod tables;

use crate::config::{Command, Settings};
use crate::db;
use std::process::ExitCode;

/// Runs a command other than `serve`.
pub async fn run(command: &Command, settings: &Settings) -> ExitCode {
    let target = match settings.database() {
        Ok(t) => t,
        Err(e) => return fail(2, e),
    };
    let conn = match db::connect(&target).await {
        Ok(c) => c,
        Err(e) => return fail(1, e),
    };
    // A backup reads the schema the running Control uses; every other command
    // brings the database up to date first.
    if !matches!(command, Command::Backup { .. }) {
        if let Err(e) = db::migrate(&conn).await {
            return fail(1, e);
        }
    }
    match command {
        Command::Serve | Command::PrecompressBatches => {
            unreachable!("main runs these itself: neither needs the database")
        }
        Command::Migrate => {
            println!("knotroute-control: database is up to date");
            ExitCode::SUCCESS
        }
        Command::Backup { out } => match backup::write_backup(&conn, out).await {
            Ok(m) => {
                println!(
                    "knotroute-control: wrote {} ({} rows, schema {}, taken {})",
                    out.display(),
                    m.tables.values().sum::<u64>(),
                    m.schema,
                    m.created_at.to_rfc3339()
                );
                print_counts(&m.tables);
                ExitCode::SUCCESS
            }
            Err(e) => fail(1, e),
        },
        Command::Restore { file, force } => match restore::restore(&conn, file, *force).await {
            Ok(r) => {
                println!(
                    "knotroute-control: restored {} ({} rows from a backup taken {} by Control {}){}",
                    file.display(),
                    r.restored.values().sum::<u64>(),
                    r.manifest.created_at.to_rfc3339(),
                    r.manifest.control_version,
                    if r.replaced { ", replacing the data that was there" } else { "" }
                );
                print_counts(&r.manifest.tables);
                ExitCode::SUCCESS
            }
            Err(e) => fail(1, e),
        },
        Command::TrustBrowser => trust_browser(&conn, settings).await,
        Command::Identity { action } => identity(&conn, action.as_ref()).await,
        Command::ImportState { file } => match import_state::import_state(&conn, file).await {
            Ok(report) => {
                print!("{}", report.text());
                ExitCode::SUCCESS
            }
            Err(e) => fail(1, e),
        },
    }
}

/// Prints the one-time link (`domain::access::sign_in::AdminSessions::issue_browser_link`).
async fn trust_browser(conn: &sea_orm::DatabaseConnection, settings: &Settings) -> ExitCode {
    // The password is not needed to issue a link: the link alone signs no one in.
    let users = crate::domain::access::users::Users::new(conn.clone(), None);
    let second_factors =
        crate::domain::access::second_factor::SecondFactors::new(conn.clone(), None);
    let auth =
        crate::domain::access::sign_in::AdminSessions::new(conn.clone(), "", users, second_factors);
    let token = match auth.issue_browser_link().await {
        Ok(t) => t,
        Err(e) => return fail(1, e),
    };
    let path = format!("{}{token}", crate::http::TRUST_BROWSER_PREFIX);
    let minutes = crate::domain::access::sign_in::BROWSER_LINK_LIFETIME.num_minutes();
    match settings
        .public_url
        .as_deref()
        .map(crate::config::public_url)
    {
        Some(Ok(base)) => println!("{}{}", base.as_str().trim_end_matches('/'), path),
        _ => println!(
            "{path}  (after your Control's address; KNOTROUTE_CONTROL_PUBLIC_URL is not set)"
        ),
    }
    println!(
        "Open it in the browser you sign in with, within {minutes} minutes; it works once. \
         That browser then signs in with the password at once, however many wrong \
         guesses others send from its address."
    );
    ExitCode::SUCCESS
}

/// `identity`: prints the key Agents pin; `identity rotate`: makes a new one.
async fn identity(
    conn: &sea_orm::DatabaseConnection,
    action: Option<&crate::config::IdentityAction>,
) -> ExitCode {
    use crate::domain::access::control_identity as identity;
    let view = match action {
        None => identity::describe(conn).await,
        Some(crate::config::IdentityAction::Rotate { transition }) => {
            let transition = chrono::Duration::hours(i64::from(*transition));
            identity::rotate(conn, transition, crate::domain::audit::CONTROL).await
        }
    };
    let view = match view {
        Ok(v) => v,
        Err(e) => return fail(1, e),
    };
    println!("Control key (Agents pin this; KNOTROUTE_AGENT_CONTROL_KEY in install snippets):");
    println!("  public key:  {}", view.current.public_key);
    println!("  fingerprint: {}", view.current.fingerprint);
    println!("  since:       {}", view.current.created_at);
    if let Some(previous) = &view.previous {
        let until = previous.retire_at.as_deref().unwrap_or_default();
        println!("Previous key, still signing until {until} (rotation in progress):");
        println!("  public key:  {}", previous.public_key);
        println!("  fingerprint: {}", previous.fingerprint);
        println!(
            "Agents that reach Control before then move to the new key by themselves; \
             the Agents page lists any still on the previous key."
        );
    }
    ExitCode::SUCCESS
}

fn print_counts(tables: &std::collections::BTreeMap<String, u64>) {
    for (table, rows) in tables {
        println!("  {table}: {rows}");
    }
}

fn fail(code: u8, e: impl std::fmt::Display) -> ExitCode {
    eprintln!("knotroute-control: {e}");
    ExitCode::from(code)
}
