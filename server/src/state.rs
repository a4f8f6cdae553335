//! What every request handler can reach.

use crate::config::Config;
use crate::domain::services::{DomainSettings, Services};
use crate::http::throttle::AddressThrottle;
use axum::extract::FromRef;
use leptos::config::LeptosOptions;
use sea_orm::DatabaseConnection;
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    /// The domain services; `state.networks` and the like reach them
    /// through `Deref`, as every handler has always written it.
    pub services: Services,
    /// Limits how often one client address may open invite pages.
    pub invite_throttle: AddressThrottle,
    /// Limits how often one client address may begin a single sign-on.
    pub sso_throttle: AddressThrottle,
    /// Limits how often one client address may call the machine endpoints; `None`: off.
    pub machine_throttle: Option<AddressThrottle>,
    pub leptos: LeptosOptions,
    /// The split front end's chunk files, answered in batches.
    pub chunk_batches: crate::http::chunk_batch::ChunkBatches,
    /// The islands build's main files, when the site's front end is that build (app::islands).
    pub islands_build: Option<app::islands::IslandsBuild>,
}

/// The front end's file names (`output-name` in the workspace's leptos metadata).
pub(crate) const OUTPUT_NAME: &str = "knotroute";

impl AppState {
    pub fn new(config: Config, db: DatabaseConnection) -> Self {
        // With a hash list the pages name the content-hashed files
        // (http::assets); without one, the plain names of an unhashed build.
        let hash_file = crate::http::assets::hash_file(&config.site_root, OUTPUT_NAME);
        let chunk_batches =
            crate::http::chunk_batch::ChunkBatches::load(&config.site_root, hash_file.as_deref());
        let islands_build = crate::http::assets::islands_build(
            &config.site_root,
            hash_file.as_deref(),
            OUTPUT_NAME,
        );
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
        let services = Services::new(
            db,
            DomainSettings {
                admin_password: config.admin_password.expose(),
                enroll_token: config.enroll_token.expose(),
                public_url: config.public_url.clone(),
                alert_webhook: config
                    .alert_webhook
                    .as_ref()
                    .map(|s| s.expose().to_string()),
                allow_private_beacons: config.allow_private_beacons,
                agent_offline_after: config.agent_offline_after,
                sso: config.sso.clone(),
            },
        );
        Self {
            services,
            invite_throttle: crate::http::invite_page::invite_throttle(),
            sso_throttle: crate::http::sso::start_throttle(),
            machine_throttle: config.machine_rate_limit.map(AddressThrottle::per_minute),
            config: Arc::new(config),
            leptos,
            chunk_batches,
            islands_build,
        }
    }
}

impl std::ops::Deref for AppState {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.services
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}
