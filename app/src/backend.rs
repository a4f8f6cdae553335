//! The port through which server functions reach Control's domain services.
//! The server crate implements it; keeping it a trait lets `app` stay below
//! `server` in the crate graph.

use crate::error::UiError;
use async_trait::async_trait;
use protocol::api::{
    AgentChoice, AgentView, Choices, CreatedInstallToken, EnrollmentAttempt, InstallTokenView,
    NetworkInput, NetworkProfile, NewInstallToken, OverviewCounts, RevokedKeyView,
};
use protocol::{AgentId, ApiTokenId, InstallTokenId, InviteId, JobId, NetworkId};
use std::sync::Arc;

/// One page of the networks list.
pub use crate::api::NetworkListPage;

#[async_trait]
pub trait AdminBackend: Send + Sync + 'static {
    async fn overview(&self) -> Result<OverviewCounts, UiError>;
    async fn overview_lists(&self) -> Result<crate::api::overview::OverviewLists, UiError>;
    async fn list_networks(
        &self,
        after: Option<String>,
        search: Option<String>,
    ) -> Result<NetworkListPage, UiError>;
    async fn get_network(&self, id: NetworkId) -> Result<NetworkProfile, UiError>;
    async fn create_network(&self, input: NetworkInput) -> Result<NetworkProfile, UiError>;
    async fn update_network(
        &self,
        id: NetworkId,
        input: NetworkInput,
    ) -> Result<NetworkProfile, UiError>;
    async fn delete_network(&self, id: NetworkId) -> Result<(), UiError>;
    async fn list_beacons(&self) -> Result<Vec<protocol::beacons::BeaconView>, UiError>;
    async fn check_beacon(
        &self,
        beacon: protocol::beacons::BeaconRef,
    ) -> Result<protocol::beacons::BeaconCheckView, UiError>;
    async fn add_existing_beacon(
        &self,
        beacon: protocol::beacons::BeaconRef,
    ) -> Result<NetworkProfile, UiError>;
    /// The Agents the forms offer (by name, at most `infra_api::CHOICES_MAX`).
    async fn agent_choices(
        &self,
        search: Option<String>,
        deployable: bool,
    ) -> Result<Choices<AgentChoice>, UiError>;

    /// One page of Agents by name, from after the Agent `after`.
    async fn list_agents_page(
        &self,
        after: Option<String>,
    ) -> Result<crate::api::infra::AgentListPage, UiError>;
    async fn get_agent(&self, id: AgentId) -> Result<AgentView, UiError>;
    /// One page of published services by name, from after the sidecar `after`.
    async fn list_services_page(
        &self,
        after: Option<String>,
    ) -> Result<crate::api::infra::ServiceListPage, UiError>;
    async fn agent_action(
        &self,
        id: AgentId,
        action: crate::api::infra::AgentAction,
    ) -> Result<(), UiError>;
    async fn move_agent(&self, id: AgentId) -> Result<CreatedInstallToken, UiError>;
    async fn create_install_token(
        &self,
        input: NewInstallToken,
    ) -> Result<CreatedInstallToken, UiError>;
    /// The newest install tokens (one screenful).
    async fn list_install_tokens(&self) -> Result<Vec<InstallTokenView>, UiError>;
    async fn revoke_install_token(&self, id: InstallTokenId) -> Result<(), UiError>;
    /// The newest revoked keys (one screenful).
    async fn list_revoked_keys(&self) -> Result<Vec<RevokedKeyView>, UiError>;
    /// Lets a revoked key enroll again; its Agent record must be deleted first.
    async fn allow_revoked_key(&self, agent_id: AgentId) -> Result<(), UiError>;
    /// The layered diagnosis of a profile, in `lang`.
    async fn diagnose_network(
        &self,
        id: NetworkId,
        lang: protocol::Lang,
    ) -> Result<protocol::diagnostics::Diagnosis, UiError>;
    /// The newest enrollment attempts (one screenful), in the request's language.
    async fn enrollment_log(&self, lang: protocol::Lang)
        -> Result<Vec<EnrollmentAttempt>, UiError>;
    /// One platform's onboarding guide for a profile, in `lang`.
    async fn onboarding_guide(
        &self,
        network: NetworkId,
        platform: protocol::onboarding::Platform,
        lang: protocol::Lang,
    ) -> Result<protocol::onboarding::OnboardingGuide, UiError>;
    async fn create_invite(
        &self,
        input: protocol::onboarding::NewInvite,
    ) -> Result<protocol::onboarding::CreatedInvite, UiError>;
    /// One page of invites, newest first, at most `onboarding_api::INVITES_PAGE`.
    async fn list_invites(
        &self,
        after: Option<String>,
    ) -> Result<crate::api::onboarding::InviteListPage, UiError>;
    async fn revoke_invite(&self, id: InviteId) -> Result<(), UiError>;
    async fn list_jobs(
        &self,
        query: crate::api::jobs::JobQuery,
    ) -> Result<crate::api::jobs::JobListPage, UiError>;
    async fn get_job(&self, id: JobId) -> Result<protocol::api::JobView, UiError>;
    /// The job's output after line `after`, one page.
    async fn job_log(
        &self,
        id: JobId,
        after: u64,
    ) -> Result<protocol::progress::JobLogPage, UiError>;
    async fn create_job(
        &self,
        job: protocol::api::NewJob,
    ) -> Result<protocol::api::JobView, UiError>;
    async fn cancel_job(&self, id: JobId) -> Result<(), UiError>;
    /// Queues the job again; answers with the new job.
    async fn retry_job(&self, id: JobId) -> Result<protocol::api::JobView, UiError>;
    /// One page of the audit log, newest first, at most `AUDIT_PAGE` lines.
    async fn list_audit(
        &self,
        action: Option<String>,
        subject: Option<String>,
        before: Option<i64>,
    ) -> Result<crate::api::audit::AuditPage, UiError>;
    async fn alert_settings(&self) -> Result<protocol::alerts::AlertSettings, UiError>;
    /// Sets the alert webhook; an empty URL turns alerts off.
    async fn set_alert_webhook(
        &self,
        input: protocol::alerts::AlertSettingsInput,
    ) -> Result<protocol::alerts::AlertSettings, UiError>;
    async fn send_test_alert(&self) -> Result<protocol::alerts::TestAlertOutcome, UiError>;
    /// Control's identity key (and the previous one during a rotation).
    async fn control_identity(&self) -> Result<protocol::api::ControlIdentityView, UiError>;
    /// Personal API tokens, newest first (never the tokens themselves).
    async fn list_api_tokens(&self) -> Result<Vec<protocol::tokens::TokenView>, UiError>;
    /// Creates a token; the answer is the only place the token appears.
    async fn create_api_token(
        &self,
        input: protocol::tokens::TokenInput,
    ) -> Result<protocol::tokens::CreatedToken, UiError>;
    async fn revoke_api_token(
        &self,
        id: ApiTokenId,
    ) -> Result<protocol::tokens::TokenView, UiError>;
    /// Checks the password for the requesting client; returns the `Set-Cookie` values.
    async fn sign_in(
        &self,
        password: String,
        request: &http::request::Parts,
    ) -> Result<Vec<String>, UiError>;
    /// Ends the request's session; returns the `Set-Cookie` value that clears it.
    async fn sign_out(&self, request: &http::request::Parts) -> Result<String, UiError>;
}

pub type SharedBackend = Arc<dyn AdminBackend>;

/// Provided by the server only to requests whose admin session it verified.
/// Admin data is reachable only through [`backend`], which asks for it, so a
/// page rendered for a request the gate mistook for public shows no data.
#[derive(Clone, Copy, Debug)]
pub struct SignedInRequest;

/// The backend for admin work: refused unless this request's session was verified.
pub fn backend() -> Result<SharedBackend, UiError> {
    if leptos::prelude::use_context::<SignedInRequest>().is_none() {
        return Err(UiError::Unauthenticated);
    }
    session_backend()
}

/// The backend for signing in and out, which need no verified session.
pub fn session_backend() -> Result<SharedBackend, UiError> {
    leptos::prelude::use_context::<SharedBackend>().ok_or(UiError::Internal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admin_data_is_refused_to_a_request_without_a_verified_session() {
        let owner = leptos::prelude::Owner::new();
        owner.with(|| {
            assert!(matches!(backend(), Err(UiError::Unauthenticated)));
            leptos::prelude::provide_context(SignedInRequest);
            // Past the check it asks for the backend itself (none in this test).
            assert!(matches!(backend(), Err(UiError::Internal)));
        });
    }
}
