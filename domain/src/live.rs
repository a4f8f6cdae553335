//! Live updates for the admin screens: which parts of Control's state changed.
//!
//! One task per process reads a small fingerprint of the state from the
//! database every second while at least one screen listens, and publishes it.
//! Reading it from the database (rather than announcing each write) means a
//! change made through another replica, and an Agent going offline (which is
//! no write at all, only time passing), are seen too. The fingerprint queries
//! use indexes, so the cost stays flat with 100,000 jobs.

use chrono::Duration;
use protocol::live::LiveTopic;
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, Statement};
use std::sync::{Arc, Weak};
use tokio::sync::{watch, Notify};

/// How often the fingerprint is read while someone listens: well inside the
/// 2 s an operator should wait to see a change.
pub const POLL_INTERVAL: std::time::Duration = std::time::Duration::from_millis(750);

/// What the fingerprint reads; two equal values mean nothing visible changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fingerprint {
    /// Agents: how many exist and are recently seen, the latest change to an
    /// Agent or a component (status, `.knot` address, errors).
    agents: (i64, i64, String, String),
    /// Jobs: the latest creation, claim and end.
    jobs: (String, String, String),
    /// The latest progress message of a running job.
    progress: String,
}

impl Fingerprint {
    /// The topics in which `self` differs from `earlier`.
    pub fn changed_since(&self, earlier: &Fingerprint) -> Vec<LiveTopic> {
        let mut topics = Vec::new();
        if self.agents != earlier.agents {
            topics.push(LiveTopic::Agents);
        }
        if self.jobs != earlier.jobs {
            topics.push(LiveTopic::Jobs);
        }
        if self.progress != earlier.progress {
            topics.push(LiveTopic::Progress);
        }
        topics
    }
}

struct Inner {
    current: watch::Sender<Fingerprint>,
    closing: Notify,
    closed: std::sync::atomic::AtomicBool,
}

/// The process's change feed; cheap to clone.
#[derive(Clone)]
pub struct ChangeFeed {
    inner: Arc<Inner>,
}

impl ChangeFeed {
    /// Starts the reading task; it reads only while someone subscribes and
    /// stops when the feed is dropped.
    pub fn new(db: DatabaseConnection, offline_after: Duration) -> Self {
        let (current, _) = watch::channel(Fingerprint::default());
        let inner = Arc::new(Inner {
            current,
            closing: Notify::new(),
            closed: Default::default(),
        });
        tokio::spawn(read_loop(Arc::downgrade(&inner), db, offline_after));
        Self { inner }
    }

    /// A receiver of fingerprints; the first value is the current one.
    pub fn subscribe(&self) -> watch::Receiver<Fingerprint> {
        self.inner.current.subscribe()
    }

    /// Ends every stream, so a graceful shutdown is not held open by screens.
    pub fn close(&self) {
        self.inner
            .closed
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.inner.closing.notify_waiters();
    }

    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Resolves when `close` is called.
    pub async fn closing(&self) {
        let notified = self.inner.closing.notified();
        if self.is_closed() {
            return;
        }
        notified.await;
    }
}

async fn read_loop(inner: Weak<Inner>, db: DatabaseConnection, offline_after: Duration) {
    let mut tick = tokio::time::interval(POLL_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(inner) = inner.upgrade() else { return };
        if inner.current.receiver_count() == 0 {
            continue;
        }
        match read_fingerprint(&db, offline_after).await {
            Ok(fresh) => {
                inner.current.send_if_modified(|old| {
                    let changed = *old != fresh;
                    *old = fresh;
                    changed
                });
            }
            Err(e) => tracing::warn!(error = %e, "reading the live-update fingerprint failed"),
        }
    }
}

/// One round trip; every part is a count over an index or a MAX of an
/// indexed column. Times are read as text so both databases answer alike.
pub async fn read_fingerprint(
    db: &DatabaseConnection,
    offline_after: Duration,
) -> Result<Fingerprint, sea_orm::DbErr> {
    let backend = db.get_database_backend();
    // "Recently seen" by the clock heartbeat times were written with: the
    // database's on PostgreSQL (in the same statement), this process's on SQLite.
    let (recent, value): (&str, sea_orm::Value) = if backend == DbBackend::Postgres {
        (
            "now() - $1 * interval '1 second'",
            offline_after.num_seconds().into(),
        )
    } else {
        ("?", (chrono::Utc::now() - offline_after).into())
    };
    let sql = format!(
        "SELECT (SELECT COUNT(*) FROM agents) AS agents, \
                (SELECT COUNT(*) FROM agents WHERE last_heartbeat_at > {recent}) AS seen, \
                (SELECT CAST(MAX(updated_at) AS TEXT) FROM agents) AS agent_changed, \
                (SELECT CAST(MAX(updated_at) AS TEXT) FROM components) AS component_changed, \
                (SELECT CAST(MAX(created_at) AS TEXT) FROM jobs) AS job_created, \
                (SELECT CAST(MAX(started_at) AS TEXT) FROM jobs) AS job_started, \
                (SELECT CAST(MAX(finished_at) AS TEXT) FROM jobs) AS job_finished, \
                (SELECT CAST(MAX(progress_at) AS TEXT) FROM jobs) AS job_progress"
    );
    let row = db
        .query_one(Statement::from_sql_and_values(backend, sql, [value]))
        .await?
        .ok_or_else(|| sea_orm::DbErr::RecordNotFound("fingerprint".into()))?;
    let text = |col: &str| -> Result<String, sea_orm::DbErr> {
        Ok(row.try_get::<Option<String>>("", col)?.unwrap_or_default())
    };
    Ok(Fingerprint {
        agents: (
            row.try_get("", "agents")?,
            row.try_get("", "seen")?,
            text("agent_changed")?,
            text("component_changed")?,
        ),
        jobs: (
            text("job_created")?,
            text("job_started")?,
            text("job_finished")?,
        ),
        progress: text("job_progress")?,
    })
}
