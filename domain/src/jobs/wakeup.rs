//! Waking long-polling Agents when a job is queued for them. In one process a
//! `Notify` per Agent does it; across replicas on PostgreSQL, every replica
//! LISTENs on one channel and the creating replica NOTIFYs it in the same
//! transaction as the insert. A slow safety poll covers a dropped listener.

use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, Statement};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::Notify;

pub const CHANNEL: &str = "knotroute_jobs";

#[derive(Clone, Default)]
pub struct JobWakeup {
    /// Weak, so Agents that stopped waiting do not keep an entry alive.
    waiters: Arc<Mutex<HashMap<String, Weak<Notify>>>>,
}

impl JobWakeup {
    /// The handle a long-poll for `agent_id` waits on.
    pub fn waiter(&self, agent_id: &str) -> Arc<Notify> {
        let mut waiters = self.waiters.lock().expect("waiter map");
        if let Some(existing) = waiters.get(agent_id).and_then(Weak::upgrade) {
            return existing;
        }
        if waiters.len() > 1024 {
            waiters.retain(|_, w| w.strong_count() > 0);
        }
        let fresh = Arc::new(Notify::new());
        waiters.insert(agent_id.to_string(), Arc::downgrade(&fresh));
        fresh
    }

    /// Wakes this replica's long-polls for `agent_id`.
    pub fn wake_local(&self, agent_id: &str) {
        let waiter = self
            .waiters
            .lock()
            .expect("waiter map")
            .get(agent_id)
            .and_then(Weak::upgrade);
        if let Some(waiter) = waiter {
            waiter.notify_waiters();
        }
    }

    /// Tells every replica that `agent_id` has a job: NOTIFY on PostgreSQL
    /// (delivered on commit when `db` is a transaction), locally otherwise.
    pub async fn announce(&self, db: &impl ConnectionTrait, agent_id: &str) {
        if db.get_database_backend() == DbBackend::Postgres {
            let stmt = Statement::from_sql_and_values(
                DbBackend::Postgres,
                "SELECT pg_notify($1, $2)",
                [CHANNEL.into(), agent_id.into()],
            );
            if let Err(e) = db.execute(stmt).await {
                tracing::warn!(error = %e, "NOTIFY failed; waiting Agents fall back to polling");
            }
        }
        self.wake_local(agent_id);
    }

    /// On PostgreSQL, listens for other replicas' announcements for as long as
    /// the process runs, reconnecting after a failure.
    pub fn spawn_listener(&self, db: &DatabaseConnection) {
        if db.get_database_backend() != DbBackend::Postgres {
            return;
        }
        let pool = db.get_postgres_connection_pool().clone();
        let wakeup = self.clone();
        tokio::spawn(async move {
            loop {
                if let Err(e) = wakeup.listen(&pool).await {
                    tracing::warn!(error = %e, "job wake-up listener stopped; reconnecting");
                }
                tokio::time::sleep(std::time::Duration::from_secs(2)).await;
            }
        });
    }

    async fn listen(&self, pool: &sqlx::PgPool) -> Result<(), sqlx::Error> {
        let mut listener = sqlx::postgres::PgListener::connect_with(pool).await?;
        listener.listen(CHANNEL).await?;
        loop {
            let notification = listener.recv().await?;
            self.wake_local(notification.payload());
        }
    }
}
