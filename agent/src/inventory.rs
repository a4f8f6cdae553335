//! What runs here: managed containers, read from `docker inspect`, turned into
//! heartbeat components; and what a sidecar says in its logs: its `.knot`
//! address and whether it is ready.

use protocol::agent::ComponentReport;
use protocol::ComponentStatus;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::net::IpAddr;

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
    #[serde(default)]
    pub network_settings: NetworkSettings,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct State {
    #[serde(default)]
    pub status: protocol::ComponentStatus,
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
    /// When the previous run ended (Docker's zero time before any).
    #[serde(default)]
    pub finished_at: String,
}

impl State {
    /// Where this start's log lines begin, for `docker logs --since`: after
    /// the previous run ended. Not `started_at`, which Docker records a
    /// moment after the program's first lines. `None`: never stopped, so
    /// every line is this start's.
    pub fn this_start_since(&self) -> Option<&str> {
        let f = self.finished_at.as_str();
        (!f.is_empty() && !f.starts_with("0001-")).then_some(f)
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ContainerConfig {
    #[serde(default)]
    pub image: String,
    #[serde(default)]
    pub labels: Option<BTreeMap<String, String>>,
    /// `NAME=value` pairs; read for the few settings a diagnosis needs, never reported.
    #[serde(default)]
    pub env: Option<Vec<String>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct NetworkSettings {
    #[serde(default)]
    pub networks: Option<BTreeMap<String, Endpoint>>,
}

/// A container's place on one Docker network: the names it resolves by there.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Endpoint {
    #[serde(default, rename = "Aliases")]
    pub aliases: Option<Vec<String>>,
    #[serde(default, rename = "DNSNames")]
    pub dns_names: Option<Vec<String>>,
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
    /// Empty (or 0.0.0.0) when published on all of the host's addresses.
    #[serde(default)]
    pub host_ip: String,
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

    /// The value of environment variable `name` in the container's config.
    pub fn env(&self, name: &str) -> Option<&str> {
        self.config
            .env
            .iter()
            .flatten()
            .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
    }

    /// The Docker networks this container is on.
    pub fn networks(&self) -> Vec<&str> {
        self.network_settings
            .networks
            .iter()
            .flatten()
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// Whether `host` resolves to this container on Docker network `network`:
    /// its name, an alias or a DNS name there (a short container ID is an alias).
    pub fn answers_to(&self, network: &str, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        let named = self
            .name
            .trim_start_matches('/')
            .eq_ignore_ascii_case(&host);
        let endpoint = self
            .network_settings
            .networks
            .as_ref()
            .and_then(|n| n.get(network));
        named
            || endpoint.is_some_and(|e| {
                e.aliases
                    .iter()
                    .chain(e.dns_names.iter())
                    .flatten()
                    .any(|a| a.eq_ignore_ascii_case(&host))
            })
    }

    /// A sidecar's service name (`io.knotroute.service-name`).
    pub fn service_name(&self) -> &str {
        self.label(SERVICE_NAME_LABEL)
    }

    /// A sidecar's target, `host:port` (`io.knotroute.target`).
    pub fn target(&self) -> &str {
        self.label(TARGET_LABEL)
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
        self.host_binding(container_port).map(|(_, port)| port)
    }

    /// The host address (when published on one address only) and port for a
    /// container port.
    pub fn host_binding(&self, container_port: &str) -> Option<(Option<IpAddr>, u16)> {
        self.host_config
            .port_bindings
            .as_ref()?
            .get(container_port)?
            .as_ref()?
            .iter()
            .find_map(|b| {
                let port = b.host_port.parse().ok()?;
                let ip = b
                    .host_ip
                    .parse::<IpAddr>()
                    .ok()
                    .filter(|ip| !ip.is_unspecified());
                Some((ip, port))
            })
    }

    /// Why the container is not running as it should, in one sentence.
    pub fn last_error(&self) -> Option<String> {
        if self.state.oom_killed {
            return Some("killed: out of memory (OOM)".into());
        }
        if !self.state.error.trim().is_empty() {
            return Some(self.state.error.trim().to_string());
        }
        match self.state.status {
            ComponentStatus::Exited | ComponentStatus::Dead if self.state.exit_code != 0 => {
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
        if self.state.restarting || self.state.status == ComponentStatus::Restarting {
            warnings.push(format!(
                "the container keeps restarting ({} restarts so far)",
                self.restart_count
            ));
        }
        ComponentReport {
            container: self.name.trim_start_matches('/').to_string(),
            image: self.config.image.clone(),
            status: self.state.status,
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

/// The address of `service <name> ready as <address>.knot …`, the line a
/// sidecar prints once it is reachable; `None` while it is not ready.
pub fn ready_address(logs: &str, name: &str) -> Option<String> {
    let marker = format!("service {name} ready as ");
    logs.lines().rev().find_map(|line| {
        let after = &line[line.find(&marker)? + marker.len()..];
        let address = after.split_whitespace().next()?;
        let label = address.strip_suffix(".knot")?;
        (!label.is_empty()).then(|| address.to_string())
    })
}

/// The last non-empty line of `text`, at most 200 characters: a container's
/// own last words for an error message.
pub fn last_line(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).rfind(|l| !l.is_empty())?;
    let mut short: String = line.chars().take(200).collect();
    if short.len() < line.len() {
        short.push('…');
    }
    Some(short)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_starts_lines_begin_where_the_last_run_ended() {
        let state = |finished: &str| State {
            started_at: "2026-12-04T22:01:56.94Z".into(),
            finished_at: finished.into(),
            ..State::default()
        };
        assert_eq!(state("0001-01-01T00:00:00Z").this_start_since(), None);
        assert_eq!(state("").this_start_since(), None);
        assert_eq!(
            state("2026-12-04T22:01:56.68Z").this_start_since(),
            Some("2026-12-04T22:01:56.68Z")
        );
    }

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
        let sidecar = containers[0].report(Some(
            "qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot",
        ));
        assert_eq!(sidecar.id, "sidecar-web");
        assert_eq!(sidecar.kind, "sidecar");
        assert_eq!(sidecar.name, "web");
        assert_eq!(sidecar.container, "kr-sidecar-web-knotroute-1");
        assert_eq!(sidecar.status, ComponentStatus::Exited);
        assert_eq!(sidecar.version, "1.2.3");
        assert_eq!(
            sidecar.service,
            "qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot"
        );
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
            2026-11-30T07:00:01Z INFO publishing web as shtoxk2kzjmu6gcfel27xaspuhao6qeo5yvfk4suga225izx4vj6rqpc.knot\n\
            noise publishing nothing\n\
            2026-11-30T07:05:01Z INFO publishing web as qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot -> app:8080 (waiting for introduction points)\n\
            publishing web as .knot\n";
        assert_eq!(
            knot_address(logs).as_deref(),
            Some("qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot")
        );
        assert_eq!(
            knot_address(
                "publishing a as shtoxk2kzjmu6gcfel27xaspuhao6qeo5yvfk4suga225izx4vj6rqpc.knot."
            )
            .as_deref(),
            Some("shtoxk2kzjmu6gcfel27xaspuhao6qeo5yvfk4suga225izx4vj6rqpc.knot")
        );
        assert_eq!(knot_address("publishing web as web.example.com"), None);
        assert_eq!(knot_address(""), None);
    }

    #[test]
    fn a_sidecar_is_ready_once_it_says_so_for_its_own_service() {
        let logs = "node shtoxk2kzjmu6gcfel27xaspuhao6qeo5yvfk4suga225izx4vj6rqpc.knot\n\
            publishing web as qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot -> app:8080 (waiting for introduction points)\n";
        assert_eq!(ready_address(logs, "web"), None);
        let ready = format!("{logs}service web ready as qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot with 2 introduction point(s)\n");
        assert_eq!(
            ready_address(&ready, "web").as_deref(),
            Some("qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot")
        );
        assert_eq!(ready_address(&ready, "we"), None);
        assert_eq!(ready_address("service web ready as nothing", "web"), None);
    }

    #[test]
    fn the_last_line_is_trimmed_and_bounded() {
        assert_eq!(
            last_line("a\n  knotroute-sidecar: bad  \n\n").as_deref(),
            Some("knotroute-sidecar: bad")
        );
        assert_eq!(last_line(" \n"), None);
        assert_eq!(last_line(&"x".repeat(300)).unwrap().chars().count(), 201);
    }

    #[test]
    fn containers_answer_to_their_name_and_aliases_on_a_network() {
        let json = r#"[{"Id": "1", "Name": "/app-1",
            "Config": {"Env": ["KNOTROUTE_BEACONS=http://b:8080,https://c", "PATH=/bin"]},
            "NetworkSettings": {"Networks": {"apps": {"Aliases": ["app", "1"], "DNSNames": null}}}}]"#;
        let container = &parse_inspect(json).unwrap()[0];
        assert_eq!(
            container.env("KNOTROUTE_BEACONS"),
            Some("http://b:8080,https://c")
        );
        assert_eq!(container.env("KNOTROUTE_BEACON"), None);
        assert_eq!(container.networks(), ["apps"]);
        assert!(container.answers_to("apps", "App"));
        assert!(container.answers_to("other", "app-1"));
        assert!(!container.answers_to("other", "app"));
        assert!(!container.answers_to("apps", "db"));
    }
}
