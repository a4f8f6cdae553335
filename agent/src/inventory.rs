//! What runs here: managed containers, read from `docker inspect`, turned into
//! heartbeat components; and the sidecar's `.knot` address, read from its logs.

use protocol::agent::ComponentReport;
use serde::Deserialize;
use std::collections::BTreeMap;

pub const MANAGED_LABEL: &str = "io.knotroute.managed";
pub const COMPONENT_ID_LABEL: &str = "io.knotroute.component-id";
const KIND_LABEL: &str = "io.knotroute.component";
const SERVICE_NAME_LABEL: &str = "io.knotroute.service-name";
const TARGET_LABEL: &str = "io.knotroute.target";
const PUBLIC_URL_LABEL: &str = "io.knotroute.public-url";
const IMAGE_VERSION_LABEL: &str = "org.opencontainers.image.version";

/// The part of `docker inspect <container>` the Agent reads.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Inspected {
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub restart_count: u32,
    #[serde(default)]
    pub state: State,
    #[serde(default)]
    pub config: ContainerConfig,
    #[serde(default)]
    pub host_config: HostConfig,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct State {
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub restarting: bool,
    #[serde(default)]
    pub exit_code: i64,
    #[serde(default, rename = "OOMKilled")]
    pub oom_killed: bool,
    #[serde(default)]
    pub error: String,
    #[serde(default)]
    pub started_at: String,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ContainerConfig {
    #[serde(default)]
    pub image: String,
    #[serde(default)]
    pub labels: Option<BTreeMap<String, String>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct HostConfig {
    #[serde(default)]
    pub port_bindings: Option<BTreeMap<String, Option<Vec<PortBinding>>>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PortBinding {
    #[serde(default)]
    pub host_port: String,
}

impl Inspected {
    pub fn label(&self, name: &str) -> &str {
        self.config
            .labels
            .as_ref()
            .and_then(|l| l.get(name))
            .map_or("", String::as_str)
    }

    pub fn component_id(&self) -> &str {
        self.label(COMPONENT_ID_LABEL)
    }

    pub fn is_sidecar(&self) -> bool {
        self.label(KIND_LABEL) == "sidecar"
    }

    pub fn is_beacon(&self) -> bool {
        self.label(KIND_LABEL) == "beacon"
    }

    /// The host port published for a container port such as `8080/tcp`.
    pub fn host_port(&self, container_port: &str) -> Option<u16> {
        self.host_config
            .port_bindings
            .as_ref()?
            .get(container_port)?
            .as_ref()?
            .iter()
            .find_map(|b| b.host_port.parse().ok())
    }

    /// Why the container is not running as it should, in one sentence.
    pub fn last_error(&self) -> Option<String> {
        if self.state.oom_killed {
            return Some("killed: out of memory (OOM)".into());
        }
        if !self.state.error.trim().is_empty() {
            return Some(self.state.error.trim().to_string());
        }
        match self.state.status.as_str() {
            "exited" | "dead" if self.state.exit_code != 0 => {
                Some(format!("exited with code {}", self.state.exit_code))
            }
            _ => None,
        }
    }

    /// The heartbeat entry; `service` is the sidecar's `.knot` address when known.
    pub fn report(&self, service: Option<&str>) -> ComponentReport {
        let id = self.component_id().to_string();
        let kind = self.label(KIND_LABEL).to_string();
        let name = match self.label(SERVICE_NAME_LABEL) {
            "" => id
                .strip_prefix(&format!("{kind}-"))
                .unwrap_or(&id)
                .to_string(),
            named => named.to_string(),
        };
        let version = match self.label(IMAGE_VERSION_LABEL) {
            "" => image_tag(&self.config.image).to_string(),
            labelled => labelled.to_string(),
        };
        let labels = self
            .config
            .labels
            .iter()
            .flatten()
            .filter(|(k, _)| k.starts_with("io.knotroute."))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut warnings = Vec::new();
        if self.state.restarting || self.state.status == "restarting" {
            warnings.push(format!(
                "the container keeps restarting ({} restarts so far)",
                self.restart_count
            ));
        }
        ComponentReport {
            container: self.name.trim_start_matches('/').to_string(),
            image: self.config.image.clone(),
            status: self.state.status.clone(),
            version,
            address: self.label(PUBLIC_URL_LABEL).to_string(),
            service: service.unwrap_or_default().to_string(),
            target: self.label(TARGET_LABEL).to_string(),
            labels,
            restart_count: Some(self.restart_count),
            last_error: self.last_error(),
            warnings,
            id,
            kind,
            name,
        }
    }
}

/// The tag of `repo:tag` (`latest` when none), ignoring a registry's port.
fn image_tag(image: &str) -> &str {
    let without_digest = image.split('@').next().unwrap_or(image);
    match without_digest.rsplit_once(':') {
        Some((_, tag)) if !tag.contains('/') => tag,
        _ => "latest",
    }
}

/// Parses `docker inspect` output (a JSON array).
pub fn parse_inspect(json: &str) -> Result<Vec<Inspected>, String> {
    serde_json::from_str(json).map_err(|e| format!("unreadable docker inspect output: {e}"))
}

/// The last `<address>.knot` announced in `logs` as `publishing <name> as <address>.knot`.
pub fn knot_address(logs: &str) -> Option<String> {
    logs.lines().rev().find_map(|line| {
        let after = &line[line.find("publishing ")? + "publishing ".len()..];
        let (_name, rest) = after.split_once(" as ")?;
        let address: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
            .collect();
        let address = address.trim_end_matches('.');
        let label = address.strip_suffix(".knot")?;
        (!label.is_empty()).then(|| address.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Trimmed from a real `docker inspect` of a Compose-managed container.
    const INSPECT: &str = r#"[{
      "Id": "4f1c9e0a", "Name": "/kr-sidecar-web-knotroute-1", "RestartCount": 3,
      "State": {"Status": "exited", "Running": false, "Restarting": false,
                "OOMKilled": false, "Dead": false, "ExitCode": 137, "Error": "",
                "StartedAt": "2026-11-30T07:00:00.1Z"},
      "Config": {"Image": "ghcr.io/localzet/knotroute-sidecar:1.2.3",
                 "Labels": {"io.knotroute.managed": "true", "io.knotroute.component": "sidecar",
                            "io.knotroute.component-id": "sidecar-web",
                            "io.knotroute.network-id": "kn_1", "io.knotroute.service-name": "web",
                            "io.knotroute.target": "app:8080",
                            "com.docker.compose.project": "kr-sidecar-web"}},
      "HostConfig": {"PortBindings": {"7447/tcp": [{"HostIp": "", "HostPort": "17447"}]}}
    }, {
      "Id": "77aa", "Name": "/kr-beacon-edge-knotroute-1", "RestartCount": 0,
      "State": {"Status": "running", "Restarting": false, "OOMKilled": true, "ExitCode": 0},
      "Config": {"Image": "registry.local:5000/knotroute-beacon",
                 "Labels": {"io.knotroute.component": "beacon",
                            "io.knotroute.component-id": "beacon-edge",
                            "io.knotroute.public-url": "https://b.example.net",
                            "org.opencontainers.image.version": "2.0.1"}},
      "HostConfig": {"PortBindings": null}
    }]"#;

    #[test]
    fn inspect_output_becomes_heartbeat_components() {
        let containers = parse_inspect(INSPECT).unwrap();
        let sidecar = containers[0].report(Some("web-abc.knot"));
        assert_eq!(sidecar.id, "sidecar-web");
        assert_eq!(sidecar.kind, "sidecar");
        assert_eq!(sidecar.name, "web");
        assert_eq!(sidecar.container, "kr-sidecar-web-knotroute-1");
        assert_eq!(sidecar.status, "exited");
        assert_eq!(sidecar.version, "1.2.3");
        assert_eq!(sidecar.service, "web-abc.knot");
        assert_eq!(sidecar.target, "app:8080");
        assert_eq!(sidecar.restart_count, Some(3));
        assert_eq!(sidecar.last_error.as_deref(), Some("exited with code 137"));
        assert!(!sidecar.labels.contains_key("com.docker.compose.project"));
        assert_eq!(containers[0].host_port("7447/tcp"), Some(17447));

        let beacon = containers[1].report(None);
        assert_eq!(beacon.name, "edge");
        assert_eq!(beacon.version, "2.0.1");
        assert_eq!(beacon.address, "https://b.example.net");
        assert_eq!(
            beacon.last_error.as_deref(),
            Some("killed: out of memory (OOM)")
        );
        assert_eq!(containers[1].host_port("8080/tcp"), None);
        assert!(parse_inspect("not json").is_err());
    }

    #[test]
    fn image_tags_ignore_registry_ports_and_digests() {
        assert_eq!(image_tag("ghcr.io/localzet/knotroute-beacon:1.2"), "1.2");
        assert_eq!(image_tag("registry.local:5000/beacon"), "latest");
        assert_eq!(image_tag("beacon:edge@sha256:abc"), "edge");
    }

    #[test]
    fn the_last_announced_knot_address_is_read_from_logs() {
        let logs = "starting\n\
            2026-11-30T07:00:01Z INFO publishing web as web-old.knot\n\
            noise publishing nothing\n\
            2026-11-30T07:05:01Z INFO publishing web as web-7f3k2.knot (target app:8080)\n\
            publishing web as .knot\n";
        assert_eq!(knot_address(logs).as_deref(), Some("web-7f3k2.knot"));
        assert_eq!(
            knot_address("publishing a as a1.knot.").as_deref(),
            Some("a1.knot")
        );
        assert_eq!(knot_address("publishing web as web.example.com"), None);
        assert_eq!(knot_address(""), None);
    }
}
