//! What each domain error means to whoever asked, said once per error: a
//! refused input (the fields), a refusal from the catalogue
//! (`protocol::refusals`), or a store failure. The JSON API's answer and the
//! UI's error are both made from a [`Failure`] (`http::error`), so they
//! cannot drift apart, and the UI can say a refusal in the reader's language.

use super::access::api_tokens::TokenError;
use super::access::control_identity::IdentityError;
use super::access::principal::NotAllowed;
use super::access::second_factor::{SecondFactorError, SetupLinkError};
use super::access::users::UserError;
use super::agents::install_tokens::InstallTokenError;
use super::agents::inventory::InventoryError;
use super::agents::revoked_keys::RevokedKeyError;
use super::alerts::settings::AlertError;
use super::beacons::checks::BeaconError;
use super::beacons::diagnostics::DiagnosticsError;
use super::jobs::queue::JobError;
use super::networks::NetworkError;
use super::onboarding::invites::InviteError;
use super::policy::PolicyError;
use super::probes::ProbeError;
use super::setup::SetupError;
use super::StoreError;
use crate::entities::agent::Retirement;
use protocol::refusals::{Missing, Refusal};
use protocol::{AgentStatus, FieldError};
use sea_orm::DbErr;

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

impl From<NotAllowed> for Failure {
    fn from(e: NotAllowed) -> Self {
        Failure::Refused(if e.limited {
            Refusal::NeedsAllNetworks
        } else {
            Refusal::NotAllowed {
                role: e.role.to_string(),
            }
        })
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
            NetworkError::NeedsAllNetworks => Failure::Refused(Refusal::NeedsAllNetworks),
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
            JobError::AgentPending => Failure::Refused(Refusal::AgentPending),
            JobError::AgentRetired(how) => Failure::Refused(Refusal::AgentTakesNoJobs {
                status: retired(how),
            }),
            JobError::NoDocker => Failure::Refused(Refusal::AgentWithoutDocker),
            JobError::AgentLacksExtension(needed) => {
                Failure::Refused(Refusal::AgentLacksExtension {
                    extension: needed.name().to_string(),
                })
            }
            JobError::NotFound => not_found(Missing::Job),
            JobError::NetworkNotFound => not_found(Missing::NetworkProfile),
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
            InventoryError::NotPending => Failure::Refused(Refusal::AgentNotPending),
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

impl From<UserError> for Failure {
    fn from(e: UserError) -> Self {
        match e {
            UserError::Invalid(errors) => Failure::Invalid(errors),
            UserError::NotFound => not_found(Missing::User),
            UserError::LastOwner => Failure::Refused(Refusal::LastOwner),
            UserError::InviteUnusable => Failure::Refused(Refusal::UserInviteUnusable),
            UserError::Hashing(e) => Failure::Fault(e),
            UserError::Store(e) => e.into(),
        }
    }
}

impl From<SecondFactorError> for Failure {
    fn from(e: SecondFactorError) -> Self {
        if let Some(refusal) = e.refusal() {
            return Failure::Refused(refusal);
        }
        match e {
            SecondFactorError::Invalid(errors) => Failure::Invalid(errors),
            SecondFactorError::NotFound => not_found(Missing::User),
            SecondFactorError::Store(e) => e.into(),
            other => Failure::Fault(other.to_string()),
        }
    }
}

impl From<SetupLinkError> for Failure {
    fn from(e: SetupLinkError) -> Self {
        match e {
            SetupLinkError::NotFound => not_found(Missing::User),
            SetupLinkError::NotApplicable => Failure::Refused(Refusal::SecondFactorNotApplicable),
            SetupLinkError::AlreadyOn => Failure::Refused(Refusal::SecondFactorAlreadyOn),
            SetupLinkError::Store(e) => e.into(),
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

impl From<SetupError> for Failure {
    fn from(e: SetupError) -> Self {
        match e {
            SetupError::Invalid(errors) => Failure::Invalid(errors),
            SetupError::Network(e) => e.into(),
            SetupError::Inventory(e) => e.into(),
            SetupError::NotSkippable => Failure::Refused(Refusal::StepNotSkippable),
            SetupError::Store(e) => e.into(),
        }
    }
}

impl From<ProbeError> for Failure {
    fn from(e: ProbeError) -> Self {
        match e {
            ProbeError::Invalid(errors) => Failure::Invalid(errors),
            ProbeError::Network(e) => e.into(),
            ProbeError::Inventory(e) => e.into(),
            ProbeError::Store(e) => e.into(),
        }
    }
}

impl From<PolicyError> for Failure {
    fn from(e: PolicyError) -> Self {
        match e {
            PolicyError::Invalid(errors) => Failure::Invalid(errors),
            PolicyError::Store(e) => e.into(),
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

/// Seconds a client is told to wait while the database is unreachable: a
/// restart or fail-over takes a few, and the pool reconnects by itself.
pub const DATABASE_RETRY_AFTER_SECS: i64 = 2;

/// Whether `e` means the database could not be reached (connection refused,
/// lost or timed out, pool exhausted, server shutting down or starting up,
/// SQLite busy), as opposed to a fault in the query or the data. Those are
/// passing: the answer is 503 with Retry-After, never 500.
pub fn is_database_unavailable(e: &DbErr) -> bool {
    use sea_orm::RuntimeErr;
    match e {
        DbErr::ConnectionAcquire(_) | DbErr::Conn(_) => true,
        DbErr::Exec(RuntimeErr::SqlxError(e)) | DbErr::Query(RuntimeErr::SqlxError(e)) => {
            is_unreachable(e)
        }
        _ => false,
    }
}

fn is_unreachable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => {
            let code = db.code().unwrap_or_default();
            match db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>() {
                // Class 08: connection exception; 57P01-57P03: the server
                // shuts down, crashed or is starting; 53300: too many connections.
                Some(_) => {
                    code.starts_with("08")
                        || matches!(&*code, "57P01" | "57P02" | "57P03" | "53300")
                }
                // SQLite: SQLITE_BUSY (5) and SQLITE_LOCKED (6), extended codes included,
                // once the busy timeout has run out.
                None => code.parse::<u32>().is_ok_and(|c| matches!(c & 0xff, 5 | 6)),
            }
        }
        _ => false,
    }
}

/// Whole minutes, rounded up, for "try again in N minutes".
pub fn minutes_until(retry_after: chrono::Duration) -> u32 {
    let secs = retry_after.num_seconds().max(1);
    ((secs + 59) / 60) as u32
}
