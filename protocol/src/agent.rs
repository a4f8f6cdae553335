//! Messages between Agent and Control (PROTOCOL.md, version 1 plus our
//! optional extensions). Every field an older peer may omit has a default,
//! and our additions are skipped when empty, so version-1 peers are unaffected.

use crate::ids::{AgentId, JobId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `POST /api/v1/agents/enroll`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnrollRequest {
    #[serde(default)]
    pub name: String,
    /// Ed25519 public key, base64 without padding.
    pub public_key: String,
    /// The shared enrollment token or a one-time install token.
    pub token: String,
    #[serde(default)]
    pub tags: Vec<String>,
}

/// Answer to a successful enrollment (201).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnrollResponse {
    pub agent_id: AgentId,
}

/// `POST /api/v1/agents/heartbeat`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Heartbeat {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub hostname: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub docker_available: bool,
    #[serde(default)]
    pub docker_version: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub components: Vec<ComponentReport>,
    /// Ours: makes every signed body unique, so replays can be told apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
}

/// One managed container as the Agent sees it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ComponentReport {
    /// `beacon-<slug>` or `sidecar-<slug>`.
    #[serde(default)]
    pub id: String,
    /// `beacon` or `sidecar`.
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub container: String,
    #[serde(default)]
    pub image: String,
    /// Docker's state: running, exited, restarting, created, paused, dead, …
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub address: String,
    /// The canonical `.knot` address once announced; empty until then.
    #[serde(default)]
    pub service: String,
    #[serde(default)]
    pub target: String,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// Ours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_count: Option<u32>,
    /// Ours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Ours.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// `POST /api/v1/agents/jobs/next` body: `{}` from version 1, `{"nonce"}` from ours.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobNextRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
}

/// A job as handed to an Agent (the claim moved it to `running`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobOffer {
    pub id: JobId,
    pub agent_id: AgentId,
    pub kind: String,
    pub payload: serde_json::Value,
    pub status: String,
    /// RFC 3339 UTC.
    pub created_at: String,
    pub started_at: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobOutcome {
    Succeeded,
    Failed,
}

/// `POST /api/v1/agents/jobs/result`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    pub job_id: JobId,
    pub status: JobOutcome,
    #[serde(default)]
    pub result: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
}

/// `{"ok": true}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ack {
    pub ok: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_heartbeat_example_from_the_protocol_parses() {
        let body = r#"{"name": "prod-01", "hostname": "host", "version": "1.2.3",
            "docker_available": true, "docker_version": "27.1.1/27.1.1", "tags": ["production"],
            "components": [{"id": "sidecar-web", "kind": "sidecar", "name": "web",
              "container": "kr-sidecar-web-knotroute-1", "image": "ghcr.io/localzet/knotroute-sidecar:1.2.3",
              "status": "running", "version": "1.2.3", "address": "", "service": "web-abc.knot",
              "target": "app:8080", "labels": {"io.knotroute.managed": "true"}}]}"#;
        let hb: Heartbeat = serde_json::from_str(body).unwrap();
        assert_eq!(hb.components[0].service, "web-abc.knot");
        assert_eq!(hb.components[0].restart_count, None);
        assert_eq!(hb.nonce, None);
        // Our extensions stay out of the JSON when unused, so a version-1 Control sees what it knows.
        let back = serde_json::to_value(&hb).unwrap();
        assert!(back.get("nonce").is_none());
        assert!(back["components"][0].get("warnings").is_none());
    }

    #[test]
    fn a_version_1_jobs_next_body_is_an_empty_object() {
        assert_eq!(
            serde_json::from_str::<JobNextRequest>("{}").unwrap(),
            JobNextRequest::default()
        );
        assert_eq!(
            serde_json::to_string(&JobNextRequest::default()).unwrap(),
            "{}"
        );
    }

    #[test]
    fn results_carry_lowercase_outcomes() {
        let r: JobResult = serde_json::from_str(
            r#"{"job_id":"job_aaaaaaaaaaaaaaaaaaaaaaaaaa","status":"failed","result":"boom"}"#,
        )
        .unwrap();
        assert_eq!(r.status, JobOutcome::Failed);
        assert!(
            serde_json::from_str::<JobResult>(r#"{"job_id":"job_x","status":"failed"}"#).is_err()
        );
    }
}
