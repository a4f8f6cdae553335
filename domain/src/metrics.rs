//! Control's Prometheus metrics, served at `GET /metrics` (http::metrics).
//! One registry per Control rather than a process-wide one, so that several
//! Controls in one test process keep their numbers apart. Counters and
//! histograms are updated where things happen; the gauges (Agents, jobs,
//! database pool) are read from the database at each scrape.

use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};
use std::sync::Arc;

#[derive(Clone)]
pub struct Metrics {
    inner: Arc<Inner>,
}

struct Inner {
    registry: Registry,
    /// Two scrapes at once must not see each other's gauge reset.
    rendering: std::sync::Mutex<()>,
    http_requests: HistogramVec,
    heartbeats: IntCounter,
    beacon_checks: HistogramVec,
    beacon_check_failures: IntCounterVec,
    job_duration: HistogramVec,
    agents_online: IntGauge,
    agents_total: IntGauge,
    jobs: IntGaugeVec,
    db_pool: IntGaugeVec,
    db_pool_max: IntGauge,
}

/// What a scrape reads from the database.
#[derive(Debug, Default)]
pub struct Snapshot {
    pub agents_online: u64,
    pub agents_total: u64,
    /// Jobs stored, by status.
    pub jobs: Vec<(protocol::JobStatus, u64)>,
    pub pool: PoolUse,
}

/// The database connection pool at scrape time.
#[derive(Debug, Default, Clone, Copy)]
pub struct PoolUse {
    pub in_use: u64,
    pub idle: u64,
    pub max: u64,
}

impl PoolUse {
    pub fn of(db: &sea_orm::DatabaseConnection) -> Self {
        use sea_orm::{ConnectionTrait, DbBackend};
        fn of_pool<DB: sqlx::Database>(pool: &sqlx::Pool<DB>) -> PoolUse {
            let idle = pool.num_idle() as u64;
            PoolUse {
                in_use: u64::from(pool.size()).saturating_sub(idle),
                idle,
                max: u64::from(pool.options().get_max_connections()),
            }
        }
        match db.get_database_backend() {
            DbBackend::Postgres => of_pool(db.get_postgres_connection_pool()),
            DbBackend::Sqlite => of_pool(db.get_sqlite_connection_pool()),
            _ => Self::default(),
        }
    }
}

/// Seconds: from 5 ms (a page) to 10 s (a slow upstream).
const LATENCY_BUCKETS: [f64; 12] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 7.5, 10.0,
];
/// Seconds: a deployment pulls images and waits for health, up to the 10-minute lease.
const JOB_BUCKETS: [f64; 10] = [
    1.0, 5.0, 10.0, 30.0, 60.0, 120.0, 180.0, 300.0, 450.0, 600.0,
];

impl Metrics {
    pub fn new() -> Self {
        let registry = Registry::new();
        fn register<C: prometheus::core::Collector + Clone + 'static>(r: &Registry, c: C) -> C {
            r.register(Box::new(c.clone()))
                .expect("metric names are unique");
            c
        }
        let histogram = |name: &str, help: &str, buckets: &[f64], labels: &[&str]| {
            let opts = HistogramOpts::new(name, help).buckets(buckets.to_vec());
            register(
                &registry,
                HistogramVec::new(opts, labels).expect("valid histogram"),
            )
        };
        let inner = Inner {
            http_requests: histogram(
                "knotroute_http_request_duration_seconds",
                "HTTP requests by route template, method and status.",
                &LATENCY_BUCKETS,
                &["route", "method", "status"],
            ),
            heartbeats: register(
                &registry,
                IntCounter::new("knotroute_heartbeats_total", "Verified Agent heartbeats.")
                    .expect("valid counter"),
            ),
            beacon_checks: histogram(
                "knotroute_beacon_check_duration_seconds",
                "Beacon health checks by outcome class (ok, dns, connect, tls, timeout, http_status, …).",
                &LATENCY_BUCKETS,
                &["class"],
            ),
            beacon_check_failures: register(
                &registry,
                IntCounterVec::new(
                    Opts::new(
                        "knotroute_beacon_check_failures_total",
                        "Failed Beacon health checks by failure class.",
                    ),
                    &["class"],
                )
                .expect("valid counter"),
            ),
            job_duration: histogram(
                "knotroute_job_duration_seconds",
                "From an Agent taking a job to its result, by kind and status.",
                &JOB_BUCKETS,
                &["kind", "status"],
            ),
            agents_online: register(
                &registry,
                IntGauge::new("knotroute_agents_online", "Agents online now.")
                    .expect("valid gauge"),
            ),
            agents_total: register(
                &registry,
                IntGauge::new(
                    "knotroute_agents_total",
                    "Agents enrolled (not revoked or moved).",
                )
                .expect("valid gauge"),
            ),
            jobs: register(
                &registry,
                IntGaugeVec::new(
                    Opts::new("knotroute_jobs", "Jobs stored, by status."),
                    &["status"],
                )
                .expect("valid gauge"),
            ),
            db_pool: register(
                &registry,
                IntGaugeVec::new(
                    Opts::new(
                        "knotroute_db_pool_connections",
                        "Database pool connections, in use or idle.",
                    ),
                    &["state"],
                )
                .expect("valid gauge"),
            ),
            db_pool_max: register(
                &registry,
                IntGauge::new(
                    "knotroute_db_pool_max_connections",
                    "Largest size of the database pool.",
                )
                .expect("valid gauge"),
            ),
            registry,
            rendering: std::sync::Mutex::new(()),
        };
        Self {
            inner: Arc::new(inner),
        }
    }

    /// One answered HTTP request; `route` is the matched route template
    /// (never the raw path: paths carry IDs and invite tokens).
    pub fn request(&self, route: &str, method: &str, status: u16, seconds: f64) {
        self.inner
            .http_requests
            .with_label_values(&[route, method, &status.to_string()])
            .observe(seconds);
    }

    pub fn heartbeat(&self) {
        self.inner.heartbeats.inc();
    }

    /// One Beacon check and its outcome class (`ok` when healthy).
    pub fn beacon_checked(&self, class: &str, ok: bool, seconds: f64) {
        self.inner
            .beacon_checks
            .with_label_values(&[class])
            .observe(seconds);
        if !ok {
            self.inner
                .beacon_check_failures
                .with_label_values(&[class])
                .inc();
        }
    }

    /// A job an Agent reported on, and how long it ran.
    pub fn job_finished(&self, kind: &str, status: protocol::JobStatus, seconds: f64) {
        self.inner
            .job_duration
            .with_label_values(&[kind, status.as_str()])
            .observe(seconds);
    }

    /// The text exposition (format 0.0.4), with the gauges set from `now`.
    pub fn render(&self, now: &Snapshot) -> String {
        let inner = &self.inner;
        let _one_at_a_time = inner
            .rendering
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        inner.agents_online.set(now.agents_online as i64);
        inner.agents_total.set(now.agents_total as i64);
        // A status with no jobs left reads 0 instead of its last value.
        inner.jobs.reset();
        for (status, count) in &now.jobs {
            inner
                .jobs
                .with_label_values(&[status.as_str()])
                .set(*count as i64);
        }
        inner
            .db_pool
            .with_label_values(&["in_use"])
            .set(now.pool.in_use as i64);
        inner
            .db_pool
            .with_label_values(&["idle"])
            .set(now.pool.idle as i64);
        inner.db_pool_max.set(now.pool.max as i64);
        let mut text = Vec::new();
        TextEncoder::new()
            .encode(&inner.registry.gather(), &mut text)
            .expect("the text encoder writes to memory");
        String::from_utf8(text).expect("the text format is UTF-8")
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

/// The content type of the text exposition format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";
