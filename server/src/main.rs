//! `knotroute-control`: runs Control (default), or one of the operator
//! commands in `server::ops` (migrate, backup, restore, import-state).

use axum::serve::ListenerExt;
use clap::Parser;
use server::config::{Cli, Command};
use server::{db, http, AppState};
use std::process::ExitCode;
use std::time::Duration;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,sea_orm=warn")),
        )
        .init();
    let cli = Cli::parse();
    if cli.command == Some(Command::PrecompressBatches) {
        return http::chunk_batch::precompress_site(&cli.settings.site_root());
    }
    if let Some(command) = cli.command.as_ref().filter(|c| **c != Command::Serve) {
        return server::ops::run(command, &cli.settings).await;
    }
    let config = match cli.settings.validate() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("knotroute-control: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(warning) = config.public_url_warning() {
        tracing::warn!("{warning}");
    }
    if !config.trusted_proxies.is_empty() {
        tracing::info!(trusted_proxies = %config.trusted_proxies, "forwarded headers are believed only from these peers");
    }
    let conn = match db::connect(&config.database).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("knotroute-control: {e}");
            return ExitCode::from(1);
        }
    };
    if let Err(e) = db::migrate(&conn).await {
        eprintln!("knotroute-control: {e}");
        return ExitCode::from(1);
    }

    let state = AppState::new(config.clone(), conn);
    // Made at first start; logged so the operator can compare it with what
    // `knotroute-control identity` and the Agents show.
    match state.identity.describe().await {
        Ok(id) => tracing::info!(fingerprint = %id.current.fingerprint, "Control identity key"),
        Err(e) => tracing::warn!(error = %e, "Control identity key not readable yet"),
    }
    spawn_pruning(state.clone());
    spawn_backup_schedule(&state);
    spawn_probe_schedule(&state);
    state.alerts.clone().spawn_delivery();
    state
        .alerts
        .clone()
        .spawn_agent_watch(config.agent_offline_after);
    if let Some(interval) = config.beacon_check_interval {
        server::domain::beacons::schedule::BeaconSchedule::new(
            state.db.clone(),
            state.beacons.clone(),
            state.networks.clone(),
            interval,
        )
        .spawn();
    }
    let listener = match tokio::net::TcpListener::bind(config.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("knotroute-control: cannot listen on {}: {e}", config.listen);
            return ExitCode::from(1);
        }
    };
    tracing::info!(listen = %config.listen, version = server::VERSION, "KnotRoute Control started");
    let live = state.live.clone();
    let app = http::router(state);
    // Pages stream in several writes; without TCP_NODELAY, Nagle's algorithm
    // and the client's delayed ACK add ~40 ms to every page on a kept-alive connection.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
    });
    let served = axum::serve(
        listener,
        app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        shutdown_signal().await;
        // Open live-update streams would otherwise hold the shutdown open.
        live.close();
    })
    .await;
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("knotroute-control: server error: {e}");
            ExitCode::from(1)
        }
    }
}

/// Daily identity backups and their verification, looked for every ten
/// minutes (`domain::backups::schedule`).
fn spawn_backup_schedule(state: &AppState) {
    let schedule = server::domain::backups::schedule::BackupSchedule::new(
        state.db.clone(),
        state.jobs.clone(),
    );
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(600));
        loop {
            tick.tick().await;
            match schedule.queue_due(chrono::Utc::now()).await {
                Ok(queued) if queued.is_empty() => {}
                Ok(queued) => {
                    tracing::info!(jobs = queued.len(), "scheduled identity backup jobs queued")
                }
                Err(e) => tracing::warn!(error = %e, "looking for due identity backups failed"),
            }
        }
    });
}

/// Each network's end-to-end probe, looked for every minute
/// (`domain::probes::schedule`), and the nodes no probe wants any more
/// (`domain::probes::nodes`).
fn spawn_probe_schedule(state: &AppState) {
    use server::domain::probes::schedule::{ProbeSchedule, TICK};
    let schedule = ProbeSchedule::new(state.db.clone(), state.jobs.clone());
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(TICK);
        loop {
            tick.tick().await;
            // Nodes left by a probe stopped, moved, or whose network was deleted.
            match schedule.remove_unused_nodes(chrono::Utc::now()).await {
                Ok(queued) if queued.is_empty() => {}
                Ok(queued) => tracing::info!(jobs = queued.len(), "unused probe nodes to remove"),
                Err(e) => tracing::warn!(error = %e, "looking for unused probe nodes failed"),
            }
            match schedule.queue_due(chrono::Utc::now()).await {
                Ok(queued) if queued.is_empty() => {}
                Ok(queued) => tracing::debug!(jobs = queued.len(), "end-to-end probes queued"),
                Err(e) => tracing::warn!(error = %e, "looking for due probes failed"),
            }
        }
    });
}

/// Expired sessions, old failed sign-ins, old request signatures and log
/// lines past their retention are deleted every ten minutes (and at start-up).
fn spawn_pruning(state: AppState) {
    // Leases are checked often: an expired job should show as such within a minute.
    let jobs = state.jobs.clone();
    tokio::spawn(async move {
        match jobs.renew_progress_leases().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(renewed = n, "running jobs get a minute to report again"),
            Err(e) => tracing::warn!(error = %e, "renewing job leases at start failed"),
        }
        let mut tick = tokio::time::interval(Duration::from_secs(30));
        loop {
            tick.tick().await;
            match jobs.expire_overdue().await {
                Ok(0) => {}
                Ok(n) => tracing::warn!(expired = n, "jobs expired without a result"),
                Err(e) => tracing::warn!(error = %e, "expiring job leases failed"),
            }
        }
    });
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(600));
        loop {
            tick.tick().await;
            if let Err(e) = state.auth.prune().await {
                tracing::warn!(error = %e, "pruning sessions failed");
            }
            if let Some(sso) = &state.sso {
                if let Err(e) = sso.prune().await {
                    tracing::warn!(error = %e, "pruning unfinished single sign-ons failed");
                }
            }
            if let Err(e) = state.agents.prune().await {
                tracing::warn!(error = %e, "pruning seen signatures failed");
            }
            let retention = state.config.log_retention;
            match server::domain::log_retention::prune(&state.db, chrono::Utc::now(), retention)
                .await
            {
                Ok(0) => {}
                Ok(n) => tracing::info!(deleted = n, "log lines past their retention pruned"),
                Err(e) => tracing::warn!(error = %e, "pruning the logs failed"),
            }
        }
    });
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down");
}
