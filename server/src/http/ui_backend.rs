//! The Leptos side of the server: the backend port implemented over the domain
//! services, and the per-request context (language, nonce, backend) for pages
//! and server functions.

use crate::domain::access::sign_in::Attempt;
use crate::domain::jobs::queue::{view as job_view, JobFilter};
use crate::domain::networks::Networks;
use crate::http::auth::{cleared_session_cookie, device_token, session_token, sign_in_cookies};
use crate::http::error::{ui_auth_error, ui_error};
use crate::http::extract::{came_over_https, client_address, peer_of};
use crate::http::lang::request_lang;
use crate::http::security::CspNonce;
use crate::state::AppState;
use app::api::infra::AgentAction;
use app::api::infra::AgentListPage;
use app::api::jobs::{JobListPage, JobQuery};
use app::api::overview::{OverviewLists, ATTENTION_SHOWN, RECENT_JOBS_SHOWN};
use app::api::NetworkListPage;
use app::backend::{AdminBackend, SharedBackend};
use app::error::UiError;
use async_trait::async_trait;
use leptos::prelude::*;
use protocol::api::{
    AgentChoice, AgentView, Choices, CreatedInstallToken, EnrollmentAttempt, InstallTokenView,
    JobView, NetworkInput, NetworkProfile, NewInstallToken, NewJob, OverviewCounts, RevokedKeyView,
};
use protocol::NetworkId;
use protocol::{AgentId, ApiTokenId, InstallTokenId, InviteId, JobId, JobStatus};
use std::sync::Arc;

/// Rows per page in the UI lists.
pub const UI_PAGE_SIZE: u64 = 50;

struct Backend {
    state: AppState,
}

impl Backend {
    fn networks(&self) -> &Networks {
        &self.state.networks
    }
}

#[async_trait]
impl AdminBackend for Backend {
    async fn overview(&self) -> Result<OverviewCounts, UiError> {
        self.state.overview.counts().await.map_err(ui_error)
    }

    async fn overview_lists(&self) -> Result<OverviewLists, UiError> {
        let (attention, attention_total) = self
            .state
            .inventory
            .needing_attention(ATTENTION_SHOWN)
            .await
            .map_err(ui_error)?;
        let filter = JobFilter {
            limit: RECENT_JOBS_SHOWN,
            ..JobFilter::default()
        };
        let (recent_jobs, _) = self
            .state
            .jobs
            .list_views(&filter)
            .await
            .map_err(ui_error)?;
        Ok(OverviewLists {
            attention,
            attention_total,
            recent_jobs,
        })
    }

    async fn list_networks(
        &self,
        after: Option<String>,
        search: Option<String>,
    ) -> Result<NetworkListPage, UiError> {
        let page = self
            .networks()
            .list(after.as_deref(), search.as_deref(), UI_PAGE_SIZE)
            .await
            .map_err(ui_error)?;
        Ok(NetworkListPage {
            items: page.items,
            next: page.next,
        })
    }

    async fn get_network(&self, id: NetworkId) -> Result<NetworkProfile, UiError> {
        self.networks().get(&id).await.map_err(ui_error)
    }

    async fn create_network(&self, input: NetworkInput) -> Result<NetworkProfile, UiError> {
        let profile = self.networks().create(input).await.map_err(ui_error)?;
        Ok(profile)
    }

    async fn update_network(
        &self,
        id: NetworkId,
        input: NetworkInput,
    ) -> Result<NetworkProfile, UiError> {
        let profile = self.networks().update(&id, input).await.map_err(ui_error)?;
        Ok(profile)
    }

    async fn delete_network(&self, id: NetworkId) -> Result<(), UiError> {
        self.networks().delete(&id).await.map_err(ui_error)?;
        Ok(())
    }

    async fn list_audit(
        &self,
        action: Option<String>,
        subject: Option<String>,
        before: Option<i64>,
    ) -> Result<app::api::audit::AuditPage, UiError> {
        let filter = crate::domain::audit::AuditFilter {
            action,
            subject,
            before,
            // One more than a page tells whether an older page exists.
            limit: Some(app::api::audit::AUDIT_PAGE + 1),
        };
        let mut items = crate::domain::audit::list(&self.state.db, &filter)
            .await
            .map_err(ui_error)?;
        let next = crate::domain::split_page(&mut items, app::api::audit::AUDIT_PAGE, |e| {
            e.id.to_string()
        })
        .and_then(|id| id.parse().ok());
        Ok(app::api::audit::AuditPage { items, next })
    }

    async fn list_beacons(&self) -> Result<Vec<protocol::beacons::BeaconView>, UiError> {
        self.state.beacons.list().await.map_err(ui_error)
    }

    async fn check_beacon(
        &self,
        beacon: protocol::beacons::BeaconRef,
    ) -> Result<protocol::beacons::BeaconCheckView, UiError> {
        self.state.beacons.check(&beacon).await.map_err(ui_error)
    }

    async fn add_existing_beacon(
        &self,
        beacon: protocol::beacons::BeaconRef,
    ) -> Result<NetworkProfile, UiError> {
        self.state
            .beacons
            .add_existing(&beacon)
            .await
            .map_err(ui_error)
    }

    async fn agent_choices(
        &self,
        search: Option<String>,
        deployable: bool,
    ) -> Result<Choices<AgentChoice>, UiError> {
        let (items, more) = self
            .state
            .inventory
            .choices(search.as_deref(), deployable, app::api::infra::CHOICES_MAX)
            .await
            .map_err(ui_error)?;
        Ok(Choices { items, more })
    }

    async fn list_agents_page(&self, after: Option<String>) -> Result<AgentListPage, UiError> {
        let (items, next) = self
            .state
            .inventory
            .list_page(after.as_deref(), UI_PAGE_SIZE)
            .await
            .map_err(ui_error)?;
        Ok(AgentListPage { items, next })
    }

    async fn get_agent(&self, id: AgentId) -> Result<AgentView, UiError> {
        self.state.inventory.get(&id).await.map_err(ui_error)
    }

    async fn agent_action(&self, id: AgentId, action: AgentAction) -> Result<(), UiError> {
        let inventory = &self.state.inventory;
        match action {
            AgentAction::Disable => inventory.set_disabled(&id, true).await.map(drop),
            AgentAction::Enable => inventory.set_disabled(&id, false).await.map(drop),
            AgentAction::Revoke => inventory.revoke(&id).await.map(drop),
            AgentAction::Delete => inventory.delete(&id).await,
        }
        .map_err(ui_error)
    }

    async fn move_agent(&self, id: AgentId) -> Result<CreatedInstallToken, UiError> {
        self.state
            .inventory
            .move_to_new_host(&id)
            .await
            .map_err(ui_error)
    }

    async fn create_install_token(
        &self,
        input: NewInstallToken,
    ) -> Result<CreatedInstallToken, UiError> {
        self.state
            .install_tokens
            .create(&input)
            .await
            .map_err(ui_error)
    }

    async fn list_install_tokens(&self) -> Result<Vec<InstallTokenView>, UiError> {
        let (rows, _) = self
            .state
            .install_tokens
            .list(None, UI_PAGE_SIZE)
            .await
            .map_err(ui_error)?;
        Ok(rows)
    }

    async fn revoke_install_token(&self, id: InstallTokenId) -> Result<(), UiError> {
        self.state
            .install_tokens
            .revoke(&id)
            .await
            .map(drop)
            .map_err(ui_error)
    }

    async fn list_revoked_keys(&self) -> Result<Vec<RevokedKeyView>, UiError> {
        let (rows, _) = self
            .state
            .revoked_keys
            .list(None, UI_PAGE_SIZE)
            .await
            .map_err(ui_error)?;
        Ok(rows)
    }

    async fn allow_revoked_key(&self, agent_id: AgentId) -> Result<(), UiError> {
        self.state
            .revoked_keys
            .allow(&agent_id)
            .await
            .map_err(ui_error)
    }

    async fn list_services_page(
        &self,
        after: Option<String>,
    ) -> Result<app::api::infra::ServiceListPage, UiError> {
        let (items, next) = self
            .state
            .inventory
            .sidecars_page(after.as_deref(), app::api::infra::SERVICES_PAGE)
            .await
            .map_err(ui_error)?;
        Ok(app::api::infra::ServiceListPage { items, next })
    }

    async fn alert_settings(&self) -> Result<protocol::alerts::AlertSettings, UiError> {
        self.state.alerts.settings().await.map_err(ui_error)
    }

    async fn set_alert_webhook(
        &self,
        input: protocol::alerts::AlertSettingsInput,
    ) -> Result<protocol::alerts::AlertSettings, UiError> {
        self.state
            .alerts
            .set_webhook(&input)
            .await
            .map_err(ui_error)
    }

    async fn send_test_alert(&self) -> Result<protocol::alerts::TestAlertOutcome, UiError> {
        self.state.alerts.send_test().await.map_err(ui_error)
    }

    async fn control_identity(&self) -> Result<protocol::api::ControlIdentityView, UiError> {
        self.state.identity.describe().await.map_err(ui_error)
    }

    async fn list_api_tokens(&self) -> Result<Vec<protocol::tokens::TokenView>, UiError> {
        self.state.api_tokens.list().await.map_err(ui_error)
    }

    async fn create_api_token(
        &self,
        input: protocol::tokens::TokenInput,
    ) -> Result<protocol::tokens::CreatedToken, UiError> {
        self.state.api_tokens.create(&input).await.map_err(ui_error)
    }

    async fn revoke_api_token(
        &self,
        id: ApiTokenId,
    ) -> Result<protocol::tokens::TokenView, UiError> {
        self.state.api_tokens.revoke(&id).await.map_err(ui_error)
    }

    async fn diagnose_network(
        &self,
        id: NetworkId,
        lang: protocol::Lang,
    ) -> Result<protocol::diagnostics::Diagnosis, UiError> {
        self.state
            .diagnostics
            .diagnose(&id, lang)
            .await
            .map_err(ui_error)
    }

    async fn onboarding_guide(
        &self,
        network: NetworkId,
        platform: protocol::onboarding::Platform,
        lang: protocol::Lang,
    ) -> Result<protocol::onboarding::OnboardingGuide, UiError> {
        let profile = self.networks().get(&network).await.map_err(ui_error)?;
        Ok(crate::domain::onboarding::guide::guide(
            &profile, "", platform, lang,
        ))
    }

    async fn create_invite(
        &self,
        input: protocol::onboarding::NewInvite,
    ) -> Result<protocol::onboarding::CreatedInvite, UiError> {
        self.state.invites.create(&input).await.map_err(ui_error)
    }

    async fn list_invites(
        &self,
        after: Option<String>,
    ) -> Result<app::api::onboarding::InviteListPage, UiError> {
        let (items, next) = self
            .state
            .invites
            .list(None, after.as_deref(), app::api::onboarding::INVITES_PAGE)
            .await
            .map_err(ui_error)?;
        Ok(app::api::onboarding::InviteListPage { items, next })
    }

    async fn revoke_invite(&self, id: InviteId) -> Result<(), UiError> {
        self.state
            .invites
            .revoke(&id)
            .await
            .map(drop)
            .map_err(ui_error)
    }

    async fn enrollment_log(
        &self,
        lang: protocol::Lang,
    ) -> Result<Vec<EnrollmentAttempt>, UiError> {
        let (rows, _) = self
            .state
            .enrollment
            .log(None, UI_PAGE_SIZE, lang)
            .await
            .map_err(ui_error)?;
        Ok(rows)
    }

    async fn list_jobs(&self, query: JobQuery) -> Result<JobListPage, UiError> {
        // A status no job can have (a hand-edited link) matches nothing.
        let status = match query.status.as_deref().map(JobStatus::parse) {
            Some(None) => {
                return Ok(JobListPage {
                    items: Vec::new(),
                    next: None,
                })
            }
            Some(status) => status,
            None => None,
        };
        let filter = JobFilter {
            status,
            agent_id: query.agent_id,
            kind: query.kind,
            network_id: query.network_id,
            after: query.after,
            limit: UI_PAGE_SIZE,
        };
        let (items, next) = self
            .state
            .jobs
            .list_views(&filter)
            .await
            .map_err(ui_error)?;
        Ok(JobListPage { items, next })
    }

    async fn create_job(&self, job: NewJob) -> Result<JobView, UiError> {
        let row = self
            .state
            .jobs
            .create(&job.agent_id, &job.kind, &job.payload)
            .await
            .map_err(ui_error)?;
        Ok(job_view(&row))
    }

    async fn cancel_job(&self, id: JobId) -> Result<(), UiError> {
        self.state
            .jobs
            .cancel(&id)
            .await
            .map(drop)
            .map_err(ui_error)
    }

    async fn retry_job(&self, id: JobId) -> Result<protocol::api::JobView, UiError> {
        self.state
            .jobs
            .retry(&id)
            .await
            .map(|job| job_view(&job))
            .map_err(ui_error)
    }

    async fn get_job(&self, id: JobId) -> Result<protocol::api::JobView, UiError> {
        self.state.jobs.view_of(&id).await.map_err(ui_error)
    }

    async fn job_log(
        &self,
        id: JobId,
        after: u64,
    ) -> Result<protocol::progress::JobLogPage, UiError> {
        self.state
            .jobs
            .journal()
            .lines(&id, after)
            .await
            .map_err(ui_error)
    }

    async fn sign_in(
        &self,
        password: String,
        request: &http::request::Parts,
    ) -> Result<Vec<String>, UiError> {
        let peer = peer_of(&request.extensions);
        let config = &self.state.config;
        let client = client_address(&request.headers, peer, &config.trusted_proxies);
        let device = device_token(&request.headers);
        let from = Attempt {
            client: &client,
            device: device.as_deref(),
        };
        let session = self
            .state
            .auth
            .sign_in(&password, from)
            .await
            .map_err(ui_auth_error)?;
        let secure = came_over_https(&request.headers, peer, config);
        Ok(sign_in_cookies(&session, secure))
    }

    async fn sign_out(&self, request: &http::request::Parts) -> Result<String, UiError> {
        if let Some(token) = session_token(&request.headers) {
            self.state
                .auth
                .sign_out(&token)
                .await
                .map_err(ui_auth_error)?;
        }
        let secure = came_over_https(
            &request.headers,
            peer_of(&request.extensions),
            &self.state.config,
        );
        Ok(cleared_session_cookie(secure))
    }
}

/// Runs for every page render and server-function call.
pub fn request_context(state: AppState) -> impl Fn() + Clone + Send + Sync + 'static {
    let preloads = app::screen_split::ScreenPreloads(state.chunk_batches.preloads());
    let backend: SharedBackend = Arc::new(Backend { state });
    move || {
        provide_context(backend.clone());
        provide_context(preloads.clone());
        if let Some(parts) = use_context::<http::request::Parts>() {
            provide_context(request_lang(&parts.headers));
            // Only the session gate inserts this, and only after it verified
            // the request's session (see app::backend::backend).
            if parts
                .extensions
                .get::<crate::http::auth::VerifiedAdmin>()
                .is_some()
            {
                provide_context(app::backend::SignedInRequest);
            }
            if let Some(nonce) = parts.extensions.get::<CspNonce>() {
                provide_context(leptos::nonce::Nonce::from_value(nonce.0.clone()));
            }
        }
    }
}
