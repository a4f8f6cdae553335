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
    agents, audit, beacons, diagnostics, jobs, networks, onboarding, session, settings, tokens,
};
use crate::http::agent_protocol;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "KnotRoute Control API",
        description = "The admin API (a session cookie from POST /api/v1/session, or a personal API token as Authorization: Bearer) and the Agent protocol (signed requests, see PROTOCOL.md). Errors are JSON: {error, code, field, hint}."
    ),
    paths(
        session::session_status, session::sign_in, session::sign_out,
        networks::list_networks, networks::create_network, networks::get_network, networks::update_network,
        networks::delete_network, audit::list_audit,
        agents::list_agents, agents::get_agent, agents::delete_agent,
        agents::disable_agent, agents::enable_agent, agents::revoke_agent,
        agents::move_agent, agents::list_revoked_keys, agents::allow_revoked_key,
        agents::create_install_token,
        agents::list_install_tokens, agents::revoke_install_token,
        agents::enrollment_log,
        jobs::list_jobs, jobs::create_job, jobs::get_job, jobs::cancel_job,
        jobs::retry_job,
        beacons::list_beacons, beacons::add_existing_beacon, beacons::check_beacon,
        diagnostics::diagnose,
        onboarding::network_onboarding, onboarding::create_invite,
        onboarding::list_invites, onboarding::revoke_invite,
        settings::alert_settings, settings::set_alert_webhook,
        settings::send_test_alert, settings::control_identity,
        tokens::list_tokens, tokens::create_token, tokens::revoke_token,
        agent_protocol::enroll, agent_protocol::heartbeat, agent_protocol::next_job, agent_protocol::job_result,
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
                crate::http::auth::SESSION_COOKIE,
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
