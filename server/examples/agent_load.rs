//! Load benchmark for the agent API (BENCHMARKS.md): signed heartbeats per
//! second with their p50/p99 latency, job dispatch latency (queued by the
//! admin API → received by a long-polling Agent), and with `--progress-jobs`
//! the heartbeats again while that many jobs run at once, each reporting
//! live progress. Control runs in this process on a loopback port; the load
//! comes over real HTTP.
//!
//! cargo run --release -p knotroute-server --example agent_load -- \
//!     --agents 10000 [--database-url postgres://…] [--stored-jobs 100000] \
//!     [--progress-jobs 100 [--progress-every-ms 400] [--heartbeat-rate 500]]
//!
//! Without --database-url it uses a fresh SQLite file. scripts/bench-agents.sh
//! runs the matrix recorded in BENCHMARKS.md.

mod support;

use clap::Parser;
use protocol::signing::AgentKey;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{heartbeat, key, percentile, Bench};

#[derive(Parser)]
struct Args {
    /// Enrolled Agents; heartbeats go round-robin over all of them.
    #[arg(long, default_value_t = 1000)]
    agents: usize,
    /// PostgreSQL database to use (it must be empty); SQLite when absent.
    #[arg(long)]
    database_url: Option<String>,
    /// Finished jobs stored before measuring, to show their cost does not leak into heartbeats.
    #[arg(long, default_value_t = 0)]
    stored_jobs: usize,
    /// Concurrent heartbeat senders.
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// Seconds of heartbeat load.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Jobs dispatched one by one for the dispatch-latency figure.
    #[arg(long, default_value_t = 300)]
    dispatches: usize,
    /// Jobs running at once during a second heartbeat round, each sending
    /// progress (0: no such round).
    #[arg(long, default_value_t = 0)]
    progress_jobs: usize,
    /// Pause between one job's progress messages: the Agent's batching
    /// interval, so each job sends what a busy real one does; 0 for as fast
    /// as Control answers.
    #[arg(long, default_value_t = 400)]
    progress_every_ms: u64,
    /// In the progress round, heartbeats at this fixed rate (an open loop:
    /// sent on schedule whatever the answers, timed from when each was due,
    /// as a fleet sends them) instead of as fast as `concurrency` senders
    /// are answered.
    #[arg(long)]
    heartbeat_rate: Option<u32>,
}

/// How heartbeats are sent in a round.
#[derive(Clone, Copy)]
enum Load {
    /// Each of this many senders sends its next as soon as one is answered.
    AsFastAsAnswered(usize),
    /// This many a second, on schedule.
    PerSecond(u32),
}

impl Load {
    fn describe(self) -> String {
        match self {
            Load::AsFastAsAnswered(senders) => format!("{senders} senders as fast as answered"),
            Load::PerSecond(rate) => format!("{rate}/s on schedule"),
        }
    }
}

/// Heartbeats for `seconds`, round-robin over `keys`; the latencies after
/// the first second, sorted.
async fn heartbeat_round(
    bench: &Arc<Bench>,
    keys: &Arc<Vec<AgentKey>>,
    load: Load,
    seconds: u64,
) -> Vec<Duration> {
    match load {
        Load::AsFastAsAnswered(senders) => closed_loop(bench, keys, senders, seconds).await,
        Load::PerSecond(rate) => on_schedule(bench, keys, rate, seconds).await,
    }
}

async fn closed_loop(
    bench: &Arc<Bench>,
    keys: &Arc<Vec<AgentKey>>,
    concurrency: usize,
    seconds: u64,
) -> Vec<Duration> {
    let next = Arc::new(AtomicUsize::new(keys.len()));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let warmup = Instant::now() + Duration::from_secs(1);
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (bench, keys, next) = (bench.clone(), keys.clone(), next.clone());
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                while Instant::now() < deadline {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let t0 = Instant::now();
                    send_heartbeat(&bench, &keys, n).await;
                    if t0 >= warmup {
                        latencies.push(t0.elapsed());
                    }
                }
                latencies
            })
        })
        .collect();
    let mut latencies: Vec<Duration> = Vec::new();
    for w in workers {
        latencies.extend(w.await.unwrap());
    }
    latencies.sort();
    latencies
}

/// `rate` heartbeats a second, each sent when due whether or not earlier
/// ones were answered, and timed from when it was due: a slow answer cannot
/// hold back the next sends and hide itself (coordinated omission).
async fn on_schedule(
    bench: &Arc<Bench>,
    keys: &Arc<Vec<AgentKey>>,
    rate: u32,
    seconds: u64,
) -> Vec<Duration> {
    let start = tokio::time::Instant::now();
    let total = rate as usize * seconds as usize;
    let mut sent = Vec::with_capacity(total);
    for n in 0..total {
        let due = start + Duration::from_secs_f64(n as f64 / rate as f64);
        tokio::time::sleep_until(due).await;
        let (bench, keys) = (bench.clone(), keys.clone());
        let counted = due >= start + Duration::from_secs(1);
        sent.push(tokio::spawn(async move {
            send_heartbeat(&bench, &keys, keys.len() + n).await;
            counted.then(|| due.elapsed())
        }));
    }
    let mut latencies: Vec<Duration> = Vec::new();
    for s in sent {
        latencies.extend(s.await.unwrap());
    }
    latencies.sort();
    latencies
}

async fn send_heartbeat(bench: &Bench, keys: &[AgentKey], n: usize) {
    let r = bench
        .signed(
            &keys[n % keys.len()],
            "/api/v1/agents/heartbeat",
            heartbeat(n),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
}

fn report_heartbeats(label: &str, latencies: &[Duration], seconds: u64) {
    let measured = seconds.saturating_sub(1).max(1) as f64;
    println!(
        "{label}: {:.0}/s, p50 {:.2} ms, p99 {:.2} ms (n={})",
        latencies.len() as f64 / measured,
        percentile(latencies, 0.50),
        percentile(latencies, 0.99),
        latencies.len()
    );
}

/// `jobs` restart jobs queued for the first Agents and taken announcing
/// progress; then, while heartbeats run, each job reports a stage with 20
/// lines every `every`. Prints the heartbeat figures and the progress
/// messages handled.
async fn progress_round(bench: &Arc<Bench>, keys: &Arc<Vec<AgentKey>>, args: &Args) {
    let load = match args.heartbeat_rate {
        Some(rate) => Load::PerSecond(rate),
        None => Load::AsFastAsAnswered(args.concurrency),
    };
    // The same load alone first, right before, so the two are comparable.
    let alone = heartbeat_round(bench, keys, load, args.seconds).await;
    report_heartbeats(
        &format!("heartbeats alone, {}", load.describe()),
        &alone,
        args.seconds,
    );
    let admin = bench.admin().await;
    let origin = bench.base.clone();
    let mut running = Vec::new();
    for (n, key) in keys.iter().take(args.progress_jobs).enumerate() {
        let job = json!({"agent_id": key.public_key().agent_id().to_string(),
            "kind": "restart_component", "payload": {"component_id": "sidecar-web"}});
        let r = admin
            .post(format!("{origin}/api/v1/jobs"))
            .header("origin", &origin)
            .json(&job)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap_or_default());
        let r = bench
            .signed(
                key,
                "/api/v1/agents/jobs/next",
                json!({"progress": true, "nonce": format!("p{n}")}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let offer: serde_json::Value = r.json().await.unwrap();
        running.push((n, offer["id"].as_str().unwrap().to_string()));
    }
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let every = Duration::from_millis(args.progress_every_ms);
    let jobs = running.len().max(1) as u32;
    let reporters: Vec<_> = running
        .into_iter()
        .map(|(n, job_id)| {
            let (bench, keys) = (bench.clone(), keys.clone());
            tokio::spawn(async move {
                // Jobs started at different times send out of step, as real
                // ones do; all at once would be a burst every interval.
                tokio::time::sleep(every * n as u32 / jobs).await;
                let mut latencies = Vec::new();
                let mut seq = 0u64;
                while Instant::now() < deadline {
                    seq += 1;
                    let lines: Vec<String> = (0..20)
                        .map(|i| format!("Container kr-sidecar-web-knotroute-1  step {seq}.{i}"))
                        .collect();
                    let body = json!({"job_id": job_id, "seq": seq, "nonce": format!("{n}-{seq}"),
                        "stages": [{"index": 0, "name": "up", "status": "running",
                            "started_at": "2026-12-02T10:00:00Z", "lines": lines}]});
                    let t0 = Instant::now();
                    let r = bench
                        .signed(&keys[n], "/api/v1/agents/jobs/progress", body)
                        .await;
                    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
                    latencies.push(t0.elapsed());
                    tokio::time::sleep(every.saturating_sub(t0.elapsed())).await;
                }
                latencies
            })
        })
        .collect();
    let heartbeats = heartbeat_round(bench, keys, load, args.seconds).await;
    let mut progress: Vec<Duration> = Vec::new();
    for r in reporters {
        progress.extend(r.await.unwrap());
    }
    progress.sort();
    report_heartbeats(
        &format!(
            "heartbeats while {} jobs report progress, {}",
            args.progress_jobs,
            load.describe()
        ),
        &heartbeats,
        args.seconds,
    );
    println!(
        "progress messages: {:.0}/s (20 lines each), p50 {:.2} ms, p99 {:.2} ms (n={})",
        progress.len() as f64 / args.seconds as f64,
        percentile(&progress, 0.50),
        percentile(&progress, 0.99),
        progress.len()
    );
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let bench = Arc::new(Bench::start(args.database_url.as_deref()).await);
    let db = bench.db.clone();
    let backend = if args.database_url.is_some() {
        "PostgreSQL"
    } else {
        "SQLite"
    };
    println!(
        "backend {backend}, {} agents, {} stored jobs, {} senders",
        args.agents, args.stored_jobs, args.concurrency
    );

    // Enroll every Agent (over HTTP, as in the field).
    let keys: Arc<Vec<AgentKey>> = Arc::new((0..args.agents).map(key).collect());
    let started = Instant::now();
    bench.enroll(&keys).await;
    println!("enrolled in {:.1} s", started.elapsed().as_secs_f64());

    if args.stored_jobs > 0 {
        support::store_finished_jobs(&db, &keys, args.stored_jobs, &[]).await;
        println!("stored {} finished jobs", args.stored_jobs);
    }

    // Warm-up: every Agent's first heartbeat writes its details and components;
    // measured separately so the main figure is the steady state at any count.
    let started = Instant::now();
    bench.first_heartbeats(&keys, args.concurrency).await;
    println!(
        "first heartbeats: {:.0}/s",
        args.agents as f64 / started.elapsed().as_secs_f64()
    );

    // Heartbeats: every sender takes the next Agent round-robin.
    let load = Load::AsFastAsAnswered(args.concurrency);
    let latencies = heartbeat_round(&bench, &keys, load, args.seconds).await;
    report_heartbeats("heartbeats", &latencies, args.seconds);

    // Dispatch: 50 Agents long-poll; the admin queues jobs one at a time.
    let admin = bench.admin().await;
    let origin = bench.base.clone();
    let pollers = args.agents.min(50);
    let mut latencies = Vec::new();
    for n in 0..args.dispatches {
        let agent = &keys[n % pollers];
        let poll = async {
            let r = bench
                .signed(
                    agent,
                    "/api/v1/agents/jobs/next?wait=30",
                    json!({"nonce": format!("d{n}")}),
                )
                .await;
            (r, Instant::now())
        };
        let queue = async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let t0 = Instant::now();
            let job = json!({"agent_id": agent.public_key().agent_id().to_string(), "kind": "restart_component",
                "payload": {"component_id": "sidecar-web"}});
            let r = admin
                .post(format!("{origin}/api/v1/jobs"))
                .header("origin", &origin)
                .json(&job)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 201, "{}", r.text().await.unwrap_or_default());
            t0
        };
        let ((response, received), t0) = tokio::join!(poll, queue);
        latencies.push(received.saturating_duration_since(t0));
        assert_eq!(response.status(), 200);
    }
    latencies.sort();
    println!(
        "dispatch (queued → received by long-poll): p50 {:.2} ms, p99 {:.2} ms (n={})",
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        latencies.len()
    );

    if args.progress_jobs > 0 {
        progress_round(&bench, &keys, &args).await;
    }
}
