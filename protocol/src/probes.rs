//! The end-to-end probe (ours, beside PROTOCOL.md's job kinds): an Agent in
//! another failure domain than a service runs a KnotRoute node container and
//! opens `http://<address>.knot/` through the node's HTTP proxy. It proves
//! what a Beacon's `/healthz` cannot: that the address resolves and HTTP
//! passes the overlay. Control queues a `probe_service` job every few
//! minutes; the Agent answers with a [`ProbeReport`].

use crate::ids::NetworkId;
use crate::validation::{FieldError, Problem};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The job kind.
pub const JOB_KIND: &str = "probe_service";
/// The node image's repository (the tag is the Agent's image tag).
pub const NODE_IMAGE: &str = "ghcr.io/localzet/knotroute";
/// The port of the node's HTTP proxy inside its container.
pub const NODE_PROXY_PORT: u16 = 8118;
/// Minutes between two probes when the admin does not say.
pub const EVERY_DEFAULT: u32 = 5;
pub const EVERY_MIN: u32 = 1;
pub const EVERY_MAX: u32 = 1440;
/// Runs shown in a probe's history.
pub const HISTORY_SHOWN: usize = 20;

/// The component an Agent runs to probe `service`: the node's stack is
/// `probe-<service>`, and that is what `remove_component` names to remove it.
pub fn node_component_id(service: &str) -> String {
    format!("probe-{service}")
}

/// Whether `id` names a probe's node exactly as [`node_component_id`]
/// writes it (`probe-<slug>`), and nothing an Agent reports as a component.
pub fn is_node_component_id(id: &str) -> bool {
    id.starts_with("probe-") && crate::jobs::removable_id(id).is_ok_and(|valid| valid == id)
}

/// `probe_service`: open the service's address through a node on the Agent's host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProbeService {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub network_id: NetworkId,
    /// The service's name, for the result text.
    pub service: String,
    /// `<56 base32 characters>.knot`.
    pub address: String,
    /// The network's Beacons, which the node finds the service through.
    pub beacons: Vec<String>,
}

impl ProbeService {
    pub fn parse(payload: &Value) -> Result<Self, FieldError> {
        let text = |field: &str| match payload.get(field) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim()),
            _ => Err(FieldError::new(field, Problem::Required)),
        };
        let network_id = NetworkId::parse(text("network_id")?)
            .map_err(|_| FieldError::new("network_id", Problem::NetworkIdFormat))?;
        let service = crate::jobs::slug("service", text("service")?)?;
        let address = knot_address(text("address")?)?;
        let beacons: Vec<&str> = match payload.get("beacons") {
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| FieldError::new("beacons", Problem::InvalidPayload))
                })
                .collect::<Result<_, _>>()?,
            _ => Vec::new(),
        };
        if beacons.is_empty() {
            return Err(FieldError::new("beacons", Problem::SidecarNeedsBeacon));
        }
        Ok(Self {
            network_id,
            service,
            address,
            beacons: crate::validation::beacon_urls(&beacons)?,
        })
    }

    /// The URL the probe opens.
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }
}

/// `<56 lowercase base32 characters>.knot`, as sidecars announce them; the
/// suffix may be left out. Nothing else can reach the node's proxy as a host.
pub fn knot_address(input: &str) -> Result<String, FieldError> {
    let lower = input.trim().to_ascii_lowercase();
    let label = lower.strip_suffix(".knot").unwrap_or(&lower);
    let shaped = label.len() == 56
        && label
            .bytes()
            .all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b));
    if shaped {
        Ok(format!("{label}.knot"))
    } else {
        Err(FieldError::new("address", Problem::KnotAddress))
    }
}

/// Where a probe stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ProbeStage {
    /// The node container did not start, or its proxy did not answer.
    Node,
    /// The node could not reach the address through the overlay.
    Overlay,
    /// The service answered, with a server error.
    Service,
    /// No answer within the probe's time limit.
    Timeout,
}

impl ProbeStage {
    pub const ALL: [ProbeStage; 4] = [
        ProbeStage::Node,
        ProbeStage::Overlay,
        ProbeStage::Service,
        ProbeStage::Timeout,
    ];

    pub fn slug(self) -> &'static str {
        match self {
            ProbeStage::Node => "node",
            ProbeStage::Overlay => "overlay",
            ProbeStage::Service => "service",
            ProbeStage::Timeout => "timeout",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.slug() == slug)
    }
}

/// What an Agent tells Control about one probe, in the job result's `probe`
/// field (sent only to a Control that announced `probes`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProbeReport {
    /// The address opened.
    pub address: String,
    pub ok: bool,
    /// From sending the request to the whole answer (0 when none came).
    pub latency_ms: u32,
    /// Where it stopped; none when it passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<ProbeStage>,
    /// The HTTP status that came back through the proxy, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
}

/// What the admin chose: which service, probed from which Agent, how often.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProbeSettings {
    /// The service's name (its sidecar is `sidecar-<service>`).
    pub service: String,
    /// The Agent that runs the node and opens the address.
    pub agent_id: String,
    /// Minutes between two probes (1–1440, default 5).
    #[serde(default = "every_default")]
    pub every_minutes: u32,
}

fn every_default() -> u32 {
    EVERY_DEFAULT
}

impl ProbeSettings {
    /// The rules that need no database: the service's name and the interval.
    pub fn check(&self) -> Result<Self, FieldError> {
        if self.agent_id.trim().is_empty() {
            return Err(FieldError::new("agent_id", Problem::Required));
        }
        if !(EVERY_MIN..=EVERY_MAX).contains(&self.every_minutes) {
            return Err(FieldError::new(
                "every_minutes",
                Problem::OutOfRange {
                    min: EVERY_MIN,
                    max: EVERY_MAX,
                },
            ));
        }
        Ok(Self {
            service: crate::jobs::slug("service", self.service.trim())?,
            agent_id: self.agent_id.trim().to_string(),
            every_minutes: self.every_minutes,
        })
    }
}

/// One probe as Control keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProbeRun {
    /// RFC 3339 UTC, when Control recorded it.
    pub at: String,
    pub ok: bool,
    pub latency_ms: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<ProbeStage>,
    /// The last line of the Agent's account of a failure; empty when it passed.
    #[serde(default)]
    pub detail: String,
    pub agent_name: String,
}

/// A network's probe: the settings (none until chosen) and its recent runs,
/// newest first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProbeView {
    #[serde(default)]
    pub settings: Option<ProbeSettings>,
    #[serde(default)]
    pub runs: Vec<ProbeRun>,
}

/// A service the probe can open: published in the network, with its address.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeTarget {
    pub name: String,
    pub address: String,
    /// The Agent it runs on, which cannot probe it.
    pub agent_id: String,
    pub agent_name: String,
}

/// An Agent that can run the probe: enabled, with Docker jobs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeAgent {
    pub id: String,
    pub name: String,
    pub hostname: String,
}

/// The probe panel of a network's setup screen.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeScreen {
    pub view: ProbeView,
    pub services: Vec<ProbeTarget>,
    pub agents: Vec<ProbeAgent>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn label() -> String {
        "a".repeat(28) + &"7".repeat(28)
    }

    #[test]
    fn only_a_probe_nodes_own_id_names_a_node() {
        assert!(is_node_component_id(&node_component_id("web")));
        for other in [
            "sidecar-web",
            "beacon-edge",
            "probe-",
            "probe-../web",
            "probe-web/..",
            "Probe-web",
            " probe-web",
            "probe-WEB",
            "probe-web\n",
            "",
        ] {
            assert!(!is_node_component_id(other), "{other:?}");
        }
    }

    #[test]
    fn knot_addresses_are_56_base32_characters() {
        let l = label();
        assert_eq!(knot_address(&l).unwrap(), format!("{l}.knot"));
        assert_eq!(
            knot_address(&format!(" {}.KNOT ", l.to_uppercase())).unwrap(),
            format!("{l}.knot")
        );
        let hostile = [
            String::new(),
            "web.knot".into(),
            format!("{l}.knot.evil.example"),
            format!("{l}@evil.example"),
            format!("{}1.knot", &l[..55]),
            format!("{}/.knot", &l[..55]),
            format!("{l}a.knot"),
            format!("{l}:80"),
            format!("{}%2e.knot", &l[..53]),
        ];
        for input in hostile {
            let refused = knot_address(&input).unwrap_err();
            assert_eq!(refused.problem, Problem::KnotAddress, "{input}");
        }
    }

    #[test]
    fn a_probe_job_names_a_service_an_address_and_beacons() {
        let network = NetworkId::from_random_bytes([1; 32]).to_string();
        let ok = json!({"network_id": network, "service": "web", "address": label(),
                        "beacons": ["http://10.0.0.1:8080/"]});
        let job = ProbeService::parse(&ok).unwrap();
        assert_eq!(job.url(), format!("http://{}.knot/", label()));
        assert_eq!(job.beacons, vec!["http://10.0.0.1:8080".to_string()]);
        let mut no_beacons = ok.clone();
        no_beacons["beacons"] = json!([]);
        assert_eq!(
            ProbeService::parse(&no_beacons).unwrap_err().field,
            "beacons"
        );
        let mut bad_address = ok.clone();
        bad_address["address"] = json!("127.0.0.1:22");
        assert_eq!(
            ProbeService::parse(&bad_address).unwrap_err().field,
            "address"
        );
    }

    #[test]
    fn settings_keep_the_interval_in_range() {
        let settings = |every| ProbeSettings {
            service: "Web".into(),
            agent_id: "a1".into(),
            every_minutes: every,
        };
        assert_eq!(settings(5).check().unwrap().service, "web");
        for bad in [0, 1441] {
            assert_eq!(settings(bad).check().unwrap_err().field, "every_minutes");
        }
        let defaulted: ProbeSettings =
            serde_json::from_value(json!({"service": "web", "agent_id": "a"})).unwrap();
        assert_eq!(defaulted.every_minutes, EVERY_DEFAULT);
    }
}
