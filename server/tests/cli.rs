//! The `knotroute-control` binary: start-up refusals and the migrate command.

mod common;

use std::process::Command;

fn control() -> Command {
    common::control_command()
}

fn refusal(args: &[&str]) -> String {
    let out = control()
        .args(args)
        .arg("--data")
        .arg(std::env::temp_dir())
        .output()
        .unwrap();
    assert!(!out.status.success(), "{args:?} must not start");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    stderr
}

#[test]
fn start_up_refuses_unsafe_secrets_with_one_line_that_says_why() {
    assert!(refusal(&["--enroll-token", "enroll-token-0123456789"])
        .contains("ADMIN_PASSWORD is not set"));
    assert!(
        refusal(&["--admin-password", "admin-password-0123"]).contains("ENROLL_TOKEN is not set")
    );
    assert!(refusal(&[
        "--admin-password",
        "short",
        "--enroll-token",
        "enroll-token-0123456789"
    ])
    .contains("shorter than 16"));
    assert!(refusal(&[
        "--admin-password",
        "same-secret-value-1",
        "--enroll-token",
        "same-secret-value-1"
    ])
    .contains("different secrets"));
}

#[test]
fn a_malformed_trusted_proxy_range_fails_start_up_with_one_line() {
    let secrets = [
        "--admin-password",
        "admin-password-0123",
        "--enroll-token",
        "enroll-token-0123456789",
    ];
    for list in ["10.0.0/8", "127.0.0.0/8,fd00::/129", "localhost"] {
        let out = control()
            .args(secrets)
            .args(["--data", &std::env::temp_dir().display().to_string()])
            .env("KNOTROUTE_CONTROL_TRUST_PROXY", "true")
            .env("KNOTROUTE_CONTROL_TRUSTED_PROXIES", list)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{list} must not start");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
        assert!(
            stderr.contains("KNOTROUTE_CONTROL_TRUSTED_PROXIES"),
            "{stderr}"
        );
    }
    let mut args = secrets.to_vec();
    args.extend(["--trusted-proxies", "10.0.0.0/8"]);
    assert!(refusal(&args).contains("KNOTROUTE_CONTROL_TRUST_PROXY is not true"));
}

fn migrate(data: &std::path::Path) -> std::process::Output {
    migrate_with(data, None)
}

fn migrate_with(data: &std::path::Path, database_url: Option<&str>) -> std::process::Output {
    let mut cmd = control();
    if let Some(url) = database_url {
        cmd.env("KNOTROUTE_CONTROL_DATABASE_URL", url);
    }
    // No secrets: a migration job should not need the admin password.
    cmd.arg("migrate")
        .env("KNOTROUTE_CONTROL_DATA", data)
        .output()
        .unwrap()
}

#[test]
fn migrate_creates_the_sqlite_database_in_wal_mode_and_exits() {
    let dir = tempfile::tempdir().unwrap();
    let out = migrate(dir.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let db = dir.path().join("knotroute-control.sqlite3");
    assert!(db.exists());
    // The journal mode is stored in the file header: bytes 18 and 19 are 2 in WAL mode.
    let header = std::fs::read(&db).unwrap();
    assert_eq!((header[18], header[19]), (2, 2), "WAL mode");
    // Running it again is harmless.
    let again = migrate(dir.path());
    assert!(again.status.success());
}

#[tokio::test]
async fn migrate_applies_the_same_schema_on_postgresql() {
    use sea_orm::{ConnectionTrait, Database};
    let url = common::fresh_postgres_database().await;
    let dir = tempfile::tempdir().unwrap();
    let out = migrate_with(dir.path(), Some(&url));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !dir.path().join("knotroute-control.sqlite3").exists(),
        "no SQLite file when PostgreSQL is configured"
    );
    let db = Database::connect(&url).await.unwrap();
    for table in [
        "networks",
        "admin_sessions",
        "login_failures",
        "agents",
        "components",
    ] {
        let sql = format!("SELECT count(*) FROM {table}");
        assert!(
            db.execute_unprepared(&sql).await.is_ok(),
            "table {table} exists"
        );
    }
    assert!(
        migrate_with(dir.path(), Some(&url)).status.success(),
        "a second run is harmless"
    );
}

#[test]
fn help_lists_every_setting_with_its_variable() {
    let out = control().arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for var in [
        "KNOTROUTE_CONTROL_LISTEN",
        "KNOTROUTE_CONTROL_ADMIN_PASSWORD",
        "KNOTROUTE_CONTROL_ENROLL_TOKEN",
        "KNOTROUTE_CONTROL_PUBLIC_URL",
        "KNOTROUTE_CONTROL_DATA",
        "KNOTROUTE_CONTROL_DATABASE_URL",
    ] {
        assert!(help.contains(var), "--help mentions {var}");
    }
}
