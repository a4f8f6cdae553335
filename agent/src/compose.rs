//! Compose files for Beacons and sidecars, as PROTOCOL.md describes them,
//! built from typed structs and written by a YAML serializer: nothing from a
//! job is ever pasted into YAML text, so no value can add keys or services,
//! and every `$` is escaped, so no value is filled in by Compose either.

use protocol::jobs::{DeployBeacon, DeploySidecar, BEACON_IMAGE, SIDECAR_IMAGE};
use protocol::probes::{ProbeService, NODE_IMAGE};
use serde::Serialize;
use std::collections::BTreeMap;

/// The service's name inside every stack: containers are `kr-<component>-knotroute-1`.
pub const SERVICE: &str = "knotroute";
const DATA_VOLUME: &str = "data";

#[derive(Debug, Serialize, PartialEq)]
pub struct ComposeFile {
    pub services: BTreeMap<String, Service>,
    pub volumes: BTreeMap<String, Volume>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub networks: BTreeMap<String, Network>,
}

#[derive(Debug, Serialize, PartialEq)]
pub struct Service {
    pub image: String,
    pub restart: String,
    pub labels: BTreeMap<String, String>,
    pub environment: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<String>,
    pub volumes: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub networks: Vec<String>,
    /// `container:<id>`: the probe's node shares the Agent container's
    /// network, so its proxy is on the Agent's own loopback.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_mode: Option<String>,
}

#[derive(Debug, Serialize, PartialEq, Default)]
pub struct Volume {}

#[derive(Debug, Serialize, PartialEq)]
pub struct Network {
    pub external: bool,
}

/// `kr-<component_id>`, the explicit Compose project name.
pub fn project_name(component_id: &str) -> String {
    format!("kr-{component_id}")
}

/// The `docker ps --filter` that selects the containers of Compose project
/// `project` (a probe's node carries no component labels, only this).
pub fn project_filter(project: &str) -> String {
    format!("label=com.docker.compose.project={project}")
}

fn port_of(host_port: &str) -> Option<u16> {
    host_port.rsplit_once(':').and_then(|(_, p)| p.parse().ok())
}

fn labels(kind: &str, component_id: &str, network_id: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("io.knotroute.managed".into(), "true".into()),
        ("io.knotroute.component".into(), kind.into()),
        ("io.knotroute.component-id".into(), component_id.into()),
        ("io.knotroute.network-id".into(), network_id.into()),
    ])
}

fn stack(service: Service, networks: BTreeMap<String, Network>) -> ComposeFile {
    ComposeFile {
        services: BTreeMap::from([(SERVICE.to_string(), service)]),
        volumes: BTreeMap::from([(DATA_VOLUME.to_string(), Volume::default())]),
        networks,
    }
}

/// A Beacon: HTTP API on `<http_port>:8080`, relay on `<advertised port>:7447`.
pub fn beacon(job: &DeployBeacon, image_tag: &str) -> ComposeFile {
    let component_id = format!("beacon-{}", job.name);
    let network_id = job.network_id.to_string();
    let mut labels = labels("beacon", &component_id, &network_id);
    labels.insert("io.knotroute.public-url".into(), job.beacon_url.clone());
    let relay_port = port_of(&job.advertise).unwrap_or(protocol::validation::RELAY_PORT);
    stack(
        Service {
            image: job
                .image
                .clone()
                .unwrap_or_else(|| format!("{BEACON_IMAGE}:{image_tag}")),
            restart: "unless-stopped".into(),
            labels,
            environment: BTreeMap::from([
                ("KNOTROUTE_NETWORK_ID".into(), network_id),
                ("KNOTROUTE_BEACON_LISTEN".into(), "0.0.0.0:8080".into()),
                ("KNOTROUTE_BEACON_RELAY".into(), "true".into()),
                (
                    "KNOTROUTE_BEACON_RELAY_LISTEN".into(),
                    "0.0.0.0:7447".into(),
                ),
                (
                    "KNOTROUTE_BEACON_RELAY_ADVERTISE".into(),
                    job.advertise.clone(),
                ),
                ("KNOTROUTE_BEACON_DATA".into(), "/data".into()),
            ]),
            ports: vec![
                format!("{}:8080", job.http_port),
                format!("{relay_port}:7447"),
            ],
            volumes: vec![format!("{DATA_VOLUME}:/data")],
            networks: Vec::new(),
            network_mode: None,
        },
        BTreeMap::new(),
    )
}

/// A sidecar: joins the target's Docker network; with `advertise`, relays on `<port>:7447`.
pub fn sidecar(job: &DeploySidecar, image_tag: &str) -> ComposeFile {
    let component_id = format!("sidecar-{}", job.name);
    let network_id = job.network_id.to_string();
    let mut labels = labels("sidecar", &component_id, &network_id);
    labels.insert("io.knotroute.service-name".into(), job.name.clone());
    labels.insert("io.knotroute.target".into(), job.target.clone());
    let mut environment = BTreeMap::from([
        ("KNOTROUTE_CONFIG_FROM_ENV".into(), "true".into()),
        ("KNOTROUTE_NETWORK_ID".into(), network_id),
        ("KNOTROUTE_BEACONS".into(), job.beacons.join(",")),
        ("KNOTROUTE_SERVICE_NAME".into(), job.name.clone()),
        ("KNOTROUTE_SERVICE_TARGET".into(), job.target.clone()),
    ]);
    if let Some(advertise) = &job.advertise {
        environment.insert("KNOTROUTE_ADVERTISE".into(), advertise.clone());
    }
    // The catalog entry the apps show; only the fields Control sent.
    for (key, value) in job.catalog.env() {
        environment.insert(key.into(), value);
    }
    let ports = job
        .advertise
        .as_deref()
        .and_then(port_of)
        .map(|port| vec![format!("{port}:7447")])
        .unwrap_or_default();
    stack(
        Service {
            image: job
                .image
                .clone()
                .unwrap_or_else(|| format!("{SIDECAR_IMAGE}:{image_tag}")),
            restart: "unless-stopped".into(),
            labels,
            environment,
            ports,
            volumes: vec![format!("{DATA_VOLUME}:/data")],
            networks: vec![job.docker_network.clone()],
            network_mode: None,
        },
        BTreeMap::from([(job.docker_network.clone(), Network { external: true })]),
    )
}

/// Where the probe's node puts its HTTP proxy.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeNetwork {
    /// The Agent runs on the host: the proxy is published on the host's
    /// loopback, on a port Docker chooses.
    HostLoopback,
    /// The Agent runs in container `id`: the node joins its network, and the
    /// proxy listens on that loopback only, on `port` (several networks'
    /// nodes may share it).
    Container { id: String, port: u16 },
}

/// The end-to-end probe's node (`protocol::probes`): the `knotroute` image,
/// its HTTP proxy reachable by the Agent alone, its identity in a volume.
/// Not labelled managed: it is the Agent's own tool, not a component.
pub fn probe_node(job: &ProbeService, image_tag: &str, network: &NodeNetwork) -> ComposeFile {
    let proxy = protocol::probes::NODE_PROXY_PORT;
    let (listen, ports, network_mode) = match network {
        NodeNetwork::HostLoopback => (
            format!("0.0.0.0:{proxy}"),
            vec![format!("127.0.0.1::{proxy}")],
            None,
        ),
        NodeNetwork::Container { id, port } => (
            format!("127.0.0.1:{port}"),
            Vec::new(),
            Some(format!("container:{id}")),
        ),
    };
    stack(
        Service {
            image: format!("{NODE_IMAGE}:{image_tag}"),
            restart: "unless-stopped".into(),
            labels: BTreeMap::from([
                ("io.knotroute.probe".into(), "true".into()),
                ("io.knotroute.network-id".into(), job.network_id.to_string()),
            ]),
            environment: BTreeMap::from([
                ("KNOTROUTE_CONFIG_FROM_ENV".into(), "true".into()),
                ("KNOTROUTE_NETWORK_ID".into(), job.network_id.to_string()),
                ("KNOTROUTE_BEACONS".into(), job.beacons.join(",")),
                ("KNOTROUTE_HTTP_PROXY_LISTEN".into(), listen),
            ]),
            ports,
            volumes: vec![format!("{DATA_VOLUME}:/data")],
            networks: Vec::new(),
            network_mode,
        },
        BTreeMap::new(),
    )
}

/// Publishes every port of `file` on `address` only
/// (KNOTROUTE_AGENT_PUBLISH_ADDRESS) instead of on all of the host's addresses.
pub fn publish_on(mut file: ComposeFile, address: std::net::IpAddr) -> ComposeFile {
    let host = match address {
        std::net::IpAddr::V4(v4) => v4.to_string(),
        std::net::IpAddr::V6(v6) => format!("[{v6}]"),
    };
    for service in file.services.values_mut() {
        for port in &mut service.ports {
            *port = format!("{host}:{port}");
        }
    }
    file
}

/// The YAML text of a compose file. Compose fills `$VAR` and `${VAR}` in
/// from the Agent's environment in every value, so each `$` is written `$$`
/// (which Compose reads as a literal `$`): no string from a job or from
/// Control can copy a variable into a container or break the file. Keys
/// are not interpolated, and are left as they are.
pub fn to_yaml(file: &ComposeFile) -> String {
    let mut value = serde_yaml_ng::to_value(file).expect("compose structs serialise");
    escape_dollars(&mut value);
    serde_yaml_ng::to_string(&value).expect("a YAML value serialises")
}

fn escape_dollars(value: &mut serde_yaml_ng::Value) {
    use serde_yaml_ng::Value;
    match value {
        Value::String(s) if s.contains('$') => *s = s.replace('$', "$$"),
        Value::Sequence(items) => items.iter_mut().for_each(escape_dollars),
        Value::Mapping(map) => map.values_mut().for_each(escape_dollars),
        Value::Tagged(tagged) => escape_dollars(&mut tagged.value),
        _ => {}
    }
}
