//! The schema of Control's database. One migration set serves PostgreSQL and
//! SQLite, so only portable column types are used (timestamps with time zone,
//! JSON kept as text).

pub use sea_orm_migration::prelude::*;

mod m20261130_000001_initial;
mod m20261130_000002_agent_api;
mod m20261130_000003_jobs;
mod m20261130_000004_audit;
mod m20261130_000005_agent_lifecycle;
mod m20261130_000006_heartbeat_state;
mod m20261130_000007_beacon_checks;
mod m20261130_000008_job_network;
mod m20261130_000009_invites;
mod m20261130_000010_sidecar_index;
mod m20261130_000011_schedule_leases;
mod m20261130_000012_monitoring;
mod m20261130_000013_api_tokens;
mod m20261201_000014_revoked_keys;
mod m20261201_000015_enrollment_log_folding;
mod m20261201_000016_profile_version;
mod m20261201_000017_signin;
mod m20261202_000018_service_catalog;
mod m20261203_000019_control_identity;
mod m20261204_000020_job_progress;
mod m20261205_000021_users;
mod m20261206_000022_network_scope;
mod m20261207_000023_single_sign_on;
mod m20261208_000024_second_factor;
mod m20261209_000025_setup_checklist;
mod m20261210_000026_identity_backups;
mod m20261211_000027_service_probes;
mod m20261212_000028_identity_restarts;
mod m20261213_000029_component_networks;
mod m20261213_000030_alert_places;
mod m20261213_000031_signin_accounts;
mod m20261213_000032_network_names;
mod m20261213_000033_private_addresses;
mod m20261213_000034_agent_approval;
mod m20261213_000035_second_factor_setup_links;
mod m20261214_000036_agent_extensions;

pub use m20261206_000022_network_scope::file_audit_under_networks;

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261130_000001_initial::Migration),
            Box::new(m20261130_000002_agent_api::Migration),
            Box::new(m20261130_000003_jobs::Migration),
            Box::new(m20261130_000004_audit::Migration),
            Box::new(m20261130_000005_agent_lifecycle::Migration),
            Box::new(m20261130_000006_heartbeat_state::Migration),
            Box::new(m20261130_000007_beacon_checks::Migration),
            Box::new(m20261130_000008_job_network::Migration),
            Box::new(m20261130_000009_invites::Migration),
            Box::new(m20261130_000010_sidecar_index::Migration),
            Box::new(m20261130_000011_schedule_leases::Migration),
            Box::new(m20261130_000012_monitoring::Migration),
            Box::new(m20261130_000013_api_tokens::Migration),
            Box::new(m20261201_000014_revoked_keys::Migration),
            Box::new(m20261201_000015_enrollment_log_folding::Migration),
            Box::new(m20261201_000016_profile_version::Migration),
            Box::new(m20261201_000017_signin::Migration),
            Box::new(m20261202_000018_service_catalog::Migration),
            Box::new(m20261203_000019_control_identity::Migration),
            Box::new(m20261204_000020_job_progress::Migration),
            Box::new(m20261205_000021_users::Migration),
            Box::new(m20261206_000022_network_scope::Migration),
            Box::new(m20261207_000023_single_sign_on::Migration),
            Box::new(m20261208_000024_second_factor::Migration),
            Box::new(m20261209_000025_setup_checklist::Migration),
            Box::new(m20261210_000026_identity_backups::Migration),
            Box::new(m20261211_000027_service_probes::Migration),
            Box::new(m20261212_000028_identity_restarts::Migration),
            Box::new(m20261213_000029_component_networks::Migration),
            Box::new(m20261213_000030_alert_places::Migration),
            Box::new(m20261213_000031_signin_accounts::Migration),
            Box::new(m20261213_000032_network_names::Migration),
            Box::new(m20261213_000033_private_addresses::Migration),
            Box::new(m20261213_000034_agent_approval::Migration),
            Box::new(m20261213_000035_second_factor_setup_links::Migration),
            Box::new(m20261214_000036_agent_extensions::Migration),
        ]
    }
}
