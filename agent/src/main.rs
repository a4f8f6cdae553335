//! knotroute-agent: reads its settings, loads or enrolls its identity, then
//! runs until SIGTERM or SIGINT.

use agent::client::ControlClient;
use agent::config::Settings;
use clap::Parser;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let settings = Settings::parse();
    if settings.health_check {
        let limit = (settings.poll * 3).max(std::time::Duration::from_secs(45));
        return match agent::health::check(&settings.data, limit) {
            Ok(age) => {
                println!(
                    "healthy: Control accepted a heartbeat {} s ago",
                    age.as_secs()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("knotroute-agent: unhealthy: {e}");
                ExitCode::from(1)
            }
        };
    }
    let config = match settings.validate() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("knotroute-agent: {e}");
            return ExitCode::from(2);
        }
    };
    let client = match ControlClient::new(&config) {
        Ok(client) => client,
        Err(e) => {
            eprintln!("knotroute-agent: {e}");
            return ExitCode::from(2);
        }
    };
    let identity = match agent::enrollment::identity(&config, &client).await {
        Ok(identity) => identity,
        Err(e) => {
            eprintln!("knotroute-agent: {e}");
            return ExitCode::from(1);
        }
    };
    tracing::info!(agent_id = %identity.agent_id, control = %config.control_url, "running");
    agent::run::run(config, identity, client, shutdown_signal()).await;
    ExitCode::SUCCESS
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = interrupt => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}
