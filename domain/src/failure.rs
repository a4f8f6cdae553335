//! What each domain error means to whoever asked, said once per error: a
//! refused input (the fields), a refusal from the catalogue
//! (`protocol::refusals`), or a store failure. The JSON API's answer and the
//! UI's error are both made from a [`Failure`] (`http::error`), so they
//! cannot drift apart, and the UI can say a refusal in the reader's language.

use super::access::api_tokens::TokenError;
use super::access::control_identity::IdentityError;
use super::agents::install_tokens::InstallTokenError;
use super::agents::inventory::InventoryError;
use super::agents::revoked_keys::RevokedKeyError;
use super::alerts::settings::AlertError;
use super::beacons::checks::BeaconError;
use super::beacons::diagnostics::DiagnosticsError;
use super::jobs::queue::JobError;
use super::networks::NetworkError;
use super::onboarding::invites::InviteError;
use super::StoreError;
use crate::entities::agent::Retirement;
use protocol::refusals::{Missing, Refusal};
use protocol::{AgentStatus, FieldError};

#[derive(Debug)]
pub enum Failure {
    /// The input broke a rule; each refused field with its reason.
    Invalid(Vec<FieldError>),
    /// Understood and turned down.
    Refused(Refusal),
    /// The database failed (or could not be reached); logged, never shown.
    Store(StoreError),
    /// Something that should not happen; the detail is logged, never shown.
    Fault(String),
}

fn not_found(missing: Missing) -> Failure {
    Failure::Refused(Refusal::NotFound { missing })
}

/// A retired Agent's status as the catalogue names it.
fn retired(how: Retirement) -> AgentStatus {
    match how {
        Retirement::Moved => AgentStatus::Moved,
        Retirement::Revoked | Retirement::Active => AgentStatus::Revoked,
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Store(e)
    }
}

impl From<NetworkError> for Failure {
    fn from(e: NetworkError) -> Self {
        match e {
            NetworkError::Invalid(errors) => Failure::Invalid(errors),
            NetworkError::NotFound => not_found(Missing::NetworkProfile),
            NetworkError::UnknownCursor => Failure::Refused(Refusal::InvalidCursor {
                missing: Missing::NetworkProfile,
            }),
            NetworkError::Stale => Failure::Refused(Refusal::StaleProfile),
            NetworkError::Store(e) => e.into(),
        }
    }
}

impl From<BeaconError> for Failure {
    fn from(e: BeaconError) -> Self {
        match e {
            BeaconError::Invalid(errors) => Failure::Invalid(errors),
            BeaconError::NetworkNotFound => not_found(Missing::NetworkProfile),
            BeaconError::NotInProfile => Failure::Refused(Refusal::BeaconNotInProfile),
            BeaconError::Stale => Failure::Refused(Refusal::ProfileBusy),
            BeaconError::Store(e) => e.into(),
        }
    }
}

impl From<AlertError> for Failure {
    fn from(e: AlertError) -> Self {
        match e {
            AlertError::Invalid(errors) => Failure::Invalid(errors),
            AlertError::SetByEnvironment => Failure::Refused(Refusal::WebhookSetByEnvironment),
            AlertError::Store(e) => e.into(),
        }
    }
}

impl From<JobError> for Failure {
    fn from(e: JobError) -> Self {
        match e {
            JobError::Invalid(field) => Failure::Invalid(vec![field]),
            JobError::AgentNotFound => Failure::Refused(Refusal::AgentNotFound),
            JobError::AgentDisabled => Failure::Refused(Refusal::AgentDisabled),
            JobError::AgentRetired(how) => Failure::Refused(Refusal::AgentTakesNoJobs {
                status: retired(how),
            }),
            JobError::NoDocker => Failure::Refused(Refusal::AgentWithoutDocker),
            JobError::NotFound => not_found(Missing::Job),
            JobError::WrongState(status) => Failure::Refused(Refusal::JobState { status }),
            JobError::CannotStop => Failure::Refused(Refusal::JobCannotStop),
            JobError::Store(e) => e.into(),
        }
    }
}

impl From<InventoryError> for Failure {
    fn from(e: InventoryError) -> Self {
        match e {
            InventoryError::NotFound => not_found(Missing::Agent),
            InventoryError::Retired(how) => Failure::Refused(Refusal::AgentRetired {
                status: retired(how),
            }),
            InventoryError::Store(e) => e.into(),
        }
    }
}

impl From<InstallTokenError> for Failure {
    fn from(e: InstallTokenError) -> Self {
        match e {
            InstallTokenError::Invalid(errors) => Failure::Invalid(errors),
            InstallTokenError::NotFound => not_found(Missing::InstallToken),
            InstallTokenError::Store(e) => e.into(),
        }
    }
}

impl From<RevokedKeyError> for Failure {
    fn from(e: RevokedKeyError) -> Self {
        match e {
            RevokedKeyError::NotFound => not_found(Missing::RevokedKey),
            RevokedKeyError::RecordExists => Failure::Refused(Refusal::RevokedAgentExists),
            RevokedKeyError::Store(e) => e.into(),
        }
    }
}

impl From<InviteError> for Failure {
    fn from(e: InviteError) -> Self {
        match e {
            InviteError::Invalid(errors) => Failure::Invalid(errors),
            InviteError::NotFound => not_found(Missing::Invite),
            InviteError::UnknownCursor => Failure::Refused(Refusal::InvalidCursor {
                missing: Missing::Invite,
            }),
            InviteError::Store(e) => e.into(),
        }
    }
}

impl From<TokenError> for Failure {
    fn from(e: TokenError) -> Self {
        match e {
            TokenError::Invalid(errors) => Failure::Invalid(errors),
            TokenError::NotFound => not_found(Missing::ApiToken),
            TokenError::Store(e) => e.into(),
        }
    }
}

impl From<DiagnosticsError> for Failure {
    fn from(e: DiagnosticsError) -> Self {
        match e {
            DiagnosticsError::Network(e) => e.into(),
            DiagnosticsError::Inventory(e) => e.into(),
        }
    }
}

/// Control's keys are read, never changed, over HTTP: a rotation runs from
/// the command line, which prints the error itself.
impl From<IdentityError> for Failure {
    fn from(e: IdentityError) -> Self {
        match e {
            IdentityError::Store(e) => e.into(),
            other => Failure::Fault(other.to_string()),
        }
    }
}
