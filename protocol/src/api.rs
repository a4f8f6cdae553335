//! JSON shapes of the admin API, shared by the server, the browser and scripts.

use crate::ids::NetworkId;
use crate::validation::{self, FieldError};
use serde::{Deserialize, Serialize};

/// A stored network profile as the API returns it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetworkProfile {
    pub id: NetworkId,
    pub name: String,
    pub description: String,
    /// Beacon URLs, normalised; may be empty (users then need another bootstrap path).
    pub beacons: Vec<String>,
    /// RFC 3339 UTC.
    pub created_at: String,
    pub updated_at: String,
}

/// What an admin submits to create (`id` optional: blank generates one) or
/// update (`id`, if given, must equal the stored one) a profile.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NetworkInput {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub beacons: Vec<String>,
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
pub struct SignIn {
    #[serde(default)]
    pub password: String,
}

/// `GET /api/v1/session`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionStatus {
    pub authenticated: bool,
    /// RFC 3339 UTC; present when authenticated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

/// An Agent as the admin API shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentView {
    pub id: String,
    pub name: String,
    pub hostname: String,
    pub version: String,
    pub tags: Vec<String>,
    pub docker_available: bool,
    pub docker_version: String,
    /// online, degraded, offline or disabled.
    pub status: String,
    /// A stable code for why it has that status.
    pub reason: String,
    /// The same in a sentence.
    pub reason_text: String,
    pub last_heartbeat_at: Option<String>,
    pub components: Vec<ComponentView>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ComponentView {
    pub id: String,
    pub kind: String,
    pub name: String,
    pub network_id: Option<String>,
    pub desired: bool,
    /// Docker's state as last reported; empty when not reported.
    pub status: String,
    pub image: String,
    pub version: String,
    pub service: String,
    pub restart_count: i32,
    pub last_error: String,
    pub warnings: Vec<String>,
}

/// A job as the admin API shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobView {
    pub id: String,
    pub agent_id: String,
    pub kind: String,
    pub payload: serde_json::Value,
    /// pending, running, succeeded, failed, cancelled or expired.
    pub status: String,
    pub result: String,
    /// RFC 3339 UTC.
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub retry_of: Option<String>,
}

/// `POST /api/v1/jobs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewJob {
    pub agent_id: String,
    pub kind: String,
    #[serde(default)]
    pub payload: serde_json::Value,
}

/// The numbers on the Overview screen.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverviewCounts {
    pub networks: u64,
    pub networks_without_beacon: u64,
    pub agents_online: u64,
    pub agents_total: u64,
    pub managed_components: u64,
    pub services: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::Problem;

    #[test]
    fn a_form_with_several_mistakes_reports_each_field() {
        let input = NetworkInput {
            id: Some("kn_nope".into()),
            name: " ".into(),
            description: None,
            beacons: vec!["http://beacon.example.net:7447".into()],
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
