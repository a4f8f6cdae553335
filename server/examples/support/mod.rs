//! What the load benchmarks share: a Control started in this process on a
//! loopback port, Agent keys, signed requests and percentiles.

#![allow(dead_code)]

use clap::Parser;
use protocol::signing::AgentKey;
use serde_json::json;
use server::config::Cli;
use std::net::SocketAddr;
use std::time::Duration;

pub const ADMIN_PASSWORD: &str = "bench-admin-password-0001";
pub const ENROLL_TOKEN: &str = "bench-enroll-token-00001";

/// Agent `i`'s key, the same in every run.
pub fn key(i: usize) -> AgentKey {
    let mut seed = [7u8; 32];
    seed[..8].copy_from_slice(&(i as u64).to_le_bytes());
    AgentKey::from_seed(seed)
}

/// The `p` quantile of sorted durations, in milliseconds.
pub fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

/// A heartbeat reporting two running components.
pub fn heartbeat(n: usize) -> serde_json::Value {
    json!({"name": "bench", "hostname": "bench-host", "version": "1.0.0",
        "docker_available": true, "docker_version": "27.1.1/27.1.1", "tags": ["bench"],
        "nonce": format!("{n}-{}", rand::random::<u64>()),
        "components": [
            {"id": "sidecar-web", "kind": "sidecar", "name": "web", "status": "running",
             "image": "ghcr.io/localzet/knotroute-sidecar:1.0.0", "service": "qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot"},
            {"id": "beacon-main", "kind": "beacon", "name": "main", "status": "running"}]})
}

pub struct Bench {
    pub base: String,
    pub client: reqwest::Client,
    pub state: server::AppState,
    pub db: sea_orm::DatabaseConnection,
    _data: tempfile::TempDir,
}

impl Bench {
    /// Control on a fresh SQLite file, or on the (empty) PostgreSQL database given.
    pub async fn start(database_url: Option<&str>) -> Bench {
        let data = tempfile::tempdir().unwrap();
        let mut cli = vec![
            "knotroute-control".to_string(),
            "--admin-password".into(),
            ADMIN_PASSWORD.into(),
            "--enroll-token".into(),
            ENROLL_TOKEN.into(),
            "--data".into(),
            data.path().display().to_string(),
            // The load comes from one loopback address by design.
            "--machine-rate-limit".into(),
            "0".into(),
        ];
        if let Some(url) = database_url {
            cli.extend(["--database-url".into(), url.to_string()]);
        }
        let config = Cli::try_parse_from(cli)
            .unwrap()
            .settings
            .validate()
            .unwrap();
        let db = server::db::connect(&config.database).await.unwrap();
        server::db::migrate(&db).await.unwrap();
        let state = server::AppState::new(config, db.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let app = server::http::router(state.clone());
        tokio::spawn(async move {
            axum::serve(
                listener,
                app.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .await
            .unwrap()
        });
        Bench {
            base: format!("http://{addr}"),
            client: reqwest::Client::builder()
                .tcp_nodelay(true)
                .pool_max_idle_per_host(256)
                .build()
                .unwrap(),
            state,
            db,
            _data: data,
        }
    }

    /// A POST signed by `key`, as an Agent sends it.
    pub async fn signed(
        &self,
        key: &AgentKey,
        path: &str,
        body: serde_json::Value,
    ) -> reqwest::Response {
        let bytes = serde_json::to_vec(&body).unwrap();
        test_kit::signed_post(&self.client, &self.base, key, path, &bytes, 0)
            .header("content-type", "application/json")
            .send()
            .await
            .expect("request")
    }

    /// Enrolls `count` Agents over HTTP (32 at a time), as in the field.
    pub async fn enroll(&self, keys: &[AgentKey]) {
        use futures_util::stream::{self, StreamExt};
        stream::iter(keys.iter().enumerate())
            .for_each_concurrent(32, |(i, key)| async move {
                let r = self
                    .client
                    .post(format!("{}/api/v1/agents/enroll", self.base))
                    .json(&json!({"name": format!("agent-{i}"), "public_key": key.public_key().to_wire(),
                        "token": ENROLL_TOKEN, "tags": ["bench"]}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), 201);
            })
            .await;
        // Enrolled with the shared token, each waits for an admin's approval:
        // the fleet is approved at once, as an admin would one by one.
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        server::entities::agent::Entity::update_many()
            .col_expr(server::entities::agent::Column::Pending, false.into())
            .filter(server::entities::agent::Column::Pending.eq(true))
            .exec(&self.db)
            .await
            .unwrap();
    }

    /// Every Agent's first heartbeat (its details and two components are
    /// written), `concurrency` at a time.
    pub async fn first_heartbeats(&self, keys: &[AgentKey], concurrency: usize) {
        use futures_util::stream::{self, StreamExt};
        stream::iter(keys.iter().enumerate())
            .for_each_concurrent(concurrency, |(i, key)| async move {
                let r = self
                    .signed(key, "/api/v1/agents/heartbeat", heartbeat(i))
                    .await;
                assert_eq!(r.status(), 200);
            })
            .await;
    }

    /// A client signed in as the admin (cookie kept).
    pub async fn admin(&self) -> reqwest::Client {
        test_kit::signed_in_admin(&self.base, ADMIN_PASSWORD).await
    }
}

/// Stores `count` ended jobs spread over the Agents, one second apart
/// (newest last), mostly succeeded with some failed, cancelled and expired,
/// cycling through `networks` (none when empty). Ended, so no Agent claims them.
pub async fn store_finished_jobs(
    db: &sea_orm::DatabaseConnection,
    keys: &[AgentKey],
    count: usize,
    networks: &[String],
) {
    use protocol::JobStatus;
    use sea_orm::{EntityTrait, Set};
    use server::entities::job;
    let now = chrono::Utc::now();
    for chunk in (0..count).collect::<Vec<_>>().chunks(1000) {
        let rows = chunk.iter().map(|&n| {
            let at = now - chrono::Duration::seconds((count - n) as i64);
            let (status, result) = match n % 20 {
                0..=2 => (
                    JobStatus::Failed,
                    "Error: No such container: kr-sidecar-web-knotroute-1",
                ),
                3 => (JobStatus::Cancelled, "cancelled by an admin"),
                4 => (
                    JobStatus::Expired,
                    "the Agent did not report a result within the 10-minute lease",
                ),
                _ => (JobStatus::Succeeded, "restarted"),
            };
            job::ActiveModel {
                id: Set(protocol::JobId::from_random_bytes(rand::random()).to_string()),
                agent_id: Set(keys[n % keys.len()].public_key().agent_id().to_string()),
                kind: Set("restart_component".into()),
                payload: Set(r#"{"component_id":"sidecar-web"}"#.into()),
                status: Set(status),
                result: Set(result.into()),
                created_at: Set(at),
                started_at: Set(Some(at)),
                finished_at: Set(Some(at)),
                lease_expires_at: Set(None),
                retry_of: Set(None),
                component_id: Set(Some("sidecar-web".into())),
                network_id: Set(
                    (!networks.is_empty()).then(|| networks[n % networks.len()].clone())
                ),
                ..Default::default()
            }
        });
        job::Entity::insert_many(rows).exec(db).await.unwrap();
    }
}
