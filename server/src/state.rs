//! What every request handler can reach.

use crate::config::Config;
use crate::domain::access::api_tokens::ApiTokens;
use crate::domain::access::control_identity::ControlIdentity;
use crate::domain::access::sign_in::AdminSessions;
use crate::domain::agents::control_trust::ControlTrust;
use crate::domain::agents::enrollment::Enrollment;
use crate::domain::agents::install_tokens::InstallTokens;
use crate::domain::agents::inventory::AgentInventory;
use crate::domain::agents::requests::AgentRequests;
use crate::domain::agents::revoked_keys::RevokedKeys;
use crate::domain::alerts::settings::Alerts;
use crate::domain::beacons::checks::BeaconChecks;
use crate::domain::beacons::diagnostics::Diagnostics;
use crate::domain::jobs::queue::JobQueue;
use crate::domain::jobs::reconcile::Reconciler;
use crate::domain::live::ChangeFeed;
use crate::domain::networks::Networks;
use crate::domain::onboarding::invites::Invites;
use crate::domain::overview::Overview;
use crate::http::throttle::AddressThrottle;
use crate::metrics::Metrics;
use axum::extract::FromRef;
use leptos::config::LeptosOptions;
use sea_orm::DatabaseConnection;
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub db: DatabaseConnection,
    pub networks: Networks,
    pub beacons: BeaconChecks,
    pub auth: AdminSessions,
    pub agents: AgentRequests,
    pub enrollment: Enrollment,
    pub install_tokens: InstallTokens,
    /// Keys revoked by the admin, refused at enrollment until allowed again.
    pub revoked_keys: RevokedKeys,
    pub invites: Invites,
    /// Limits how often one client address may open invite pages.
    pub invite_throttle: AddressThrottle,
    /// Limits how often one client address may call the machine endpoints; `None`: off.
    pub machine_throttle: Option<AddressThrottle>,
    pub inventory: AgentInventory,
    pub jobs: JobQueue,
    pub reconciler: Reconciler,
    pub overview: Overview,
    /// What the admin screens' live updates are made of.
    pub live: ChangeFeed,
    pub metrics: Metrics,
    pub diagnostics: Diagnostics,
    pub alerts: Alerts,
    pub api_tokens: ApiTokens,
    /// Control's signing keys: every answer an Agent acts on is signed.
    pub identity: ControlIdentity,
    /// What Agents report about that key (their pin, refused answers).
    pub control_trust: ControlTrust,
    pub leptos: LeptosOptions,
    /// The split front end's chunk files, answered in batches.
    pub chunk_batches: crate::http::chunk_batch::ChunkBatches,
}

/// The front end's file names (`output-name` in the workspace's leptos metadata).
const OUTPUT_NAME: &str = "knotroute";

impl AppState {
    pub fn new(config: Config, db: DatabaseConnection) -> Self {
        // With a hash list the pages name the content-hashed files
        // (http::assets); without one, the plain names of an unhashed build.
        let hash_file = crate::http::assets::hash_file(&config.site_root, OUTPUT_NAME);
        let chunk_batches =
            crate::http::chunk_batch::ChunkBatches::load(&config.site_root, hash_file.as_deref());
        let leptos = LeptosOptions::builder()
            .output_name(OUTPUT_NAME)
            .site_root(config.site_root.display().to_string())
            .site_pkg_dir("pkg")
            .site_addr(config.listen)
            .hash_files(hash_file.is_some())
            .hash_file(
                hash_file
                    .map(|path| path.display().to_string())
                    .unwrap_or_else(|| "hash.txt".to_string())
                    .into(),
            )
            .build();
        let policy = crate::domain::beacons::checks::AddressPolicy {
            allow_private: config.allow_private_beacons,
        };
        let alerts = Alerts::new(
            db.clone(),
            config
                .alert_webhook
                .as_ref()
                .map(|s| s.expose().to_string()),
            config.public_url.as_ref().map(|u| u.to_string()),
            policy,
        );
        let jobs = JobQueue::new(db.clone(), alerts.clone());
        let reconciler = Reconciler::new(db.clone(), jobs.clone());
        let install_tokens = InstallTokens::new(db.clone(), config.public_url.clone());
        let networks = Networks::new(db.clone());
        let metrics = Metrics::new();
        let inventory = AgentInventory::new(
            db.clone(),
            reconciler.clone(),
            install_tokens.clone(),
            config.agent_offline_after,
        );
        let identity = ControlIdentity::new(db.clone());
        Self {
            control_trust: ControlTrust::new(db.clone(), identity.clone()),
            identity,
            beacons: BeaconChecks::new(
                db.clone(),
                networks.clone(),
                metrics.clone(),
                alerts.clone(),
                policy,
            ),
            alerts,
            api_tokens: ApiTokens::new(db.clone()),
            metrics,
            diagnostics: Diagnostics::new(networks.clone(), inventory.clone(), policy),
            invites: Invites::new(db.clone(), networks.clone(), config.public_url.clone()),
            invite_throttle: crate::http::invite_page::invite_throttle(),
            machine_throttle: config.machine_rate_limit.map(AddressThrottle::per_minute),
            networks,
            auth: AdminSessions::new(db.clone(), config.admin_password.expose()),
            agents: AgentRequests::new(db.clone()),
            enrollment: Enrollment::new(db.clone(), config.enroll_token.expose()),
            inventory,
            install_tokens,
            revoked_keys: RevokedKeys::new(db.clone()),
            jobs,
            reconciler,
            overview: Overview::new(db.clone(), config.agent_offline_after),
            live: ChangeFeed::new(db.clone(), config.agent_offline_after),
            config: Arc::new(config),
            db,
            leptos,
            chunk_batches,
        }
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}
