//! Benchmark of scheduled Beacon checks (BENCHMARKS.md): 1,000 Beacon URLs
//! in 63 profiles, served by local stand-ins (most healthy, some answering
//! 500, some slow, some closed, a few never answering), checked in rounds;
//! and the admin API's and the heartbeat endpoint's latency measured one
//! request at a time, first with no round running, then during one.
//!
//! cargo run --release -p knotroute-server --example beacon_rounds -- \
//!     [--beacons 1000] [--database-url postgres://…]

mod support;

use clap::Parser;
use server::domain::access::scope::NetworkScope;
use server::domain::beacons::schedule::BeaconSchedule;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{key, percentile, Bench};

#[derive(Parser)]
struct Args {
    #[arg(long, default_value_t = 1_000)]
    beacons: usize,
    /// PostgreSQL database to use (it must be empty); SQLite when absent.
    #[arg(long)]
    database_url: Option<String>,
}

/// A Beacon answering 200 after `delay`.
async fn slow_beacon(delay: Duration) -> String {
    use axum::routing::get;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = axum::Router::new().route(
        "/healthz",
        get(move || async move {
            tokio::time::sleep(delay).await;
            "ok"
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

/// 1 in 50 never answers (a 5 s timeout each), 1 in 20 answers 500, 1 in 20
/// has nothing listening, 1 in 10 takes 200 ms; the rest are healthy.
async fn stand_in(i: usize) -> String {
    match i % 100 {
        0 | 50 => test_kit::silent_beacon().await,
        1..=5 => test_kit::http_beacon(500, "database is down").await,
        6..=10 => test_kit::closed_port_url(),
        11..=20 => slow_beacon(Duration::from_millis(200)).await,
        _ => test_kit::http_beacon(200, "ok").await,
    }
}

/// Latencies of `request`, sent one after another until `stop` is set (or
/// `count` were sent, when there is no stop).
async fn sample<F, Fut>(request: F, count: usize, stop: Option<Arc<AtomicBool>>) -> Vec<Duration>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = u16>,
{
    let mut times = Vec::new();
    loop {
        if let Some(stop) = &stop {
            if stop.load(Ordering::SeqCst) {
                break;
            }
        } else if times.len() >= count {
            break;
        }
        let started = Instant::now();
        let status = request().await;
        assert!(status < 300, "status {status}");
        times.push(started.elapsed());
    }
    times.sort();
    times
}

fn line(name: &str, times: &[Duration]) {
    println!(
        "  {name:<34} n={:>5}  p50 {:>6.2} ms  p99 {:>6.2} ms",
        times.len(),
        percentile(times, 0.50),
        percentile(times, 0.99)
    );
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
    println!("backend {backend}, {} Beacon URLs", args.beacons);
    let mut urls = Vec::new();
    for i in 0..args.beacons {
        urls.push(stand_in(i).await);
    }
    let admin = bench.admin().await;
    for (n, chunk) in urls.chunks(16).enumerate() {
        let r = admin
            .post(format!("{}/api/v1/networks", bench.base))
            .header("origin", &bench.base)
            .json(&serde_json::json!({"name": format!("bench-{n}"), "beacons": chunk}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
    }
    let agents = [key(0)];
    bench.enroll(&agents).await;
    bench.first_heartbeats(&agents, 1).await;

    let schedule = BeaconSchedule::new(
        bench.db.clone(),
        bench.state.beacons.clone(),
        bench.state.networks.clone(),
        chrono::Duration::seconds(60),
    );
    let networks_page = || {
        let admin = admin.clone();
        let url = format!("{}/api/v1/networks", bench.base);
        async move { admin.get(url).send().await.unwrap().status().as_u16() }
    };
    let beat = std::sync::atomic::AtomicUsize::new(0);
    let heartbeat = || {
        let n = beat.fetch_add(1, Ordering::SeqCst);
        let bench = bench.clone();
        async move {
            let agent = key(0);
            bench
                .signed(&agent, "/api/v1/agents/heartbeat", support::heartbeat(n))
                .await
                .status()
                .as_u16()
        }
    };

    println!("round 1 (every URL's first check; states seeded):");
    let started = Instant::now();
    let report = schedule.run_round().await.unwrap();
    println!(
        "  {} checked, {} failed in {:.1} s",
        report.checked,
        report.failed,
        started.elapsed().as_secs_f64()
    );

    println!("no round running:");
    let idle_networks = sample(networks_page, 400, None).await;
    line("GET /api/v1/networks", &idle_networks);
    let idle_beats = sample(heartbeat, 400, None).await;
    line("POST /api/v1/agents/heartbeat", &idle_beats);

    for round in 2..=3 {
        println!("during round {round}:");
        let stop = Arc::new(AtomicBool::new(false));
        let (report, during_networks, during_beats, took) = {
            let stop_after = stop.clone();
            let round = async {
                let started = Instant::now();
                let report = schedule.run_round().await.unwrap();
                stop_after.store(true, Ordering::SeqCst);
                (report, started.elapsed())
            };
            // The two samplers alternate on one task: one request in flight at a time.
            let both = async {
                let mut networks = Vec::new();
                let mut beats = Vec::new();
                while !stop.load(Ordering::SeqCst) {
                    networks.extend(sample(networks_page, 1, None).await);
                    beats.extend(sample(heartbeat, 1, None).await);
                }
                networks.sort();
                beats.sort();
                (networks, beats)
            };
            let ((report, took), (networks, beats)) = tokio::join!(round, both);
            (report, networks, beats, took)
        };
        println!(
            "  {} checked, {} failed in {:.1} s",
            report.checked,
            report.failed,
            took.as_secs_f64()
        );
        line("GET /api/v1/networks", &during_networks);
        line("POST /api/v1/agents/heartbeat", &during_beats);
        println!(
            "  p99 added: networks {:+.2} ms, heartbeat {:+.2} ms",
            percentile(&during_networks, 0.99) - percentile(&idle_networks, 0.99),
            percentile(&during_beats, 0.99) - percentile(&idle_beats, 0.99)
        );
    }
    let started = Instant::now();
    let list = bench
        .state
        .beacons
        .list(&NetworkScope::all())
        .await
        .unwrap();
    println!(
        "Beacons list ({} rows with their 24 hours): {:.1} ms",
        list.len(),
        started.elapsed().as_secs_f64() * 1000.0
    );
}
