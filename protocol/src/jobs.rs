//! Job kinds and their payloads (PROTOCOL.md "Job kinds and payloads"), with
//! the rules Control applies before queueing and the Agent again before it
//! touches the disk.

use crate::backups::{BackupVolume, VerifyBackup};
use crate::catalog::Catalog;
use crate::ids::NetworkId;
use crate::probes::ProbeService;
use crate::validation::{beacon_urls, FieldError, Problem};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const DEFAULT_BEACON_HTTP_PORT: u16 = 18080;
pub const BEACON_IMAGE: &str = "ghcr.io/localzet/knotroute-beacon";
pub const SIDECAR_IMAGE: &str = "ghcr.io/localzet/knotroute-sidecar";
pub const SLUG_MAX: usize = 80;

/// A slug: 1–80 of `A–Z a–z 0–9 - _ .`, lowercased: the version-1 wire
/// rule. Control deploys only names that also pass
/// [`crate::names::deployable_name`] (see [`JobPayload::parse_new`]).
pub fn slug(field: &str, input: &str) -> Result<String, FieldError> {
    let s = input.trim();
    let ok = !s.is_empty()
        && s.len() <= SLUG_MAX
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(s.to_ascii_lowercase())
    } else {
        Err(FieldError::new(field, Problem::InvalidSlug))
    }
}

/// `host:port` where host is a DNS name, an IPv4 address or a bracketed IPv6
/// address, and port is 1–65535. Container names are DNS-like, so targets use
/// the same rule.
pub fn host_port(field: &str, input: &str) -> Result<String, FieldError> {
    let err = || FieldError::new(field, Problem::InvalidHostPort);
    let s = input.trim();
    let (host, port) = s.rsplit_once(':').ok_or_else(err)?;
    let port: u16 = port.parse().map_err(|_| err())?;
    if port == 0 || s.len() > 261 {
        return Err(err());
    }
    let host_ok = if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        v6.parse::<std::net::Ipv6Addr>().is_ok()
    } else {
        !host.is_empty()
            && host.len() <= 253
            && host.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && !label.starts_with('-')
                    && label
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            })
    };
    if host_ok {
        Ok(format!("{}:{port}", host.to_ascii_lowercase()))
    } else {
        Err(err())
    }
}

/// An image, when given, must stay in the official repository with a plain tag.
fn image(field: &str, input: Option<&str>, repository: &str) -> Result<Option<String>, FieldError> {
    let Some(raw) = input.map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(None);
    };
    let tag_ok = raw
        .strip_prefix(repository)
        .and_then(|rest| rest.strip_prefix(':'))
        .is_some_and(|tag| {
            !tag.is_empty()
                && tag.len() <= 128
                && tag
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        });
    if tag_ok {
        Ok(Some(raw.to_string()))
    } else {
        Err(FieldError::new(field, Problem::InvalidImage))
    }
}

/// A Docker network name: starts alphanumeric, then `A–Z a–z 0–9 _ . -`, at most 128.
fn docker_network(input: &str) -> Result<String, FieldError> {
    let s = input.trim();
    let ok = s.len() <= 128
        && s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(s.to_string())
    } else {
        Err(FieldError::new("docker_network", Problem::InvalidSlug))
    }
}

/// `beacon-<slug>` or `sidecar-<slug>`: a component an Agent reports.
pub fn component_id(input: &str) -> Result<String, FieldError> {
    prefixed(input, &["beacon-", "sidecar-"])
}

/// What `remove_component` may name: a component, or `probe-<slug>`, the
/// node an Agent runs for the end-to-end probe of service `<slug>` (not a
/// reported component), which Control has the Agent remove once no network
/// probes that service from it.
pub fn removable_id(input: &str) -> Result<String, FieldError> {
    prefixed(input, &["beacon-", "sidecar-", "probe-"])
}

fn prefixed(input: &str, prefixes: &[&str]) -> Result<String, FieldError> {
    let s = input.trim().to_ascii_lowercase();
    let valid = prefixes.iter().any(|prefix| {
        s.strip_prefix(prefix)
            .is_some_and(|rest| slug("component_id", rest).is_ok())
    });
    if valid {
        Ok(s)
    } else {
        Err(FieldError::new("component_id", Problem::InvalidComponentId))
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeployBeacon {
    pub name: String,
    pub network_id: NetworkId,
    pub beacon_url: String,
    pub advertise: String,
    pub http_port: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeploySidecar {
    pub name: String,
    pub network_id: NetworkId,
    pub target: String,
    pub docker_network: String,
    pub beacons: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advertise: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// The service's catalog entry (optional `title`, `description`,
    /// `tags`, `category`, `scheme` beside the fields above).
    #[serde(flatten)]
    pub catalog: Catalog,
}

/// A job component by its ID (`restart_component`, `remove_component`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ComponentRef {
    /// `beacon-<name>` or `sidecar-<name>`; `remove_component` also takes
    /// `probe-<service>`, the node of an end-to-end probe.
    pub component_id: String,
}

/// The payload of `POST /api/v1/jobs`, for the OpenAPI description: the
/// shape that goes with the job's `kind`.
#[cfg(feature = "openapi")]
#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum PayloadSchema {
    DeploySidecar(DeploySidecar),
    DeployBeacon(DeployBeacon),
    Component(ComponentRef),
    BackupVolume(BackupVolume),
    VerifyBackup(VerifyBackup),
    ProbeService(ProbeService),
}

/// A validated job payload, normalised (slugs lowercased, URLs in canonical form).
#[derive(Clone, Debug, PartialEq)]
pub enum JobPayload {
    DeployBeacon(DeployBeacon),
    DeploySidecar(DeploySidecar),
    RestartComponent {
        component_id: String,
    },
    RemoveComponent {
        component_id: String,
    },
    /// Ours (`backups`): archive a sidecar's identity on its host.
    BackupVolume(BackupVolume),
    /// Ours (`backups`): prove an archive restores to the same address.
    VerifyBackup(VerifyBackup),
    /// Ours (`probes`): open a service's address through a node on the Agent's host.
    ProbeService(ProbeService),
}

fn text<'a>(payload: &'a Value, field: &str) -> Result<&'a str, FieldError> {
    match payload.get(field) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s),
        _ => Err(FieldError::new(field, Problem::Required)),
    }
}

fn optional_text<'a>(payload: &'a Value, field: &str) -> Result<Option<&'a str>, FieldError> {
    match payload.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(FieldError::new(field, Problem::InvalidPayload)),
    }
}

impl JobPayload {
    /// Validates `payload` for `kind` by the version-1 rules (what an Agent
    /// accepts, and what stored payloads are read with); the first refused
    /// field is returned. New jobs go through [`JobPayload::parse_new`].
    pub fn parse(kind: &str, payload: &Value) -> Result<Self, FieldError> {
        if !payload.is_object() {
            return Err(FieldError::new("payload", Problem::InvalidPayload));
        }
        let network = |p: &Value| {
            NetworkId::parse(text(p, "network_id")?)
                .map_err(|_| FieldError::new("network_id", Problem::NetworkIdFormat))
        };
        match kind {
            "deploy_beacon" => {
                let http_port = match payload.get("http_port") {
                    None | Some(Value::Null) => DEFAULT_BEACON_HTTP_PORT,
                    Some(v) => v
                        .as_u64()
                        .and_then(|p| u16::try_from(p).ok())
                        .filter(|p| *p != 0)
                        .ok_or_else(|| FieldError::new("http_port", Problem::InvalidPort))?,
                };
                let beacon_url = crate::validation::beacon_url(text(payload, "beacon_url")?)
                    .map_err(|p| FieldError::new("beacon_url", p))?;
                Ok(JobPayload::DeployBeacon(DeployBeacon {
                    name: slug("name", text(payload, "name")?)?,
                    network_id: network(payload)?,
                    beacon_url,
                    advertise: host_port("advertise", text(payload, "advertise")?)?,
                    http_port,
                    image: image("image", optional_text(payload, "image")?, BEACON_IMAGE)?,
                }))
            }
            "deploy_sidecar" => {
                let beacons: Vec<String> = match payload.get("beacons") {
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|v| {
                            v.as_str()
                                .map(String::from)
                                .ok_or_else(|| FieldError::new("beacons", Problem::InvalidPayload))
                        })
                        .collect::<Result<_, _>>()?,
                    _ => Vec::new(),
                };
                if beacons.is_empty() {
                    return Err(FieldError::new("beacons", Problem::SidecarNeedsBeacon));
                }
                Ok(JobPayload::DeploySidecar(DeploySidecar {
                    name: slug("name", text(payload, "name")?)?,
                    network_id: network(payload)?,
                    target: host_port("target", text(payload, "target")?)
                        .map_err(|_| FieldError::new("target", Problem::InvalidTarget))?,
                    docker_network: docker_network(text(payload, "docker_network")?)?,
                    beacons: beacon_urls(&beacons)?,
                    advertise: optional_text(payload, "advertise")?
                        .filter(|s| !s.trim().is_empty())
                        .map(|a| host_port("advertise", a))
                        .transpose()?,
                    image: image("image", optional_text(payload, "image")?, SIDECAR_IMAGE)?,
                    catalog: Catalog::from_payload(payload)?,
                }))
            }
            "restart_component" => Ok(JobPayload::RestartComponent {
                component_id: component_id(text(payload, "component_id")?)?,
            }),
            "remove_component" => Ok(JobPayload::RemoveComponent {
                component_id: removable_id(text(payload, "component_id")?)?,
            }),
            "backup_volume" => BackupVolume::parse(payload).map(JobPayload::BackupVolume),
            "verify_backup" => VerifyBackup::parse(payload).map(JobPayload::VerifyBackup),
            crate::probes::JOB_KIND => ProbeService::parse(payload).map(JobPayload::ProbeService),
            _ => Err(FieldError::new("kind", Problem::UnknownJobKind)),
        }
    }

    /// For a job Control is about to queue (asked by an admin, retried or
    /// redeployed by reconciliation): [`JobPayload::parse`], and a deployed
    /// name must also be one Compose and the sidecar accept
    /// ([`crate::names::deployable_name`]), checked first so that it is the
    /// refusal shown. Components under older names can still be restarted and
    /// removed.
    pub fn parse_new(kind: &str, payload: &Value) -> Result<Self, FieldError> {
        if kind.starts_with("deploy_") {
            if let Some(Value::String(name)) = payload.get("name") {
                crate::names::deployable_name("name", name)?;
            }
        }
        Self::parse(kind, payload)
    }

    /// Every kind of job, in the order the Jobs screen's filter offers them.
    pub const KINDS: [&'static str; 7] = [
        "deploy_sidecar",
        "deploy_beacon",
        "restart_component",
        "remove_component",
        "backup_volume",
        "verify_backup",
        crate::probes::JOB_KIND,
    ];

    pub fn kind(&self) -> &'static str {
        match self {
            JobPayload::DeployBeacon(_) => "deploy_beacon",
            JobPayload::DeploySidecar(_) => "deploy_sidecar",
            JobPayload::RestartComponent { .. } => "restart_component",
            JobPayload::RemoveComponent { .. } => "remove_component",
            JobPayload::BackupVolume(_) => "backup_volume",
            JobPayload::VerifyBackup(_) => "verify_backup",
            JobPayload::ProbeService(_) => crate::probes::JOB_KIND,
        }
    }

    /// The network a deployment is for; restart and remove name only a component.
    pub fn network_id(&self) -> Option<&NetworkId> {
        match self {
            JobPayload::DeployBeacon(b) => Some(&b.network_id),
            JobPayload::DeploySidecar(s) => Some(&s.network_id),
            JobPayload::ProbeService(p) => Some(&p.network_id),
            JobPayload::RestartComponent { .. }
            | JobPayload::RemoveComponent { .. }
            | JobPayload::BackupVolume(_)
            | JobPayload::VerifyBackup(_) => None,
        }
    }

    /// The component the job acts on.
    pub fn component_id(&self) -> String {
        match self {
            JobPayload::DeployBeacon(b) => format!("beacon-{}", b.name),
            JobPayload::DeploySidecar(s) => format!("sidecar-{}", s.name),
            JobPayload::RestartComponent { component_id }
            | JobPayload::RemoveComponent { component_id } => component_id.clone(),
            JobPayload::BackupVolume(b) => b.component_id.clone(),
            JobPayload::VerifyBackup(v) => v.component_id.clone(),
            // The node that probes, not the sidecar probed (which runs on
            // another Agent): reconciliation never mistakes one for the other.
            JobPayload::ProbeService(p) => crate::probes::node_component_id(&p.service),
        }
    }

    /// The normalised payload as it is stored and handed to the Agent.
    pub fn to_value(&self) -> Value {
        match self {
            JobPayload::DeployBeacon(b) => serde_json::to_value(b),
            JobPayload::DeploySidecar(s) => serde_json::to_value(s),
            JobPayload::RestartComponent { component_id }
            | JobPayload::RemoveComponent { component_id } => {
                Ok(serde_json::json!({ "component_id": component_id }))
            }
            JobPayload::BackupVolume(b) => serde_json::to_value(b),
            JobPayload::VerifyBackup(v) => serde_json::to_value(v),
            JobPayload::ProbeService(p) => serde_json::to_value(p),
        }
        .expect("payload types serialise")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn network() -> String {
        NetworkId::from_random_bytes([1; 32]).to_string()
    }

    #[test]
    fn every_kind_listed_is_one_the_parser_knows() {
        for kind in JobPayload::KINDS {
            let refused = JobPayload::parse(kind, &json!({})).unwrap_err();
            assert_ne!(refused.field, "kind", "{kind}");
        }
        assert_eq!(
            JobPayload::parse("deploy_everything", &json!({}))
                .unwrap_err()
                .field,
            "kind"
        );
    }

    #[test]
    fn a_beacon_deployment_is_normalised_and_gets_the_default_port() {
        let p = JobPayload::parse(
            "deploy_beacon",
            &json!({"name": "Edge-1", "network_id": network(), "beacon_url": "https://B.example.net/", "advertise": "B.example.net:7447"}),
        )
        .unwrap();
        let JobPayload::DeployBeacon(b) = &p else {
            panic!("{p:?}")
        };
        assert_eq!(
            (b.name.as_str(), b.http_port, b.beacon_url.as_str()),
            ("edge-1", 18080, "https://b.example.net")
        );
        assert_eq!(p.component_id(), "beacon-edge-1");
        assert_eq!(
            JobPayload::parse("deploy_beacon", &p.to_value()).unwrap(),
            p,
            "the stored form parses to itself"
        );
    }

    #[test]
    fn a_sidecar_without_beacon_is_refused_with_the_reason() {
        let err = JobPayload::parse(
            "deploy_sidecar",
            &json!({"name": "web", "network_id": network(), "target": "app:8080", "docker_network": "apps", "beacons": []}),
        )
        .unwrap_err();
        assert_eq!(
            (err.field.as_str(), err.problem.clone()),
            ("beacons", Problem::SidecarNeedsBeacon)
        );
    }

    #[test]
    fn hostile_values_are_refused_before_anything_is_written() {
        let base = json!({"name": "web", "network_id": network(), "target": "app:8080", "docker_network": "apps", "beacons": ["https://b.example"]});
        let with = |field: &str, value: Value| {
            let mut p = base.clone();
            p[field] = value;
            JobPayload::parse("deploy_sidecar", &p)
                .map(|_| ())
                .map_err(|e| e.field)
        };
        assert!(with("name", json!("web")).is_ok());
        assert_eq!(with("name", json!("web\nimage: evil")), Err("name".into()));
        assert_eq!(with("name", json!("../../etc")), Err("name".into()));
        assert_eq!(
            with("target", json!("app:8080\n  privileged: true")),
            Err("target".into())
        );
        assert_eq!(with("target", json!("app")), Err("target".into()));
        assert_eq!(
            with("docker_network", json!("-x")),
            Err("docker_network".into())
        );
        assert_eq!(
            with("image", json!("docker.io/evil/sidecar:1")),
            Err("image".into())
        );
        assert_eq!(
            with("image", json!("ghcr.io/localzet/knotroute-sidecar:1.2.3")),
            Ok(())
        );
        assert_eq!(
            with("image", json!("ghcr.io/localzet/knotroute-sidecar:1;rm")),
            Err("image".into())
        );
        assert_eq!(
            with("beacons", json!(["http://b.example:7447"])),
            Err("beacons".into())
        );
        assert_eq!(with("advertise", json!("[::1]:7447")), Ok(()));
        assert_eq!(with("advertise", json!("host:0")), Err("advertise".into()));
    }

    #[test]
    fn new_deployments_need_a_name_compose_and_the_sidecar_accept() {
        let sidecar = json!({"name": "my.app", "network_id": network(), "target": "app:8080", "docker_network": "apps", "beacons": ["https://b.example"]});
        let beacon = json!({"name": "_edge", "network_id": "not an id", "beacon_url": "https://b.example", "advertise": "b.example:7447"});
        for (kind, payload) in [("deploy_sidecar", &sidecar), ("deploy_beacon", &beacon)] {
            let refused = JobPayload::parse_new(kind, payload).unwrap_err();
            assert_eq!(
                (refused.field.as_str(), refused.problem),
                ("name", Problem::DeployName),
                "{kind}: the name is the refusal shown, before other fields"
            );
        }
        // The version-1 rule still reads it: an older stored deployment stays readable.
        assert!(JobPayload::parse("deploy_sidecar", &sidecar).is_ok());
        let mut fine = sidecar.clone();
        fine["name"] = json!("My-App");
        let JobPayload::DeploySidecar(s) = JobPayload::parse_new("deploy_sidecar", &fine).unwrap()
        else {
            unreachable!()
        };
        assert_eq!(s.name, "my-app");
        // An older component can still be restarted and removed.
        for kind in ["restart_component", "remove_component"] {
            assert!(
                JobPayload::parse_new(kind, &json!({"component_id": "sidecar-my.app"})).is_ok()
            );
        }
    }

    #[test]
    fn a_sidecars_catalog_entry_travels_in_its_payload_and_only_when_given() {
        let base = json!({"name": "photos", "network_id": network(), "target": "app:8080", "docker_network": "apps", "beacons": ["https://b.example"]});
        let plain = JobPayload::parse_new("deploy_sidecar", &base).unwrap();
        let stored = plain.to_value();
        for key in ["title", "description", "tags", "category", "scheme"] {
            assert!(stored.get(key).is_none(), "{key} absent when not given");
        }
        let mut with = base.clone();
        with["title"] = json!(" Family photos ");
        with["tags"] = json!(["Photos", "home"]);
        with["scheme"] = json!("https");
        let parsed = JobPayload::parse_new("deploy_sidecar", &with).unwrap();
        let stored = parsed.to_value();
        assert_eq!(stored["title"], "Family photos");
        assert_eq!(stored["tags"], json!(["photos", "home"]));
        assert_eq!(stored["scheme"], "https");
        assert_eq!(
            JobPayload::parse("deploy_sidecar", &stored).unwrap(),
            parsed
        );
        assert_eq!(
            parsed.component_id(),
            plain.component_id(),
            "same component, same volume"
        );
        with["title"] = json!("x".repeat(81));
        assert_eq!(
            JobPayload::parse_new("deploy_sidecar", &with)
                .unwrap_err()
                .field,
            "title"
        );
    }

    #[test]
    fn component_jobs_name_a_beacon_sidecar_or_probe_node() {
        assert!(
            JobPayload::parse("restart_component", &json!({"component_id": "sidecar-web"})).is_ok()
        );
        // A probe's node is removed by the same job; it is not a component
        // an Agent reports, nor one to restart.
        assert!(
            JobPayload::parse("remove_component", &json!({"component_id": "probe-web"})).is_ok()
        );
        assert!(
            JobPayload::parse("restart_component", &json!({"component_id": "probe-web"})).is_err()
        );
        assert!(component_id("probe-web").is_err());
        for hostile in [
            "probe-",
            "probe-../etc",
            "probe-web/x",
            "probe-a b",
            "probe",
        ] {
            assert_eq!(
                JobPayload::parse("remove_component", &json!({"component_id": hostile}))
                    .unwrap_err()
                    .field,
                "component_id",
                "{hostile}"
            );
        }
        assert_eq!(
            JobPayload::parse("remove_component", &json!({"component_id": "web"}))
                .unwrap_err()
                .field,
            "component_id"
        );
        assert_eq!(
            JobPayload::parse("format_disk", &json!({}))
                .unwrap_err()
                .field,
            "kind"
        );
        assert_eq!(
            JobPayload::parse("restart_component", &json!("x"))
                .unwrap_err()
                .field,
            "payload"
        );
    }
}
