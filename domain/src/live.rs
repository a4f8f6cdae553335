//! Live updates for the admin screens: which parts of Control's state changed.
//!
//! One task per process reads a small fingerprint of the state from the
//! database every second while at least one screen listens, and publishes it.
//! Reading it from the database (rather than announcing each write) means a
//! change made through another replica, and an Agent going offline (which is
//! no write at all, only time passing), are seen too. The fingerprint queries
//! use indexes, so the cost stays flat with 100,000 jobs. Someone who sees
//! only some networks listens on a fingerprint of those networks alone, so
//! the stream does not even tell them when another network changes.

use crate::access::scope::NetworkScope;
use chrono::Duration;
use protocol::live::LiveTopic;
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, Statement};
use std::collections::HashMap;
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

/// The networks a listener sees, as a key of the channels: `None` for all.
type ScopeKey = Option<std::collections::BTreeSet<String>>;

struct Inner {
    /// One channel per distinct scope that someone listens with: a person
    /// who sees only some networks is told only of changes there (not even
    /// when another network changes).
    channels: std::sync::Mutex<HashMap<ScopeKey, (NetworkScope, watch::Sender<Fingerprint>)>>,
    closing: Notify,
    closed: std::sync::atomic::AtomicBool,
}

/// The process's change feed; cheap to clone.
#[derive(Clone)]
pub struct ChangeFeed {
    inner: Arc<Inner>,
}

impl ChangeFeed {
    /// Starts the reading task; it reads only for the scopes someone
    /// listens with, and stops when the feed is dropped.
    pub fn new(db: DatabaseConnection, offline_after: Duration) -> Self {
        let inner = Arc::new(Inner {
            channels: Default::default(),
            closing: Notify::new(),
            closed: Default::default(),
        });
        tokio::spawn(read_loop(Arc::downgrade(&inner), db, offline_after));
        Self { inner }
    }

    /// A receiver of the fingerprints of what `scope` sees; the first value
    /// is the current one (empty until the first reading for that scope).
    pub fn subscribe(&self, scope: &NetworkScope) -> watch::Receiver<Fingerprint> {
        let key = scope.only().cloned();
        let mut channels = self.inner.channels.lock().expect("live channels");
        channels
            .entry(key)
            .or_insert_with(|| (scope.clone(), watch::channel(Fingerprint::default()).0))
            .1
            .subscribe()
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
        // Scopes nobody listens with any more are dropped; the rest are read.
        let listened: Vec<(NetworkScope, watch::Sender<Fingerprint>)> = {
            let mut channels = inner.channels.lock().expect("live channels");
            channels.retain(|_, (_, sender)| sender.receiver_count() > 0);
            channels.values().cloned().collect()
        };
        for (scope, sender) in listened {
            match read_fingerprint(&db, offline_after, &scope).await {
                Ok(fresh) => {
                    sender.send_if_modified(|old| {
                        let changed = *old != fresh;
                        *old = fresh;
                        changed
                    });
                }
                Err(e) => tracing::warn!(error = %e, "reading the live-update fingerprint failed"),
            }
        }
    }
}

/// One round trip; every part is a count over an index or a MAX of an
/// indexed column. Times are read as text so both databases answer alike.
/// For a `scope` of some networks, every part counts only what it sees:
/// Agents running a component of them, their components, their jobs.
pub async fn read_fingerprint(
    db: &DatabaseConnection,
    offline_after: Duration,
    scope: &NetworkScope,
) -> Result<Fingerprint, sea_orm::DbErr> {
    let backend = db.get_database_backend();
    // Numbered parameters, so each list can be written where it is needed
    // and bound once (`?N` is SQLite's spelling of PostgreSQL's `$N`).
    let mark = |n: usize| match backend {
        DbBackend::Postgres => format!("${n}"),
        _ => format!("?{n}"),
    };
    let mut values: Vec<sea_orm::Value> = Vec::new();
    // "Recently seen" by the clock heartbeat times were written with: the
    // database's on PostgreSQL (in the same statement), this process's on SQLite.
    let recent = if backend == DbBackend::Postgres {
        values.push(offline_after.num_seconds().into());
        format!("now() - {} * interval '1 second'", mark(1))
    } else {
        values.push((chrono::Utc::now() - offline_after).into());
        mark(1)
    };
    let (networks, agents) = match scope.only() {
        None => (String::new(), String::new()),
        Some(ids) => {
            let marks: Vec<String> = ids
                .iter()
                .map(|id| {
                    values.push(id.clone().into());
                    mark(values.len())
                })
                .collect();
            let list = marks.join(", ");
            (
                format!(" WHERE network_id IN ({list})"),
                format!(
                    " WHERE id IN (SELECT agent_id FROM components WHERE network_id IN ({list}))"
                ),
            )
        }
    };
    let seen_filter = if agents.is_empty() {
        format!(" WHERE last_heartbeat_at > {recent}")
    } else {
        format!("{agents} AND last_heartbeat_at > {recent}")
    };
    let sql = format!(
        "SELECT (SELECT COUNT(*) FROM agents{agents}) AS agents, \
                (SELECT COUNT(*) FROM agents{seen_filter}) AS seen, \
                (SELECT CAST(MAX(updated_at) AS TEXT) FROM agents{agents}) AS agent_changed, \
                (SELECT CAST(MAX(updated_at) AS TEXT) FROM components{networks}) AS component_changed, \
                (SELECT CAST(MAX(created_at) AS TEXT) FROM jobs{networks}) AS job_created, \
                (SELECT CAST(MAX(started_at) AS TEXT) FROM jobs{networks}) AS job_started, \
                (SELECT CAST(MAX(finished_at) AS TEXT) FROM jobs{networks}) AS job_finished, \
                (SELECT CAST(MAX(progress_at) AS TEXT) FROM jobs{networks}) AS job_progress"
    );
    let row = db
        .query_one(Statement::from_sql_and_values(backend, sql, values))
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
