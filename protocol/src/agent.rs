//! Messages between Agent and Control (PROTOCOL.md, version 1 plus our
//! optional extensions). Every field an older peer may omit has a default,
//! and our additions are skipped when empty, so version-1 peers are unaffected.

use crate::ids::{AgentId, JobId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `POST /api/v1/agents/enroll`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EnrollRequest {
    #[serde(default)]
    pub name: String,
    /// Ed25519 public key, base64 without padding.
    pub public_key: String,
    /// The shared enrollment token or a one-time install token.
    pub token: String,
    #[serde(default)]
    pub tags: Vec<String>,
    /// Ours: Control's signature on the answer covers it (control_identity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
}

/// Answer to a successful enrollment (201).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EnrollResponse {
    pub agent_id: AgentId,
    /// Ours: Control's public key (base64, no padding), which our Agent pins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_key: Option<String>,
}

/// `POST /api/v1/agents/heartbeat`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    /// Ours: the Control key this Agent has pinned (base64, no padding).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_key: Option<String>,
    /// Ours: answers this Agent refused because the pinned Control key did
    /// not sign them, newest last, until Control has seen them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_answers: Vec<RefusedAnswer>,
}

/// An answer the Agent refused to act on (see control_identity).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RefusedAnswer {
    /// Unix seconds, the Agent's clock.
    #[serde(default)]
    pub at: i64,
    /// The request path the answer came to.
    #[serde(default)]
    pub path: String,
    /// `unsigned`, `other_key`, `bad_signature`, `malformed`, `stale_timestamp`.
    #[serde(default)]
    pub reason: String,
    /// The refusal in words (which keys signed it).
    #[serde(default)]
    pub detail: String,
    /// The job the answer offered, if it looked like one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub job_kind: String,
    /// For `other_key`: the fingerprints of the keys that did sign it. When
    /// they are all Control's own, the Agent's pin was out of date (an
    /// impostor cannot sign with them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signed_by: Vec<String>,
}

/// One managed container as the Agent sees it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    pub status: crate::status::ComponentStatus,
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobNextRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
    /// Ours: this Agent reports the progress of the job it takes
    /// (`crate::progress`), so Control may lease it for a minute at a time.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub progress: bool,
}

/// A job as handed to an Agent (the claim moved it to `running`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum JobOutcome {
    Succeeded,
    Failed,
    /// Ours: stopped because Control said the admin cancelled it (sent only
    /// in answer to that, so version-1 Controls never see it).
    Cancelled,
}

impl From<JobOutcome> for crate::status::JobStatus {
    fn from(outcome: JobOutcome) -> Self {
        match outcome {
            JobOutcome::Succeeded => crate::status::JobStatus::Succeeded,
            JobOutcome::Failed => crate::status::JobStatus::Failed,
            JobOutcome::Cancelled => crate::status::JobStatus::Cancelled,
        }
    }
}

/// `POST /api/v1/agents/jobs/result`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobResult {
    pub job_id: JobId,
    pub status: JobOutcome,
    #[serde(default)]
    pub result: String,
    /// Ours: what a `backup_volume` or `verify_backup` job found (never the
    /// archive's content). Sent only to a Control that announced `backups`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<crate::backups::BackupReport>,
    /// Ours: what a `probe_service` job found. Sent only to a Control that announced `probes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<crate::probes::ProbeReport>,
    /// Ours: the `.knot` address a restarted sidecar announced before and
    /// after a `restart_component` job. Sent only to a Control that announced `restart-report`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart: Option<RestartReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
}

/// A sidecar's address across one restart, each read from what that start
/// of the container printed (an old start's lines do not count).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RestartReport {
    /// `sidecar-<name>`.
    pub component_id: String,
    pub address_before: String,
    pub address_after: String,
}

/// `{"ok": true}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Ack {
    pub ok: bool,
}

/// What an enrollment-log reason code means and what to do about it, for the
/// admin reading why a host will not enroll.
pub fn enrollment_reason(code: &str, lang: crate::Lang) -> &'static str {
    use crate::Lang::{En, Ru};
    match (code, lang) {
        ("accepted", En) => "Enrolled.",
        ("accepted", Ru) => "Подключён.",
        ("bad_token", En) => "The token matches neither the shared enrollment token nor any install token. Check KNOTROUTE_CONTROL_ENROLL_TOKEN on the host.",
        ("bad_token", Ru) => "Токен не совпадает ни с общим токеном подключения, ни с одним токеном установки. Проверьте KNOTROUTE_CONTROL_ENROLL_TOKEN на хосте.",
        ("install_token_expired", En) => "The install token has expired. Create a new one under Infrastructure → Add agent.",
        ("install_token_expired", Ru) => "Срок токена установки истёк. Создайте новый: Инфраструктура → Добавить Agent.",
        ("install_token_used", En) => "The install token was already used by another Agent; each token enrolls one host. Create a new one.",
        ("install_token_used", Ru) => "Токен установки уже использован другим Agent; один токен подключает один хост. Создайте новый.",
        ("install_token_revoked", En) => "The install token was revoked by an admin. Create a new one.",
        ("install_token_revoked", Ru) => "Токен установки отозван администратором. Создайте новый.",
        ("malformed_key", En) => "The public key is not a 32-byte Ed25519 key in base64. The Agent's identity file may be damaged.",
        ("malformed_key", Ru) => "Открытый ключ не является 32-байтовым ключом Ed25519 в base64. Возможно, файл идентичности Agent повреждён.",
        ("throttled", En) => "Too many refused attempts from this address: refused for 10 minutes without checking the token.",
        ("throttled", Ru) => "Слишком много отклонённых попыток с этого адреса: 10 минут попытки отклоняются без проверки токена.",
        ("agent_revoked", En) => "An admin revoked this key. It stays refused, even after the Agent is deleted, until an admin allows it again (Infrastructure → Revoked keys); or remove agent-identity.json on the host to enroll with a new key.",
        ("agent_revoked", Ru) => "Администратор отозвал этот ключ. Он отклоняется и после удаления Agent, пока администратор снова не разрешит его (Инфраструктура → Отозванные ключи); либо удалите agent-identity.json на хосте, чтобы подключиться с новым ключом.",
        ("agent_moved", En) => "This key belongs to an Agent record that moved to another host. Remove agent-identity.json on this host to enroll it as a new Agent.",
        ("agent_moved", Ru) => "Этот ключ принадлежит записи Agent, перенесённой на другой хост. Удалите agent-identity.json на этом хосте, чтобы подключить его как новый Agent.",
        ("key_in_use", En) => "A move token was used by a host whose key is already enrolled as another Agent. Run the new host with a fresh data directory.",
        ("key_in_use", Ru) => "Токен переноса использован хостом, ключ которого уже подключён как другой Agent. Запустите новый хост с чистым каталогом данных.",
        (_, En) => "Refused.",
        (_, Ru) => "Отклонено.",
    }
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
              "status": "running", "version": "1.2.3", "address": "", "service": "qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot",
              "target": "app:8080", "labels": {"io.knotroute.managed": "true"}}]}"#;
        let hb: Heartbeat = serde_json::from_str(body).unwrap();
        assert_eq!(
            hb.components[0].service,
            "qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot"
        );
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
