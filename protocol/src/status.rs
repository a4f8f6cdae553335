//! The states of jobs, Agents and components, and the rules that hang on
//! them (what can be cancelled or retried, what needs the operator), in one
//! place for the server, the browser and the Agent. On the wire and in the
//! database each is the lowercase word it has always been.
//!
//! With the `db` feature (the server only) jobs and components are stored
//! through sea-orm as these types, so a query cannot name a state that does
//! not exist.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a job is in its life: `pending → running → succeeded | failed`,
/// `cancelled` (by the admin while pending) and `expired` (a running job
/// whose lease passed without a result).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "db",
    derive(sea_orm::DeriveActiveEnum, sea_orm::EnumIter),
    sea_orm(
        rs_type = "String",
        db_type = "String(sea_orm::sea_query::StringLen::N(16))"
    )
)]
pub enum JobStatus {
    #[cfg_attr(feature = "db", sea_orm(string_value = "pending"))]
    Pending,
    #[cfg_attr(feature = "db", sea_orm(string_value = "running"))]
    Running,
    #[cfg_attr(feature = "db", sea_orm(string_value = "succeeded"))]
    Succeeded,
    #[cfg_attr(feature = "db", sea_orm(string_value = "failed"))]
    Failed,
    #[cfg_attr(feature = "db", sea_orm(string_value = "cancelled"))]
    Cancelled,
    #[cfg_attr(feature = "db", sea_orm(string_value = "expired"))]
    Expired,
}

impl JobStatus {
    /// Every status, in the order of a job's life.
    pub const ALL: [JobStatus; 6] = [
        JobStatus::Pending,
        JobStatus::Running,
        JobStatus::Succeeded,
        JobStatus::Failed,
        JobStatus::Cancelled,
        JobStatus::Expired,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Pending => "pending",
            JobStatus::Running => "running",
            JobStatus::Succeeded => "succeeded",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
            JobStatus::Expired => "expired",
        }
    }

    /// The status a word names, if any.
    pub fn parse(word: &str) -> Option<JobStatus> {
        JobStatus::ALL.into_iter().find(|s| s.as_str() == word)
    }

    /// Only a job no Agent has taken yet can be cancelled.
    pub fn can_cancel(self) -> bool {
        self == JobStatus::Pending
    }

    /// A job that failed or whose lease passed can be queued again.
    pub fn can_retry(self) -> bool {
        matches!(self, JobStatus::Failed | JobStatus::Expired)
    }

    /// Nothing more will happen to the job.
    pub fn is_final(self) -> bool {
        !self.is_active()
    }

    /// Waiting for an Agent or being carried out.
    pub fn is_active(self) -> bool {
        matches!(self, JobStatus::Pending | JobStatus::Running)
    }

    /// It ended without doing its work: the operator should look.
    pub fn needs_attention(self) -> bool {
        matches!(self, JobStatus::Failed | JobStatus::Expired)
    }
}

impl fmt::Display for JobStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How an Agent stands, as every screen and the API show it. Derived from
/// its record and its last heartbeat, never stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum AgentStatus {
    /// Heartbeats arrive and every component works.
    Online,
    /// Heartbeats arrive, but a component is in error (or a server
    /// pretending to be Control reached it).
    Degraded,
    /// No verified heartbeat for a while.
    Offline,
    /// Turned off by the admin: handed no jobs.
    Disabled,
    /// Enrolled, but waiting for an admin's approval: its heartbeats are
    /// recorded, it gets no jobs and belongs to no network.
    Pending,
    /// Its key was revoked.
    Revoked,
    /// Its record was taken over by a host that enrolled with a move token.
    Moved,
}

impl AgentStatus {
    pub const ALL: [AgentStatus; 7] = [
        AgentStatus::Online,
        AgentStatus::Degraded,
        AgentStatus::Offline,
        AgentStatus::Disabled,
        AgentStatus::Pending,
        AgentStatus::Revoked,
        AgentStatus::Moved,
    ];

    /// The status a word names, if any.
    pub fn parse(word: &str) -> Option<AgentStatus> {
        AgentStatus::ALL.into_iter().find(|s| s.as_str() == word)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            AgentStatus::Online => "online",
            AgentStatus::Degraded => "degraded",
            AgentStatus::Offline => "offline",
            AgentStatus::Disabled => "disabled",
            AgentStatus::Pending => "pending",
            AgentStatus::Revoked => "revoked",
            AgentStatus::Moved => "moved",
        }
    }

    /// Its heartbeats arrive (whatever its components do).
    pub fn is_connected(self) -> bool {
        matches!(self, AgentStatus::Online | AgentStatus::Degraded)
    }

    /// Its key no longer works: nothing can be asked of it again.
    pub fn is_retired(self) -> bool {
        matches!(self, AgentStatus::Revoked | AgentStatus::Moved)
    }

    /// Not taking work now: offline, disabled or retired.
    pub fn is_away(self) -> bool {
        !self.is_connected()
    }

    /// How urgently the operator should look, most urgent first: 0 it is
    /// offline or degraded, 1 it waits for approval or is disabled; `None`
    /// otherwise (a healthy Agent may still rank by its components' warnings).
    pub fn attention_rank(self) -> Option<u8> {
        match self {
            AgentStatus::Offline | AgentStatus::Degraded => Some(0),
            AgentStatus::Pending | AgentStatus::Disabled => Some(1),
            AgentStatus::Online | AgentStatus::Revoked | AgentStatus::Moved => None,
        }
    }
}

impl fmt::Display for AgentStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Docker's state of a component's container as its Agent last reported it
/// (PROTOCOL.md: `running`, `exited`, `restarting`, `created`, `paused`,
/// `dead`, …). A word Docker does not use is kept as `unknown`, so one odd
/// report cannot make the inventory unreadable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "db", derive(sea_orm::EnumIter))]
pub enum ComponentStatus {
    /// Not reported by the Agent (stored as the empty string).
    #[default]
    NotReported,
    Running,
    Restarting,
    Created,
    Paused,
    Exited,
    Dead,
    Removing,
    /// A state Docker does not name.
    Unknown,
}

impl ComponentStatus {
    const NAMED: [ComponentStatus; 8] = [
        ComponentStatus::NotReported,
        ComponentStatus::Running,
        ComponentStatus::Restarting,
        ComponentStatus::Created,
        ComponentStatus::Paused,
        ComponentStatus::Exited,
        ComponentStatus::Dead,
        ComponentStatus::Removing,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ComponentStatus::NotReported => "",
            ComponentStatus::Running => "running",
            ComponentStatus::Restarting => "restarting",
            ComponentStatus::Created => "created",
            ComponentStatus::Paused => "paused",
            ComponentStatus::Exited => "exited",
            ComponentStatus::Dead => "dead",
            ComponentStatus::Removing => "removing",
            ComponentStatus::Unknown => "unknown",
        }
    }

    /// The state Docker's word names; surrounding space and case ignored.
    pub fn parse(word: &str) -> ComponentStatus {
        let word = word.trim();
        ComponentStatus::NAMED
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(word))
            .unwrap_or(ComponentStatus::Unknown)
    }

    pub fn is_reported(self) -> bool {
        self != ComponentStatus::NotReported
    }

    pub fn is_running(self) -> bool {
        self == ComponentStatus::Running
    }

    /// Reported, and not running: something the operator should see.
    pub fn is_stopped(self) -> bool {
        self.is_reported() && !self.is_running()
    }

    /// Not working and not going to recover by itself, so a desired
    /// component in one of these states is deployed again (`restarting` is
    /// Docker's own restart policy at work; `paused` is someone's deliberate act).
    pub const DOWN: [ComponentStatus; 3] = [
        ComponentStatus::Exited,
        ComponentStatus::Dead,
        ComponentStatus::Created,
    ];

    /// One of [`ComponentStatus::DOWN`].
    pub fn is_down(self) -> bool {
        ComponentStatus::DOWN.contains(&self)
    }
}

impl fmt::Display for ComponentStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for ComponentStatus {
    fn from(word: &str) -> Self {
        ComponentStatus::parse(word)
    }
}

impl Serialize for ComponentStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ComponentStatus {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let word = String::deserialize(d)?;
        Ok(ComponentStatus::parse(&word))
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for ComponentStatus {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some(
                "Docker's state as last reported (running, exited, restarting, created, \
                 paused, dead, removing, unknown); empty when not reported.",
            ))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for ComponentStatus {}

/// Stored as its word, read back leniently: a value no Agent should have
/// sent reads as `Unknown` instead of failing the query. (What
/// `DeriveActiveEnum` writes, with that one difference.)
#[cfg(feature = "db")]
mod stored {
    use super::ComponentStatus;
    use sea_orm::sea_query::{ArrayType, ColumnType, StringLen, Value, ValueType, ValueTypeErr};
    use sea_orm::{ActiveEnum, ColIdx, DbErr, QueryResult, TryGetError, TryGetable};

    impl ActiveEnum for ComponentStatus {
        type Value = String;
        type ValueVec = Vec<String>;

        fn name() -> sea_orm::sea_query::DynIden {
            sea_orm::sea_query::SeaRc::new(sea_orm::sea_query::Alias::new("component_status"))
        }

        fn to_value(&self) -> String {
            self.as_str().to_string()
        }

        fn try_from_value(v: &String) -> Result<Self, DbErr> {
            Ok(ComponentStatus::parse(v))
        }

        fn db_type() -> sea_orm::ColumnDef {
            sea_orm::prelude::ColumnTypeTrait::def(ColumnType::String(StringLen::N(32)))
        }
    }

    #[allow(clippy::from_over_into)]
    impl Into<Value> for ComponentStatus {
        fn into(self) -> Value {
            self.as_str().into()
        }
    }

    impl TryGetable for ComponentStatus {
        fn try_get_by<I: ColIdx>(res: &QueryResult, idx: I) -> Result<Self, TryGetError> {
            Ok(ComponentStatus::parse(&String::try_get_by(res, idx)?))
        }
    }

    impl ValueType for ComponentStatus {
        fn try_from(v: Value) -> Result<Self, ValueTypeErr> {
            Ok(ComponentStatus::parse(&<String as ValueType>::try_from(v)?))
        }

        fn type_name() -> String {
            "ComponentStatus".into()
        }

        fn array_type() -> ArrayType {
            ArrayType::String
        }

        fn column_type() -> ColumnType {
            ColumnType::String(StringLen::N(32))
        }
    }

    impl sea_orm::sea_query::Nullable for ComponentStatus {
        fn null() -> Value {
            Value::String(None)
        }
    }
}

/// What an install token can still do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum InstallTokenState {
    /// Not used yet and not expired: a host can enroll with it.
    Active,
    /// A host enrolled with it (and may repeat that enrollment for a while).
    Used,
    Expired,
    Revoked,
}

impl InstallTokenState {
    pub fn as_str(self) -> &'static str {
        match self {
            InstallTokenState::Active => "active",
            InstallTokenState::Used => "used",
            InstallTokenState::Expired => "expired",
            InstallTokenState::Revoked => "revoked",
        }
    }

    /// Revoking a used token ends its owner's repeat enrollment too.
    pub fn can_revoke(self) -> bool {
        matches!(self, InstallTokenState::Active | InstallTokenState::Used)
    }
}

/// Whether an invite link still opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum InviteState {
    Active,
    Expired,
    Revoked,
    /// Opened as many times as it allows.
    UsedUp,
}

impl InviteState {
    pub fn as_str(self) -> &'static str {
        match self {
            InviteState::Active => "active",
            InviteState::Expired => "expired",
            InviteState::Revoked => "revoked",
            InviteState::UsedUp => "used_up",
        }
    }

    pub fn is_active(self) -> bool {
        self == InviteState::Active
    }
}

/// How an alert's delivery to the webhook went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "db",
    derive(sea_orm::DeriveActiveEnum, sea_orm::EnumIter),
    sea_orm(
        rs_type = "String",
        db_type = "String(sea_orm::sea_query::StringLen::N(16))"
    )
)]
pub enum AlertStatus {
    /// Waiting for its first try or for a retry.
    #[cfg_attr(feature = "db", sea_orm(string_value = "pending"))]
    Pending,
    #[cfg_attr(feature = "db", sea_orm(string_value = "sent"))]
    Sent,
    /// Every try failed.
    #[cfg_attr(feature = "db", sea_orm(string_value = "failed"))]
    Failed,
    /// A newer state of the same thing replaced it before it was sent.
    #[cfg_attr(feature = "db", sea_orm(string_value = "superseded"))]
    Superseded,
}

impl AlertStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AlertStatus::Pending => "pending",
            AlertStatus::Sent => "sent",
            AlertStatus::Failed => "failed",
            AlertStatus::Superseded => "superseded",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_statuses_read_and_write_the_words_they_always_had() {
        for status in JobStatus::ALL {
            assert_eq!(JobStatus::parse(status.as_str()), Some(status));
            let json = serde_json::to_string(&status).unwrap();
            assert_eq!(json, format!("\"{}\"", status.as_str()));
        }
        assert_eq!(JobStatus::parse("done"), None);
    }

    #[test]
    fn only_pending_jobs_cancel_and_only_failed_or_expired_ones_retry() {
        use JobStatus::*;
        let cancellable: Vec<_> = JobStatus::ALL
            .into_iter()
            .filter(|s| s.can_cancel())
            .collect();
        assert_eq!(cancellable, [Pending]);
        let retriable: Vec<_> = JobStatus::ALL
            .into_iter()
            .filter(|s| s.can_retry())
            .collect();
        assert_eq!(retriable, [Failed, Expired]);
        let active: Vec<_> = JobStatus::ALL
            .into_iter()
            .filter(|s| s.is_active())
            .collect();
        assert_eq!(active, [Pending, Running]);
        assert!(Cancelled.is_final() && !Cancelled.needs_attention());
    }

    #[test]
    fn component_states_keep_dockers_words_and_read_odd_ones_as_unknown() {
        assert_eq!(ComponentStatus::parse("running"), ComponentStatus::Running);
        assert_eq!(ComponentStatus::parse(" Exited "), ComponentStatus::Exited);
        assert_eq!(ComponentStatus::parse(""), ComponentStatus::NotReported);
        assert_eq!(ComponentStatus::parse("weird"), ComponentStatus::Unknown);
        let read: ComponentStatus = serde_json::from_str("\"dead\"").unwrap();
        assert!(read.is_down() && read.is_stopped());
        assert_eq!(
            serde_json::to_string(&ComponentStatus::NotReported).unwrap(),
            "\"\""
        );
        assert!(!ComponentStatus::Restarting.is_down());
    }

    #[test]
    fn agents_away_are_those_whose_heartbeats_do_not_count() {
        assert!(AgentStatus::Degraded.is_connected());
        for away in [
            AgentStatus::Offline,
            AgentStatus::Disabled,
            AgentStatus::Pending,
            AgentStatus::Revoked,
            AgentStatus::Moved,
        ] {
            assert!(away.is_away(), "{away}");
        }
        assert_eq!(AgentStatus::parse("pending"), Some(AgentStatus::Pending));
        assert_eq!(AgentStatus::Offline.attention_rank(), Some(0));
        assert_eq!(AgentStatus::Moved.attention_rank(), None);
    }
}
