//! Network names are unique, compared without regard to case: a single
//! sign-on role map (`group=role:<name>`) and people name networks by them,
//! so a limited admin renaming theirs to another network's name would make
//! every such rule ambiguous. Tried with raw bodies in many spellings, on
//! both databases; and profiles that shared a name before are renamed by
//! the upgrade rather than left ambiguous.

mod common;

use common::people::join_limited;
use migrations::{Migrator, MigratorTrait};
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{json, Value};
use server::config::DatabaseTarget;

async fn put_raw(
    person: &reqwest::Client,
    c: &common::Control,
    path: &str,
    body: &str,
) -> (u16, Value) {
    let r = person
        .put(c.url(path))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

on_both_databases!(
    no_name_is_taken_twice_whatever_its_case,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let alpha = c.created_network(json!({"name": "Alpha"})).await;
        c.created_network(json!({"name": "Bravo"})).await;
        c.created_network(json!({"name": "Офис"})).await;
        let admin = join_limited(&c, "admin", "adm-a", std::slice::from_ref(&alpha)).await;
        let path = format!("/api/v1/networks/{alpha}");
        for name in [
            "Bravo",
            "bravo",
            "BRAVO",
            "  bRaVo  ",
            "\tBravo",
            "ОФИС",
            "офис",
        ] {
            let body = json!({"name": name}).to_string();
            for (who, client) in [("limited admin", &admin), ("owner", &c.client)] {
                let (status, answer) = put_raw(client, &c, &path, &body).await;
                assert_eq!(status, 400, "{who}: {name:?}: {answer}");
                assert_eq!(
                    (answer["code"].as_str(), answer["field"].as_str()),
                    (Some("network_name_taken"), Some("name")),
                    "{who}: {name:?}: {answer}"
                );
            }
            let r = c.create_network(json!({"name": name})).await;
            assert_eq!(r.status(), 400, "create {name:?}");
        }
        let listed: Vec<Value> = c.get_json("/api/v1/networks").await;
        let names: Vec<&str> = listed.iter().map(|n| n["name"].as_str().unwrap()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        // Its own name in another case, or a new one, is fine.
        for name in ["ALPHA", "Alpha HQ"] {
            let (status, answer) =
                put_raw(&admin, &c, &path, &json!({"name": name}).to_string()).await;
            assert_eq!(status, 200, "{name}: {answer}");
        }
    }
);

/// The schema before the migration that makes names unique.
const BEFORE: u32 = 31;

on_both_databases!(
    profiles_that_shared_a_name_are_renamed_by_the_upgrade,
    |backend| async move {
        let dir = tempfile::tempdir().unwrap();
        let target = match backend {
            common::Backend::Sqlite => DatabaseTarget::Sqlite(dir.path().join("db.sqlite3")),
            common::Backend::Postgres => {
                let url = common::fresh_postgres_database().await;
                let cli = <server::config::Cli as clap::Parser>::try_parse_from([
                    "knotroute-control",
                    "--database-url",
                    &url,
                ])
                .unwrap();
                cli.settings.database().unwrap()
            }
        };
        let db = server::db::connect(&target).await.unwrap();
        Migrator::up(&db, Some(BEFORE)).await.unwrap();
        let backend = db.get_database_backend();
        for (i, name) in ["Home", "home", "HOME", "Lab", "Home (2)"]
            .iter()
            .enumerate()
        {
            let id = protocol::NetworkId::from_random_bytes([i as u8 + 1; 32]).to_string();
            let at = chrono::Utc::now() + chrono::Duration::seconds(i as i64);
            let sql = match backend {
                sea_orm::DbBackend::Postgres => {
                    "INSERT INTO networks (id, name, description, beacons, created_at, updated_at, version) \
                     VALUES ($1, $2, '', '[]', $3, $3, 1)"
                }
                _ => {
                    "INSERT INTO networks (id, name, description, beacons, created_at, updated_at, version) \
                     VALUES (?, ?, '', '[]', ?, ?, 1)"
                }
            };
            let values: Vec<sea_orm::Value> = match backend {
                sea_orm::DbBackend::Postgres => vec![id.into(), (*name).into(), at.into()],
                _ => vec![id.into(), (*name).into(), at.into(), at.into()],
            };
            db.execute(Statement::from_sql_and_values(backend, sql, values))
                .await
                .unwrap();
        }
        Migrator::up(&db, None).await.unwrap();
        let rows = db
            .query_all(Statement::from_string(
                backend,
                "SELECT name FROM networks ORDER BY created_at",
            ))
            .await
            .unwrap();
        let names: Vec<String> = rows
            .iter()
            .map(|r| r.try_get::<String>("", "name").unwrap())
            .collect();
        // The oldest keeps its name; "Home (2)" was taken by an older one's
        // renaming, so it is numbered on.
        assert_eq!(
            names,
            ["Home", "home (2)", "HOME (3)", "Lab", "Home (2) (2)"]
        );
        // And the database itself refuses a second one from now on.
        let id = protocol::NetworkId::from_random_bytes([99; 32]).to_string();
        let sql = match backend {
            sea_orm::DbBackend::Postgres => {
                "INSERT INTO networks (id, name, description, beacons, created_at, updated_at, version) \
                 VALUES ($1, 'LAB', '', '[]', now(), now(), 1)"
            }
            _ => {
                "INSERT INTO networks (id, name, description, beacons, created_at, updated_at, version) \
                 VALUES (?, 'LAB', '', '[]', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 1)"
            }
        };
        let refused = db
            .execute(Statement::from_sql_and_values(backend, sql, [id.into()]))
            .await;
        assert!(refused.is_err(), "a second Lab was stored");
    }
);
