//! Where domain errors become the JSON API's answers:
//! `{"error","code","field","hint"}`, from the same `Failure` that server
//! functions turn into a `UiError` (`app::error::ui_error`). Internal detail
//! is logged here and never sent.

use crate::domain::access::api_tokens::TokenError;
use crate::domain::access::control_identity::IdentityError;
use crate::domain::access::principal::NotAllowed;
use crate::domain::access::second_factor::{SecondFactorError, SetupLinkError};
use crate::domain::access::sign_in::AuthError;
use crate::domain::access::users::UserError;
use crate::domain::agents::enrollment::{EnrollError, EnrollRefusal};
use crate::domain::agents::install_tokens::InstallTokenError;
use crate::domain::agents::inventory::InventoryError;
use crate::domain::agents::requests::AgentAuthError;
use crate::domain::agents::revoked_keys::RevokedKeyError;
use crate::domain::alerts::settings::AlertError;
use crate::domain::beacons::checks::BeaconError;
use crate::domain::beacons::diagnostics::DiagnosticsError;
pub use crate::domain::failure::{
    is_database_unavailable, minutes_until, Failure, DATABASE_RETRY_AFTER_SECS,
};
use crate::domain::jobs::queue::JobError;
use crate::domain::networks::NetworkError;
use crate::domain::onboarding::invites::InviteError;
use crate::domain::policy::PolicyError;
use crate::domain::probes::ProbeError;
use crate::domain::setup::SetupError;
use crate::domain::StoreError;
use axum::extract::rejection::JsonRejection;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use protocol::api::ErrorBody;
use protocol::refusals::{Refusal, RefusalKind};
use protocol::validation::{Lang, Problem};
use protocol::FieldError;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub body: ErrorBody,
    retry_after_secs: Option<i64>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &str, error: impl Into<String>) -> Self {
        Self {
            status,
            body: ErrorBody {
                error: error.into(),
                code: code.to_string(),
                field: None,
                hint: None,
            },
            retry_after_secs: None,
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.body.hint = Some(hint.into());
        self
    }

    /// Tells the client when to try again (429).
    pub fn retry_after(mut self, secs: i64) -> Self {
        self.retry_after_secs = Some(secs.max(1));
        self
    }

    /// Names the request field the error is about.
    pub fn on_field(mut self, field: &str) -> Self {
        self.body.field = Some(field.to_string());
        self
    }

    pub fn unauthenticated() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "unauthenticated",
            "Sign in first.",
        )
        .hint("POST /api/v1/session with {\"password\": …} and send the returned cookie.")
    }

    pub fn not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", "No such resource.")
    }

    pub fn internal(detail: &dyn std::fmt::Display) -> Self {
        tracing::error!(error = %detail, "request failed");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "Internal error; the details are in Control's log.",
        )
    }

    /// A refusal of several fields answers with the first.
    fn fields(errors: &[FieldError]) -> Self {
        match errors.first() {
            Some(first) => ApiError::field(first),
            None => ApiError::new(StatusCode::BAD_REQUEST, "invalid", "Invalid input."),
        }
    }

    /// A refusal from the catalogue, in English (scripts read the code).
    pub fn refused(refusal: &Refusal) -> Self {
        let status = match refusal.kind() {
            RefusalKind::Invalid => StatusCode::BAD_REQUEST,
            RefusalKind::NotFound => StatusCode::NOT_FOUND,
            RefusalKind::Conflict => StatusCode::CONFLICT,
            RefusalKind::Forbidden => StatusCode::FORBIDDEN,
        };
        let mut api = Self::new(status, refusal.code(), refusal.message(Lang::En));
        api.body.field = refusal.field().map(str::to_string);
        api.body.hint = refusal.hint(Lang::En).map(str::to_string);
        api
    }

    fn field(error: &FieldError) -> Self {
        let status = match error.problem {
            Problem::NetworkIdTaken => StatusCode::CONFLICT,
            _ => StatusCode::BAD_REQUEST,
        };
        let mut api = Self::new(status, error.problem.code(), error.message(Lang::En));
        api.body.field = Some(error.field.clone());
        api.body.hint = error.problem.hint(Lang::En).map(String::from);
        api
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.body)).into_response();
        if let Some(secs) = self.retry_after_secs {
            if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, v);
            }
        }
        response
    }
}

impl ApiError {
    /// 503 `database_unavailable`: the database cannot be reached right now.
    pub fn database_unavailable() -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "database_unavailable",
            "Control cannot reach its database right now.",
        )
        .hint("Try again in a few seconds; nothing was changed.")
        .retry_after(DATABASE_RETRY_AFTER_SECS)
    }
}

impl From<EnrollError> for ApiError {
    fn from(e: EnrollError) -> Self {
        let refusal = match e {
            EnrollError::Refused(refusal) => refusal,
            EnrollError::Store(e) => return e.into(),
        };
        let (status, field, message) = match refusal {
            EnrollRefusal::MalformedKey => (
                StatusCode::BAD_REQUEST,
                Some("public_key"),
                "The public key is not 32 bytes of base64 without padding.",
            ),
            EnrollRefusal::Throttled => (
                StatusCode::TOO_MANY_REQUESTS,
                None,
                "Too many refused enrollments from this address. Try again in 10 minutes.",
            ),
            EnrollRefusal::AgentRevoked | EnrollRefusal::AgentMoved | EnrollRefusal::KeyInUse => (
                StatusCode::FORBIDDEN,
                Some("public_key"),
                "This key cannot enroll.",
            ),
            EnrollRefusal::BadToken
            | EnrollRefusal::InstallTokenExpired
            | EnrollRefusal::InstallTokenUsed
            | EnrollRefusal::InstallTokenRevoked => (
                StatusCode::UNAUTHORIZED,
                Some("token"),
                "The enrollment token was not accepted.",
            ),
        };
        let mut api = ApiError::new(status, refusal.code(), message).hint(
            protocol::agent::enrollment_reason(refusal.code(), protocol::Lang::En),
        );
        api.body.field = field.map(str::to_string);
        api
    }
}

/// Unknown agent, bad signature and stale timestamp answer identically, so the
/// answer reveals nothing about which Agent IDs exist; the log has the reason.
impl From<AgentAuthError> for ApiError {
    fn from(e: AgentAuthError) -> Self {
        match e {
            AgentAuthError::Unauthorized(reason) => {
                tracing::warn!(reason, "signed agent request refused");
                ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "unauthorized",
                    "The request signature was not accepted.",
                )
            }
            AgentAuthError::Replayed => {
                tracing::warn!("replayed agent request refused");
                ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "replayed",
                    "This exact request was already accepted.",
                )
                .hint("Send a fresh nonce in every signed body.")
            }
            AgentAuthError::Disabled => ApiError::new(
                StatusCode::UNAUTHORIZED,
                "agent_disabled",
                "This Agent is disabled in Control.",
            ),
            AgentAuthError::Revoked => ApiError::new(
                StatusCode::UNAUTHORIZED,
                "agent_revoked",
                "This Agent was revoked in Control; its key no longer works.",
            ),
            AgentAuthError::Moved => ApiError::new(
                StatusCode::UNAUTHORIZED,
                "agent_moved",
                "This Agent record moved to another host; this key no longer works.",
            ),
            AgentAuthError::Store(e) => e.into(),
        }
    }
}

impl From<Failure> for ApiError {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::Invalid(errors) => ApiError::fields(&errors),
            Failure::Refused(refusal) => ApiError::refused(&refusal),
            Failure::Store(e) => {
                if is_database_unavailable(&e.0) {
                    tracing::warn!(error = %e, "database unreachable; answering 503");
                    return ApiError::database_unavailable();
                }
                ApiError::internal(&e)
            }
            Failure::Fault(detail) => ApiError::internal(&detail),
        }
    }
}

/// The domain errors whose meaning the catalogue gives (`domain::failure`).
macro_rules! answered_through_failure {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for ApiError {
            fn from(e: $error) -> Self {
                Failure::from(e).into()
            }
        }
    )*};
}
answered_through_failure!(
    StoreError,
    IdentityError,
    NetworkError,
    BeaconError,
    AlertError,
    JobError,
    InventoryError,
    InstallTokenError,
    RevokedKeyError,
    InviteError,
    TokenError,
    UserError,
    SecondFactorError,
    SetupLinkError,
    DiagnosticsError,
    SetupError,
    ProbeError,
    PolicyError,
    NotAllowed,
);

impl From<AuthError> for ApiError {
    fn from(e: AuthError) -> Self {
        match e {
            AuthError::WrongPassword => {
                let mut api = Self::new(
                    StatusCode::UNAUTHORIZED,
                    "wrong_password",
                    "Wrong name or password.",
                );
                api.body.field = Some("password".into());
                api
            }
            AuthError::Throttled { retry_after } => {
                let minutes = minutes_until(retry_after);
                let mut api = Self::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    "throttled",
                    format!("Too many failed sign-in attempts. Try again in {minutes} minutes."),
                )
                .hint("Or run `knotroute-control trust-browser` on the server and open the link it prints in your browser: a browser Control knows signs in at once.");
                api.retry_after_secs = Some(retry_after.num_seconds().max(1));
                api
            }
            AuthError::CodeNeeded => Self::new(
                StatusCode::UNAUTHORIZED,
                "second_factor_needed",
                "The password is right; this person also signs in with a code.",
            )
            .on_field("code")
            .hint("Send the password again with \"code\": the 6 digits the authenticator app shows, or a recovery code."),
            AuthError::WrongCode(error) => {
                let mut api = Self::field(&error);
                api.status = StatusCode::UNAUTHORIZED;
                api
            }
            AuthError::SetUpSecondFactor(_) => Self::new(
                StatusCode::FORBIDDEN,
                "second_factor_setup_needed",
                "The owner requires two-step sign-in, and this person has not set it up yet.",
            )
            .hint("Sign in once in the web UI: it shows the QR code for an authenticator app and asks for its first code."),
            AuthError::SetupNeedsLink => {
                ApiError::refused(&protocol::refusals::Refusal::SecondFactorSetupLinkNeeded)
            }
            AuthError::Store(e) => e.into(),
        }
    }
}

/// Malformed bodies get the JSON error shape too, with the right status (400, 413, 415, 422).
impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        let status = rejection.status();
        match status {
            StatusCode::PAYLOAD_TOO_LARGE => Self::new(
                status,
                "body_too_large",
                "The request body is larger than 2 MiB.",
            ),
            StatusCode::UNSUPPORTED_MEDIA_TYPE => {
                Self::new(status, "unsupported_media_type", "Send the body as JSON.")
                    .hint("Set Content-Type: application/json.")
            }
            _ => Self::new(
                StatusCode::BAD_REQUEST,
                "malformed_json",
                format!(
                    "The body is not the expected JSON: {}",
                    rejection.body_text()
                ),
            ),
        }
    }
}

/// The body-size limit answers 413 in plain text; give clients the JSON shape instead.
pub async fn json_payload_too_large(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let response = next.run(request).await;
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if response.status() == StatusCode::PAYLOAD_TOO_LARGE && !is_json {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            "The request body is larger than 2 MiB.",
        )
        .into_response();
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm::DbErr;

    fn io(kind: std::io::ErrorKind) -> sqlx::Error {
        sqlx::Error::Io(std::io::Error::from(kind))
    }

    #[test]
    fn a_database_that_cannot_be_reached_is_503_with_retry_after_not_500() {
        use sea_orm::{ConnAcquireErr, RuntimeErr};
        let unreachable = [
            DbErr::ConnectionAcquire(ConnAcquireErr::Timeout),
            DbErr::ConnectionAcquire(ConnAcquireErr::ConnectionClosed),
            DbErr::Conn(RuntimeErr::SqlxError(io(
                std::io::ErrorKind::ConnectionRefused,
            ))),
            DbErr::Conn(RuntimeErr::Internal("disconnected".into())),
            DbErr::Exec(RuntimeErr::SqlxError(io(
                std::io::ErrorKind::ConnectionReset,
            ))),
            DbErr::Query(RuntimeErr::SqlxError(io(std::io::ErrorKind::UnexpectedEof))),
            DbErr::Query(RuntimeErr::SqlxError(sqlx::Error::PoolTimedOut)),
            DbErr::Exec(RuntimeErr::SqlxError(sqlx::Error::PoolClosed)),
            DbErr::Exec(RuntimeErr::SqlxError(sqlx::Error::WorkerCrashed)),
        ];
        for e in unreachable {
            let shown = e.to_string();
            let api = ApiError::from(StoreError(e));
            assert_eq!(api.status, StatusCode::SERVICE_UNAVAILABLE, "{shown}");
            assert_eq!(api.body.code, "database_unavailable", "{shown}");
            let response = api.into_response();
            assert_eq!(response.headers()[header::RETRY_AFTER], "2", "{shown}");
        }
        let faults = [
            DbErr::Custom("bug".into()),
            DbErr::RecordNotFound("x".into()),
            DbErr::Query(RuntimeErr::SqlxError(sqlx::Error::RowNotFound)),
            DbErr::Query(RuntimeErr::SqlxError(sqlx::Error::Protocol("odd".into()))),
            DbErr::Exec(RuntimeErr::Internal("bad statement".into())),
        ];
        for e in faults {
            let shown = e.to_string();
            let api = ApiError::from(StoreError(e));
            assert_eq!(api.status, StatusCode::INTERNAL_SERVER_ERROR, "{shown}");
        }
    }

    #[test]
    fn retry_minutes_round_up() {
        assert_eq!(minutes_until(chrono::Duration::seconds(1)), 1);
        assert_eq!(minutes_until(chrono::Duration::seconds(60)), 1);
        assert_eq!(minutes_until(chrono::Duration::seconds(61)), 2);
        assert_eq!(minutes_until(chrono::Duration::minutes(10)), 10);
    }

    #[test]
    fn a_relay_port_beacon_maps_to_a_400_naming_the_beacons_field() {
        let e = NetworkError::Invalid(vec![FieldError::at("beacons", 0, Problem::BeaconRelayPort)]);
        let api = ApiError::from(e);
        assert_eq!(api.status, StatusCode::BAD_REQUEST);
        assert_eq!(api.body.field.as_deref(), Some("beacons"));
        assert_eq!(api.body.code, "beacon_relay_port");
        assert!(api.body.hint.is_some());
    }
}
