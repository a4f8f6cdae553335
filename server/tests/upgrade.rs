//! Upgrading a database that already holds data: the migrations that came
//! with revoked keys and folded enrollment lines carry what was there over,
//! and the one of network scope files the audit log's old entries under the
//! network they concern.

mod common;

use chrono::{Duration, Utc};
use migrations::{Migrator, MigratorTrait};
use sea_orm::{ConnectionTrait, EntityTrait, Set, Statement};
use serde_json::json;
use server::config::DatabaseTarget;
use server::entities::agent::Retirement;
use server::entities::{agent, audit_entry, enrollment_log, revoked_key};

fn agent_row(id: &str, retired: Retirement) -> agent::ActiveModel {
    let now = Utc::now();
    agent::ActiveModel {
        id: Set(id.into()),
        name: Set(format!("name of {id}")),
        public_key: Set(format!("key of {id}")),
        hostname: Set(String::new()),
        version: Set(String::new()),
        tags: Set("[]".into()),
        disabled: Set(false),
        docker_available: Set(false),
        docker_version: Set(String::new()),
        last_heartbeat_at: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        retired: Set(retired),
        moved_to: Set(None),
        report_hash: Set(String::new()),
        reconcile_pending: Set(false),
        named_by_admin: Set(false),
        // Added by a later migration than the schema these rows go into.
        pending: sea_orm::ActiveValue::NotSet,
        extensions: sea_orm::ActiveValue::NotSet,
    }
}

fn revoked_audit(subject: &str, days_ago: i64) -> audit_entry::ActiveModel {
    audit_entry::ActiveModel {
        at: Set(Utc::now() - Duration::days(days_ago)),
        actor: Set("admin".into()),
        action: Set("agent.revoked".into()),
        subject: Set(subject.into()),
        detail: Set(String::new()),
        ..Default::default()
    }
}

on_both_databases!(
    revoked_agents_and_enrollment_lines_survive_the_upgrade,
    |backend| async move {
        let dir = tempfile::tempdir().unwrap();
        let target = match backend {
            common::Backend::Sqlite => DatabaseTarget::Sqlite(dir.path().join("db.sqlite3")),
            common::Backend::Postgres => postgres_target(&common::fresh_postgres_database().await),
        };
        upgrade(server::db::connect(&target).await.unwrap()).await;
    }
);

fn postgres_target(url: &str) -> DatabaseTarget {
    use clap::Parser;
    let cli =
        server::config::Cli::try_parse_from(["knotroute-control", "--database-url", url]).unwrap();
    cli.settings.database().unwrap()
}

/// The schema before the two migrations: the first 13.
const BEFORE: u32 = 13;

async fn upgrade(db: sea_orm::DatabaseConnection) {
    Migrator::up(&db, Some(BEFORE)).await.unwrap();
    // Revoked and still on record; revoked then deleted (known from the audit
    // log only); revoked, deleted and enrolled again since; never revoked.
    agent::Entity::insert(agent_row("ka_still_recorded", Retirement::Revoked))
        .exec_without_returning(&db)
        .await
        .unwrap();
    agent::Entity::insert(agent_row("ka_back_again", Retirement::Active))
        .exec_without_returning(&db)
        .await
        .unwrap();
    agent::Entity::insert(agent_row("ka_fine", Retirement::Active))
        .exec_without_returning(&db)
        .await
        .unwrap();
    for (subject, days) in [
        ("ka_still_recorded", 1),
        ("ka_deleted", 5),
        ("ka_deleted", 3),
        ("ka_back_again", 9),
    ] {
        // Without RETURNING: the entity has columns later migrations add.
        audit_entry::Entity::insert(revoked_audit(subject, days))
            .exec_without_returning(&db)
            .await
            .unwrap();
    }
    let at = Utc::now() - Duration::hours(2);
    db.execute(Statement::from_sql_and_values(
        db.get_database_backend(),
        match db.get_database_backend() {
            sea_orm::DbBackend::Postgres => {
                "INSERT INTO enrollment_log (at, client, agent_id, name, accepted, reason) \
                 VALUES ($1, '192.0.2.1', NULL, 'old', FALSE, 'bad_token')"
            }
            _ => {
                "INSERT INTO enrollment_log (at, client, agent_id, name, accepted, reason) \
                 VALUES (?, '192.0.2.1', NULL, 'old', FALSE, 'bad_token')"
            }
        },
        [at.into()],
    ))
    .await
    .unwrap();

    Migrator::up(&db, None).await.unwrap();

    let keys = revoked_key::Entity::find().all(&db).await.unwrap();
    let mut ids: Vec<&str> = keys.iter().map(|k| k.agent_id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, ["ka_deleted", "ka_still_recorded"]);
    let recorded = keys
        .iter()
        .find(|k| k.agent_id == "ka_still_recorded")
        .unwrap();
    assert_eq!(
        (recorded.name.as_str(), recorded.public_key.as_str()),
        ("name of ka_still_recorded", "key of ka_still_recorded")
    );
    let deleted = keys.iter().find(|k| k.agent_id == "ka_deleted").unwrap();
    let latest = Utc::now() - Duration::days(3);
    assert!(
        (deleted.revoked_at - latest).num_seconds().abs() < 60,
        "the last revoke"
    );

    let lines = enrollment_log::Entity::find().all(&db).await.unwrap();
    assert_eq!(lines.len(), 1);
    assert_eq!((lines[0].attempts, lines[0].first_at), (1, lines[0].at));
    assert!((lines[0].at - at).num_seconds().abs() < 1);
}

on_both_databases!(
    old_audit_entries_are_filed_under_their_network,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let network = c.created_network(json!({"name": "Office"})).await;
        let agent = common::SimAgent::with_docker(&c, 91).await;
        let job = c
            .queued_job(
                json!({"agent_id": agent.id(), "kind": "deploy_beacon", "payload": {
                "name": "edge", "network_id": network, "beacon_url": "https://edge.example.net",
                "advertise": "203.0.113.7:7000", "http_port": 18080}}),
            )
            .await;
        let invite: serde_json::Value = c
            .post_json("/api/v1/invites", json!({"network_id": network}))
            .await
            .json()
            .await
            .unwrap();
        // As written before network scope: no entry names its network. The
        // migration's backfill files them again.
        let db = &c.state.db;
        db.execute_unprepared("UPDATE audit_log SET network_id = NULL")
            .await
            .unwrap();
        migrations::file_audit_under_networks(db).await.unwrap();
        let filed = |subject: String| async move {
            let row = db
                .query_one(Statement::from_string(
                    db.get_database_backend(),
                    format!("SELECT network_id FROM audit_log WHERE subject = '{subject}'"),
                ))
                .await
                .unwrap()
                .unwrap_or_else(|| panic!("an entry about {subject}"));
            row.try_get::<Option<String>>("", "network_id").unwrap()
        };
        assert_eq!(
            filed(network.clone()).await.as_deref(),
            Some(network.as_str())
        );
        let job_id = job["id"].as_str().unwrap().to_string();
        assert_eq!(filed(job_id).await.as_deref(), Some(network.as_str()));
        let invite_id = invite["id"].as_str().unwrap().to_string();
        assert_eq!(filed(invite_id).await.as_deref(), Some(network.as_str()));
        // An Agent's enrollment concerns no one network.
        assert_eq!(filed(agent.id()).await, None);
    }
);
