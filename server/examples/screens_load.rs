//! Benchmark of the admin screens at scale (BENCHMARKS.md): server-rendered
//! pages with 10,000 Agents and 100,000 stored jobs, measured over real HTTP
//! on loopback with a signed-in session, one request at a time; and the cost
//! of one live-update fingerprint read.
//!
//! cargo run --release -p knotroute-server --example screens_load -- \
//!     [--agents 10000] [--jobs 100000] [--database-url postgres://…]
//!
//! Run after `scripts/build-release.sh`, so the pages are the release
//! build's; without --database-url it uses a fresh SQLite file.

mod support;

use clap::Parser;
use protocol::signing::AgentKey;
use server::domain::access::scope::NetworkScope;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{key, percentile, Bench};

#[derive(Parser)]
struct Args {
    #[arg(long, default_value_t = 10_000)]
    agents: usize,
    #[arg(long, default_value_t = 100_000)]
    jobs: usize,
    /// PostgreSQL database to use (it must be empty); SQLite when absent.
    #[arg(long)]
    database_url: Option<String>,
    /// Requests per page measured (after 20 not counted).
    #[arg(long, default_value_t = 200)]
    requests: usize,
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let bench = Arc::new(Bench::start(args.database_url.as_deref()).await);
    let backend = if args.database_url.is_some() {
        "PostgreSQL"
    } else {
        "SQLite"
    };
    println!(
        "backend {backend}, {} agents, {} stored jobs",
        args.agents, args.jobs
    );
    let keys: Arc<Vec<AgentKey>> = Arc::new((0..args.agents).map(key).collect());
    let started = Instant::now();
    bench.enroll(&keys).await;
    // Every Agent reports two components, so the list shows real rows.
    bench.first_heartbeats(&keys, 32).await;
    let networks: Vec<String> = (0..20u8)
        .map(|n| protocol::NetworkId::from_random_bytes([n; 32]).to_string())
        .collect();
    support::store_finished_jobs(&bench.db, &keys, args.jobs, &networks).await;
    println!("data ready in {:.0} s", started.elapsed().as_secs_f64());

    let admin = bench.admin().await;
    let base = bench.base.clone();
    // A cursor deep in the job list and one in the middle of the Agent list.
    let deep = admin
        .get(format!("{base}/api/v1/jobs?limit=500"))
        .send()
        .await
        .unwrap();
    let deep_cursor = deep.headers()["x-next-cursor"]
        .to_str()
        .unwrap()
        .to_string();
    let mid_agent = bench
        .state
        .inventory
        .list_page(&NetworkScope::all(), None, (args.agents / 2) as u64)
        .await
        .unwrap()
        .1
        .unwrap_or_default();
    let pages = [
        ("/jobs".to_string(), "Jobs, newest first"),
        ("/jobs?status=failed".to_string(), "Jobs, failed only"),
        (
            format!("/jobs?network_id={}", networks[3]),
            "Jobs, one network",
        ),
        (
            format!("/jobs?after={deep_cursor}"),
            "Jobs, page after the 500th job",
        ),
        (
            "/infrastructure".to_string(),
            "Infrastructure, first 50 Agents",
        ),
        (
            format!("/infrastructure?agents_after={mid_agent}"),
            "Infrastructure, Agents from the middle",
        ),
        ("/".to_string(), "Overview"),
        (
            "/services".to_string(),
            "Services, first 50 of 10,000 sidecars",
        ),
    ];
    for (path, what) in pages {
        let url = format!("{base}{path}");
        let mut times = Vec::with_capacity(args.requests);
        let mut bytes = 0;
        for n in 0..args.requests + 20 {
            let t0 = Instant::now();
            let r = admin.get(&url).send().await.unwrap();
            assert_eq!(r.status(), 200, "{path}");
            let body = r.bytes().await.unwrap();
            if n >= 20 {
                times.push(t0.elapsed());
                bytes = body.len();
            }
        }
        times.sort();
        println!(
            "GET {what}: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms ({} KB, n={})",
            percentile(&times, 0.50),
            percentile(&times, 0.90),
            percentile(&times, 0.99),
            bytes / 1024,
            times.len()
        );
    }

    let offline_after = chrono::Duration::seconds(45);
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..args.requests {
        let t0 = Instant::now();
        server::domain::live::read_fingerprint(
            &bench.db,
            offline_after,
            &server::domain::access::scope::NetworkScope::all(),
        )
        .await
        .unwrap();
        times.push(t0.elapsed());
    }
    times.sort();
    println!(
        "live-update fingerprint read: p50 {:.2} ms, p99 {:.2} ms (once per 750 ms while a screen is open)",
        percentile(&times, 0.50),
        percentile(&times, 0.99)
    );
}
