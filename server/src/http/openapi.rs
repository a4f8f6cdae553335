//! The OpenAPI 3 description of the admin and Agent APIs, generated from the
//! handlers' annotations and the protocol types, served at
//! `GET /api/v1/openapi.json`. The live-update stream (`/api/v1/events`,
//! server-sent events) is left out: it is for Control's own pages.

use axum::http::header;
use axum::response::{IntoResponse, Response};
use std::sync::OnceLock;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

/// The types the annotations name, in one place for every API module.
pub mod schemas {
    pub use protocol::agent::{
        Ack, EnrollRequest, EnrollResponse, Heartbeat, JobNextRequest, JobOffer, JobResult,
    };
    pub use protocol::alerts::{AlertSettings, AlertSettingsInput, TestAlertOutcome};
    pub use protocol::api::{
        AgentView, AuditEntry, ControlIdentityView, CreatedInstallToken, EnrollmentAttempt,
        ErrorBody, InstallTokenView, JobView, NetworkInput, NetworkProfile, NewInstallToken,
        NewJob, RevokedKeyView, SessionStatus, SignIn,
    };
    pub use protocol::beacons::{BeaconCheckView, BeaconRef, BeaconView};
    pub use protocol::diagnostics::Diagnosis;
    pub use protocol::onboarding::{CreatedInvite, InviteView, NewInvite, OnboardingGuide};
    pub use protocol::tokens::{CreatedToken, TokenInput, TokenView};
}

use super::{
    agent_api, agents_api, api, beacons_api, diagnostics_api, jobs_api, onboarding_api,
    settings_api, tokens_api,
};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "KnotRoute Control API",
        description = "The admin API (a session cookie from POST /api/v1/session, or a personal API token as Authorization: Bearer) and the Agent protocol (signed requests, see PROTOCOL.md). Errors are JSON: {error, code, field, hint}."
    ),
    paths(
        api::session_status, api::sign_in, api::sign_out,
        api::list_networks, api::create_network, api::get_network, api::update_network,
        api::delete_network, api::list_audit,
        agents_api::list_agents, agents_api::get_agent, agents_api::delete_agent,
        agents_api::disable_agent, agents_api::enable_agent, agents_api::revoke_agent,
        agents_api::move_agent, agents_api::list_revoked_keys, agents_api::allow_revoked_key,
        agents_api::create_install_token,
        agents_api::list_install_tokens, agents_api::revoke_install_token,
        agents_api::enrollment_log,
        jobs_api::list_jobs, jobs_api::create_job, jobs_api::get_job, jobs_api::cancel_job,
        jobs_api::retry_job,
        beacons_api::list_beacons, beacons_api::add_existing_beacon, beacons_api::check_beacon,
        diagnostics_api::diagnose,
        onboarding_api::network_onboarding, onboarding_api::create_invite,
        onboarding_api::list_invites, onboarding_api::revoke_invite,
        settings_api::alert_settings, settings_api::set_alert_webhook,
        settings_api::send_test_alert, settings_api::control_identity,
        tokens_api::list_tokens, tokens_api::create_token, tokens_api::revoke_token,
        agent_api::enroll, agent_api::heartbeat, agent_api::next_job, agent_api::job_result,
    ),
    modifiers(&SecuritySchemes)
)]
pub struct ApiDoc;

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new(
                super::auth::SESSION_COOKIE,
            ))),
        );
        components.add_security_scheme(
            "token",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// `GET /api/v1/openapi.json`: public, like the API's paths themselves.
pub async fn openapi_json() -> Response {
    static DOCUMENT: OnceLock<String> = OnceLock::new();
    let body = DOCUMENT.get_or_init(|| {
        ApiDoc::openapi()
            .to_json()
            .expect("the description serialises")
    });
    ([(header::CONTENT_TYPE, "application/json")], body.clone()).into_response()
}
