//! The setup checklist of a network: the ten steps of the guide
//! for a first KnotRoute network, each worked out from what Control sees,
//! and the guide's "bootstrap complete" criteria. The server words every
//! sentence in the reader's language, so the browser carries no tables.

use serde::{Deserialize, Serialize};

/// The guide's steps, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SetupStep {
    /// 1. The profile with its Network ID.
    NetworkId,
    /// 2. A first Beacon with its relay: HTTPS for the API, raw TCP 7447.
    FirstBeacon,
    /// 3. A second Beacon on another host or provider.
    SecondBeacon,
    /// 4. Always-on relays: at least two for route diversity.
    Relays,
    /// 5. Control behind HTTPS with separate strong secrets.
    ControlHttps,
    /// 6. Agents, with Docker only where deployment is allowed.
    Agents,
    /// 7. A first service with its `.knot` address, and its identity backed up.
    FirstService,
    /// 8. Client onboarding: invites for the platforms.
    Onboarding,
    /// 9. End-to-end monitoring from another failure domain.
    Monitoring,
    /// 10. The operations policy written down.
    Policy,
}

impl SetupStep {
    pub const ALL: [SetupStep; 10] = [
        SetupStep::NetworkId,
        SetupStep::FirstBeacon,
        SetupStep::SecondBeacon,
        SetupStep::Relays,
        SetupStep::ControlHttps,
        SetupStep::Agents,
        SetupStep::FirstService,
        SetupStep::Onboarding,
        SetupStep::Monitoring,
        SetupStep::Policy,
    ];

    /// The name in URLs, the database and the API.
    pub fn slug(self) -> &'static str {
        match self {
            SetupStep::NetworkId => "network_id",
            SetupStep::FirstBeacon => "first_beacon",
            SetupStep::SecondBeacon => "second_beacon",
            SetupStep::Relays => "relays",
            SetupStep::ControlHttps => "control_https",
            SetupStep::Agents => "agents",
            SetupStep::FirstService => "first_service",
            SetupStep::Onboarding => "onboarding",
            SetupStep::Monitoring => "monitoring",
            SetupStep::Policy => "policy",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.slug() == slug)
    }

    /// Its number in the guide, from 1.
    pub fn number(self) -> usize {
        Self::ALL.iter().position(|s| *s == self).unwrap_or(0) + 1
    }

    /// Whether the admin may skip it by choice. The profile itself cannot be
    /// skipped: without it there is no network.
    pub fn skippable(self) -> bool {
        self != SetupStep::NetworkId
    }
}

/// Where a step stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum StepState {
    Done,
    /// `detail` says what is missing.
    NotYet,
    /// Control cannot see it; `detail` says why.
    CantTell,
    /// The admin chose to leave it out.
    Skipped,
}

impl StepState {
    pub fn as_str(self) -> &'static str {
        match self {
            StepState::Done => "done",
            StepState::NotYet => "not_yet",
            StepState::CantTell => "cant_tell",
            StepState::Skipped => "skipped",
        }
    }
}

/// One step as the checklist shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChecklistStep {
    pub step: SetupStep,
    pub state: StepState,
    pub title: String,
    /// One sentence on why the step matters.
    pub why: String,
    /// Done: what Control saw. Not yet: what is missing. Can't tell: why.
    /// Skipped: what it would say otherwise.
    pub detail: String,
    /// A caution that does not change the state (e.g. a single host).
    pub warning: Option<String>,
    /// The screen that does this step: a path within Control.
    pub fix_href: String,
    pub fix_label: String,
    /// Who skipped it and when (RFC 3339), when skipped.
    pub skipped_by: Option<String>,
    pub skipped_at: Option<String>,
}

/// What Control knows of a "bootstrap complete" criterion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Knowledge {
    /// Control has seen it hold (a verified backup; the end-to-end probe,
    /// not built yet, would prove more).
    Proven,
    /// Control can see it and has not yet.
    NotYet,
    /// Control cannot see it; only a test from outside can.
    Unknown,
}

/// The guide's "bootstrap complete" criteria.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Criterion {
    RelayDiscovered,
    Routes,
    ServiceResolves,
    HttpOverOverlay,
    IdentitySurvivesRestart,
    ClientReconnects,
    BackupVerified,
}

impl Criterion {
    pub const ALL: [Criterion; 7] = [
        Criterion::RelayDiscovered,
        Criterion::Routes,
        Criterion::ServiceResolves,
        Criterion::HttpOverOverlay,
        Criterion::IdentitySurvivesRestart,
        Criterion::ClientReconnects,
        Criterion::BackupVerified,
    ];
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BootstrapCheck {
    pub criterion: Criterion,
    pub knowledge: Knowledge,
    pub title: String,
    /// What Control saw, or why it cannot know.
    pub detail: String,
}

/// `GET /api/v1/networks/{id}/setup`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SetupChecklist {
    pub network_id: String,
    pub network_name: String,
    pub steps: Vec<ChecklistStep>,
    /// Cautions over the whole network, e.g. that it runs on one host.
    pub warnings: Vec<String>,
    pub bootstrap: Vec<BootstrapCheck>,
    /// RFC 3339 UTC.
    pub checked_at: String,
}

impl SetupChecklist {
    pub fn summary(&self) -> SetupSummary {
        let count = |state| self.steps.iter().filter(|s| s.state == state).count() as u32;
        SetupSummary {
            network_id: self.network_id.clone(),
            network_name: self.network_name.clone(),
            done: count(StepState::Done),
            skipped: count(StepState::Skipped),
            total: self.steps.len() as u32,
            // What the admin can do something about first; then what
            // Control cannot see.
            next: [StepState::NotYet, StepState::CantTell]
                .into_iter()
                .find_map(|state| self.steps.iter().find(|s| s.state == state))
                .map(|s| s.title.clone()),
        }
    }
}

/// A network's checklist in one line, for the Overview.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SetupSummary {
    pub network_id: String,
    pub network_name: String,
    pub done: u32,
    pub skipped: u32,
    pub total: u32,
    /// The first step not yet done (else the first Control cannot see), by its title.
    pub next: Option<String>,
}

/// `PUT /api/v1/networks/{id}/setup`: skip a step by choice, or take it
/// back into the checklist.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SkipInput {
    /// [`SetupStep::slug`], e.g. `monitoring`.
    pub step: String,
    pub skipped: bool,
}

impl SkipInput {
    pub fn step(&self) -> Result<SetupStep, crate::FieldError> {
        SetupStep::from_slug(self.step.trim())
            .ok_or_else(|| crate::FieldError::new("step", crate::Problem::UnknownStep))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_reads_back_from_its_slug_and_only_the_profile_cannot_be_skipped() {
        for (i, step) in SetupStep::ALL.into_iter().enumerate() {
            assert_eq!(SetupStep::from_slug(step.slug()), Some(step));
            assert_eq!(step.number(), i + 1);
            assert_eq!(step.skippable(), step != SetupStep::NetworkId);
        }
        assert_eq!(SetupStep::from_slug("Relays"), None);
        assert_eq!(SetupStep::from_slug(""), None);
    }
}
