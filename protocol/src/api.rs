//! JSON shapes of the admin API, shared by the server, the browser and scripts.

use crate::ids::{AgentId, InstallTokenId, JobId, NetworkId};
use crate::status::{AgentStatus, ComponentStatus, JobStatus};
use crate::validation::{self, FieldError};
use serde::{Deserialize, Serialize};

/// A stored network profile as the API returns it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NetworkProfile {
    pub id: NetworkId,
    pub name: String,
    pub description: String,
    /// Beacon URLs, normalised; may be empty (users then need another bootstrap path).
    pub beacons: Vec<String>,
    /// RFC 3339 UTC.
    pub created_at: String,
    pub updated_at: String,
    /// Raised by one on every change. Send it back as `version` in the update
    /// (or as `If-Match: "<version>"`) so that a change made meanwhile by
    /// someone else is refused with 409 `stale_profile` instead of undone.
    pub version: i64,
}

/// What an admin submits to create (`id` optional: blank generates one) or
/// update (`id`, if given, must equal the stored one) a profile.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NetworkInput {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub beacons: Vec<String>,
    /// On update: the profile's `version` this change is based on; if the
    /// profile has changed since, the update is refused with 409
    /// `stale_profile` and changes nothing. Left out, the update replaces the
    /// profile whatever its version (as scripts for the first Control expect).
    /// Ignored on create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
}

/// A profile that passed every rule; `id` is `None` when one must be generated.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidNetwork {
    pub id: Option<NetworkId>,
    pub name: String,
    pub description: String,
    pub beacons: Vec<String>,
}

impl NetworkInput {
    /// Checks every field and returns all problems at once, so a form can mark each field.
    pub fn validate(&self) -> Result<ValidNetwork, Vec<FieldError>> {
        let mut errors = Vec::new();
        let id = match self.id.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            None => None,
            Some(raw) => NetworkId::parse(raw).map_err(|e| errors.push(e)).ok(),
        };
        let name = validation::profile_name(&self.name)
            .map_err(|e| errors.push(e))
            .ok();
        let description = validation::description(self.description.as_deref().unwrap_or(""))
            .map_err(|e| errors.push(e))
            .ok();
        let beacons = validation::beacon_urls(&self.beacons)
            .map_err(|e| errors.push(e))
            .ok();
        match (name, description, beacons) {
            (Some(name), Some(description), Some(beacons)) if errors.is_empty() => {
                Ok(ValidNetwork {
                    id,
                    name,
                    description,
                    beacons,
                })
            }
            _ => Err(errors),
        }
    }
}

/// The error body of every API refusal: `{"error","code","field","hint"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    pub error: String,
    pub code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// `POST /api/v1/session`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignIn {
    /// A person's name; leave it out (or empty) for the break-glass owner
    /// account, whose password is `KNOTROUTE_CONTROL_ADMIN_PASSWORD`.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub password: String,
    /// The 6-digit code of the person's authenticator app, or a recovery
    /// code, for a person who turned on two-step sign-in. Sent only when a
    /// sign-in without it was answered `second_factor_needed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// `GET /api/v1/session`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SessionStatus {
    pub authenticated: bool,
    /// RFC 3339 UTC; present when authenticated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

/// An Agent as the admin API shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentView {
    pub id: AgentId,
    pub name: String,
    pub hostname: String,
    pub version: String,
    pub tags: Vec<String>,
    pub docker_available: bool,
    pub docker_version: String,
    pub status: AgentStatus,
    /// A stable code for why it has that status.
    pub reason: String,
    /// The same in a sentence.
    pub reason_text: String,
    pub last_heartbeat_at: Option<String>,
    /// Seconds from the last heartbeat to when this view was made (by the
    /// database's clock), so "12 s ago" reads the same on server and browser.
    #[serde(default)]
    pub last_seen_secs: Option<u64>,
    /// After a move: the Agent that took this record over.
    #[serde(default)]
    pub moved_to: Option<AgentId>,
    pub components: Vec<ComponentView>,
    /// What the Agent reported about Control's key; absent until it has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_trust: Option<ControlTrustView>,
    /// `SHA256:…` of the Agent's key, as the Agent logs it ("Agent
    /// identity"): what an admin compares before approving it.
    #[serde(default)]
    pub key_fingerprint: String,
}

/// Whether Agents enrolled with the shared enrollment token wait for an
/// admin's approval (`GET`/`PUT /api/v1/settings/agents`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentApprovalSettings {
    /// On by default. Agents enrolled with an install token are approved by
    /// the admin who made the token, unless it was made to need approval.
    pub required: bool,
}

/// One of Control's identity keys, as Settings and the API show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ControlKeyView {
    /// 1 for the first key, one more per rotation.
    pub generation: i64,
    /// Base64 without padding: what `KNOTROUTE_AGENT_CONTROL_KEY` takes.
    pub public_key: String,
    /// `SHA256:…`, for comparing by eye.
    pub fingerprint: String,
    /// RFC 3339.
    pub created_at: String,
    /// During a rotation, when the previous key stops signing (RFC 3339).
    pub retire_at: Option<String>,
}

/// Control's identity: the key Agents pin and, during a rotation, the
/// previous one that still signs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ControlIdentityView {
    pub current: ControlKeyView,
    pub previous: Option<ControlKeyView>,
}

/// What an Agent reported about Control's identity key.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ControlTrustView {
    /// Fingerprint of the Control key it pinned; empty when it has none.
    pub pinned_fingerprint: String,
    /// `current`, `previous` (during a rotation), `retired`, `unknown` or ''.
    pub pin_state: String,
    /// When it last refused an answer not signed by that key (RFC 3339).
    pub refused_at: Option<String>,
    pub refused_count: u64,
    /// The last refusal in words.
    pub refused_detail: String,
}

/// An Agent as the job, deploy and publish forms offer it: only what the
/// choice needs, so a form stays small with thousands of Agents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentChoice {
    pub id: AgentId,
    pub name: String,
    pub status: AgentStatus,
    pub docker_available: bool,
}

/// What a form's choice list offers: the entries matching its search, by
/// name, up to a limit; `more` says that others match too, so the form
/// offers a search box to narrow them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choices<T> {
    pub items: Vec<T>,
    pub more: bool,
}

impl AgentChoice {
    /// Online with Docker: where a new Beacon or sidecar can be deployed now.
    pub fn can_deploy_now(&self) -> bool {
        self.status == AgentStatus::Online && self.docker_available
    }
}

impl From<&AgentView> for AgentChoice {
    fn from(a: &AgentView) -> Self {
        Self {
            id: a.id.clone(),
            name: a.name.clone(),
            status: a.status,
            docker_available: a.docker_available,
        }
    }
}

impl AgentView {
    /// How urgently the operator should look at this Agent, most urgent
    /// first: 0 it is offline or a component is in error, 1 it is disabled,
    /// 2 a component carries a warning; `None` when healthy or retired.
    pub fn attention_rank(&self) -> Option<u8> {
        self.status.attention_rank().or_else(|| {
            let warned = self.components.iter().any(|c| !c.warnings.is_empty());
            (!self.status.is_retired() && warned).then_some(2)
        })
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ComponentView {
    pub id: String,
    pub kind: String,
    pub name: String,
    pub network_id: Option<String>,
    pub desired: bool,
    /// Docker's state as last reported; empty when not reported.
    pub status: ComponentStatus,
    pub image: String,
    pub version: String,
    pub service: String,
    pub restart_count: i32,
    pub last_error: String,
    pub warnings: Vec<String>,
    /// When a failed deployment of this desired component is tried again.
    #[serde(default)]
    pub next_retry_at: Option<String>,
    /// What the admin deployed (the job payload), for a desired component.
    #[serde(default)]
    pub spec: Option<serde_json::Value>,
    /// A sidecar's catalog entry as deployed (empty for a Beacon, or a
    /// service Control did not deploy). Show `catalog.title`, else `name`.
    #[serde(default)]
    pub catalog: crate::catalog::Catalog,
}

impl ComponentView {
    /// What to call it: its catalog title, else its name.
    pub fn display_name(&self) -> &str {
        self.catalog.title.as_deref().unwrap_or(&self.name)
    }

    /// Reported by the Agent but not deployed through Control: a warning
    /// ("unmanaged leftover") the admin may remove.
    pub fn is_leftover(&self) -> bool {
        !self.desired && self.status.is_reported()
    }
}

/// A job as the admin API shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobView {
    pub id: JobId,
    pub agent_id: AgentId,
    pub kind: String,
    pub payload: serde_json::Value,
    pub status: JobStatus,
    pub result: String,
    /// RFC 3339 UTC.
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub retry_of: Option<JobId>,
    /// The component the job acts on (`beacon-…`/`sidecar-…`).
    #[serde(default)]
    pub component_id: Option<String>,
    /// The network of that component, when known.
    #[serde(default)]
    pub network_id: Option<NetworkId>,
    /// Its Agent reports progress (stages and output) while it runs, and
    /// can be told to stop.
    #[serde(default)]
    pub reports_progress: bool,
    /// An admin asked the running job to stop.
    #[serde(default)]
    pub cancel_requested: bool,
    /// The stage a running job is in, in lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
    /// Its stages in order (`GET /api/v1/jobs/{id}`; lists leave them out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<crate::progress::StageView>,
}

impl JobView {
    /// Pending jobs are cancelled at once; a running one can be asked to stop
    /// when its Agent reports progress, once.
    pub fn can_cancel(&self) -> bool {
        self.status.can_cancel()
            || (self.status == JobStatus::Running
                && self.reports_progress
                && !self.cancel_requested)
    }
}

/// `POST /api/v1/jobs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NewJob {
    pub agent_id: String,
    /// `deploy_sidecar`, `deploy_beacon`, `restart_component`, `remove_component`,
    /// or (ours) `backup_volume` and `verify_backup`.
    pub kind: String,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = crate::jobs::PayloadSchema))]
    pub payload: serde_json::Value,
}

impl NewJob {
    /// What the browser can check before sending: an Agent is chosen and the
    /// payload fits its kind. (The server also checks that the Agent exists
    /// and takes jobs.)
    pub fn check(&self) -> Result<crate::jobs::JobPayload, Vec<FieldError>> {
        if self.agent_id.trim().is_empty() {
            return Err(vec![FieldError::new(
                "agent_id",
                validation::Problem::Required,
            )]);
        }
        crate::jobs::JobPayload::parse_new(&self.kind, &self.payload).map_err(|e| vec![e])
    }
}

/// `POST /api/v1/install-tokens`: a one-time token for one Agent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NewInstallToken {
    /// Name for the Agent that enrolls with it; empty = the Agent's own.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub tags: Vec<String>,
    /// Hours until it expires (1 to 720); 24 when absent.
    #[serde(default)]
    pub expires_in_hours: Option<u32>,
    /// The Agent that enrolls with it waits for approval, as one enrolled
    /// with the shared token does; by default the token is the approval.
    #[serde(default)]
    pub needs_approval: bool,
}

pub const INSTALL_TOKEN_DEFAULT_HOURS: u32 = 24;
pub const INSTALL_TOKEN_MAX_HOURS: u32 = 720;

/// A [`NewInstallToken`] that passed validation.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidInstallToken {
    pub name: String,
    pub tags: Vec<String>,
    pub expires_in_hours: u32,
    pub needs_approval: bool,
}

impl NewInstallToken {
    pub fn validate(&self) -> Result<ValidInstallToken, Vec<crate::FieldError>> {
        let mut errors = Vec::new();
        let name = crate::validation::optional_name("name", &self.name)
            .map_err(|e| errors.push(e))
            .unwrap_or_default();
        let tags = crate::validation::tags("tags", &self.tags)
            .map_err(|e| errors.push(e))
            .unwrap_or_default();
        let hours = self.expires_in_hours.unwrap_or(INSTALL_TOKEN_DEFAULT_HOURS);
        if !(1..=INSTALL_TOKEN_MAX_HOURS).contains(&hours) {
            errors.push(crate::FieldError::new(
                "expires_in_hours",
                crate::validation::Problem::OutOfRange {
                    min: 1,
                    max: INSTALL_TOKEN_MAX_HOURS,
                },
            ));
        }
        if errors.is_empty() {
            Ok(ValidInstallToken {
                name,
                tags,
                expires_in_hours: hours,
                needs_approval: self.needs_approval,
            })
        } else {
            Err(errors)
        }
    }
}

/// An install token as the admin sees it (never the token itself).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct InstallTokenView {
    pub id: InstallTokenId,
    pub name: String,
    pub tags: Vec<String>,
    pub state: crate::status::InstallTokenState,
    pub created_at: String,
    pub expires_at: String,
    pub used_at: Option<String>,
    /// The Agent that enrolled with it.
    pub used_by: Option<String>,
    /// For a move: the Agent record the new host takes over.
    pub replaces_agent: Option<String>,
    /// Its Agent waits for approval once enrolled.
    #[serde(default)]
    pub needs_approval: bool,
}

/// The answer to creating a token: the only time the token is shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatedInstallToken {
    #[serde(flatten)]
    pub view: InstallTokenView,
    pub token: String,
    /// Copy-ready commands for the Agent's host, built from PUBLIC_URL.
    pub docker_run: String,
    pub compose: String,
    /// Set when PUBLIC_URL is unset, so the snippets hold a placeholder.
    pub warning: Option<String>,
}

/// A revoked key: refused at enrollment, even after its Agent record is
/// deleted, until the admin allows it again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RevokedKeyView {
    /// The Agent ID the key derives.
    pub agent_id: AgentId,
    /// Base64 without padding; empty for keys revoked before Control kept them.
    pub public_key: String,
    /// The Agent's name when it was revoked.
    pub name: String,
    /// RFC 3339 UTC.
    pub revoked_at: String,
    /// Whether the revoked Agent record still exists (it must be deleted
    /// before the key may be allowed again).
    pub record_exists: bool,
    /// Refused while it waited for approval, rather than revoked after.
    #[serde(default)]
    pub rejected: bool,
}

/// One enrollment attempt, accepted or refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EnrollmentAttempt {
    /// The (last) attempt, RFC 3339 UTC.
    pub at: String,
    /// The first of the attempts this line counts (equals `at` for one).
    pub first_at: String,
    /// Repeated refusals from one address for one reason are one line.
    pub attempts: u64,
    pub client: String,
    /// Derived from the key the host sent: not an enrolled Agent unless accepted.
    pub agent_id: Option<String>,
    /// The name the host gave: its own claim, bounded, to be shown as text.
    pub name: String,
    pub accepted: bool,
    /// `accepted` or the refusal code.
    pub reason: String,
    /// The reason in a sentence, with what to do.
    pub reason_text: String,
}

/// A line of the audit log as the API shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditEntry {
    /// Increasing; pass the last one as `before` for the next page.
    pub id: i64,
    /// RFC 3339 UTC.
    pub at: String,
    /// `admin`, `token:<name>` (an API token), `agent:<id>` or `control`.
    pub actor: String,
    /// A stable slug, e.g. `network.created`.
    pub action: String,
    /// The Network, Agent or Job ID it concerns.
    pub subject: String,
    pub detail: String,
}

/// The numbers on the Overview screen.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverviewCounts {
    pub networks: u64,
    pub networks_without_beacon: u64,
    pub agents_online: u64,
    pub agents_total: u64,
    /// Beacons deployed by Control (desired `beacon` components).
    pub managed_beacons: u64,
    pub services: u64,
    /// Agents waiting for an admin's approval (only someone who sees every
    /// network sees them: they belong to none).
    #[serde(default)]
    pub agents_pending: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::Problem;

    #[test]
    fn a_job_needs_an_agent_before_its_payload_is_looked_at() {
        let job = NewJob {
            agent_id: " ".into(),
            kind: "restart_component".into(),
            payload: serde_json::json!({}),
        };
        let refused = job.check().unwrap_err();
        assert_eq!(refused[0].field, "agent_id");
        assert_eq!(refused[0].problem, Problem::Required);
        let job = NewJob {
            agent_id: "ka_x".into(),
            ..job
        };
        assert_eq!(job.check().unwrap_err()[0].field, "component_id");
    }

    #[test]
    fn a_form_with_several_mistakes_reports_each_field() {
        let input = NetworkInput {
            id: Some("kn_nope".into()),
            name: " ".into(),
            description: None,
            beacons: vec!["http://beacon.example.net:7447".into()],
            version: None,
        };
        let errors = input.validate().unwrap_err();
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["id", "name", "beacons"]);
        assert_eq!(errors[2].problem, Problem::BeaconRelayPort);
    }

    #[test]
    fn a_blank_id_means_generate_one() {
        let input = NetworkInput {
            id: Some("  ".into()),
            name: "Lab".into(),
            ..Default::default()
        };
        let valid = input.validate().unwrap();
        assert_eq!(valid.id, None);
        assert!(valid.beacons.is_empty());
    }
}
