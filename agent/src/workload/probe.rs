//! The end-to-end probe (`protocol::probes`): start (or keep) a KnotRoute
//! node beside this Agent and open the service's `.knot` address through
//! the node's HTTP proxy, as a user's program would. The report says where
//! it stopped: the node, the overlay, the service, or the time limit.

use super::{Transcript, Workloads};
use crate::compose::{self, NodeNetwork};
use crate::docker::{Docker, QUICK_TIMEOUT};
use protocol::probes::{ProbeReport, ProbeService, ProbeStage, NODE_PROXY_PORT};
use std::path::Path;
use std::time::{Duration, Instant};

/// The whole request, through the overlay and back.
const OPEN_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a node just started may take to open its proxy.
const PROXY_WAIT: Duration = Duration::from_secs(20);
/// A node that has just started may not know a Beacon yet: an overlay
/// failure is tried again this often, this far apart.
const OVERLAY_TRIES: u32 = 3;
const OVERLAY_PAUSE: Duration = Duration::from_secs(2);

/// What one request through the proxy gave.
struct Opened {
    stage: Option<ProbeStage>,
    status: Option<u16>,
    latency_ms: u32,
    said: String,
}

impl Workloads {
    /// Runs the probe; the report comes back whether it passed or not (none
    /// when the job was cancelled).
    pub(super) async fn probe(
        &self,
        job: &ProbeService,
        transcript: &mut Transcript<'_>,
    ) -> (Result<String, String>, Option<ProbeReport>) {
        let report = |opened: &Opened| ProbeReport {
            address: job.address.clone(),
            ok: opened.stage.is_none(),
            latency_ms: opened.latency_ms,
            stage: opened.stage,
            status: opened.status,
        };
        let proxy = match self.start_node(job, transcript).await {
            Ok(proxy) => proxy,
            Err(why) if transcript.journal.is_cancelled() => return (Err(why), None),
            Err(why) => {
                let failed = Opened {
                    stage: Some(ProbeStage::Node),
                    status: None,
                    latency_ms: 0,
                    said: why.clone(),
                };
                return (Err(why), Some(report(&failed)));
            }
        };
        if let Err(why) = transcript.stage("open") {
            return (Err(why), None);
        }
        let mut opened = open_through(&proxy, &job.url()).await;
        for _ in 1..OVERLAY_TRIES {
            if opened.stage != Some(ProbeStage::Overlay) || transcript.journal.is_cancelled() {
                break;
            }
            transcript.note(format!("{}; trying again", opened.said));
            tokio::time::sleep(OVERLAY_PAUSE).await;
            opened = open_through(&proxy, &job.url()).await;
        }
        let line = format!(
            "{} ({}) through the node's proxy at {proxy}: {}",
            job.url(),
            job.service,
            opened.said
        );
        let report = Some(report(&opened));
        match opened.stage {
            None => (Ok(line), report),
            Some(stage) => (
                Err(format!("{line}\nthe probe stopped at: {}", stage.slug())),
                report,
            ),
        }
    }

    /// Brings the node up with Compose (nothing happens when it already runs
    /// as asked) and waits for its proxy; returns the proxy's `host:port`.
    async fn start_node(
        &self,
        job: &ProbeService,
        transcript: &mut Transcript<'_>,
    ) -> Result<String, String> {
        let component_id = protocol::probes::node_component_id(&job.service);
        let network = own_container(&self.docker, loopback_port(&component_id)).await;
        let file = compose::probe_node(job, &self.image_tag, &network);
        self.compose_up(&component_id, &file, transcript)
            .await
            .map_err(|why| format!("{why}: the node did not start"))?;
        let name = compose::project_name(&component_id);
        let proxy = match network {
            NodeNetwork::Container { port, .. } => format!("127.0.0.1:{port}"),
            NodeNetwork::HostLoopback => self.published_proxy(&name).await?,
        };
        let deadline = Instant::now() + PROXY_WAIT;
        loop {
            if tokio::net::TcpStream::connect(&proxy).await.is_ok() {
                return Ok(proxy);
            }
            if Instant::now() > deadline || transcript.journal.is_cancelled() {
                return Err(format!(
                    "the node's HTTP proxy at {proxy} did not answer within {} s: see `docker compose -p {name} logs`",
                    PROXY_WAIT.as_secs()
                ));
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// The host loopback port Docker chose for the node's proxy.
    async fn published_proxy(&self, project: &str) -> Result<String, String> {
        let filter = compose::project_filter(project);
        let listed = self
            .docker
            .docker(&["ps", "-q", "--filter", &filter], QUICK_TIMEOUT)
            .await
            .map_err(|e| e.to_string())?;
        let id = listed
            .stdout
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        if id.is_empty() {
            return Err(format!("the node of {project} is not running"));
        }
        let port = format!("{NODE_PROXY_PORT}/tcp");
        let shown = self
            .docker
            .docker(&["port", &id, &port], QUICK_TIMEOUT)
            .await
            .map_err(|e| e.to_string())?;
        shown
            .stdout
            .lines()
            .map(str::trim)
            .find(|l| l.starts_with("127.0.0.1:"))
            .map(str::to_string)
            .ok_or_else(|| format!("the node of {project} publishes no proxy port on 127.0.0.1"))
    }
}

/// This Agent's own container, when it runs in one Docker knows: the node
/// then joins its network and listens on `port` there. Otherwise the Agent
/// is on the host.
async fn own_container(docker: &Docker, port: u16) -> NodeNetwork {
    if !Path::new("/.dockerenv").exists() {
        return NodeNetwork::HostLoopback;
    }
    let Ok(hostname) = std::fs::read_to_string("/etc/hostname") else {
        return NodeNetwork::HostLoopback;
    };
    let found = docker
        .docker(
            &["inspect", "--format", "{{.Id}}", hostname.trim()],
            QUICK_TIMEOUT,
        )
        .await;
    match found {
        Ok(out) if out.success && !out.stdout.trim().is_empty() => NodeNetwork::Container {
            id: out.stdout.trim().to_string(),
            port,
        },
        _ => NodeNetwork::HostLoopback,
    }
}

/// A loopback port for one node in the Agent container's network
/// (20000–29999, stable per probe), where several networks' nodes may be.
fn loopback_port(component_id: &str) -> u16 {
    let hash = component_id.bytes().fold(2166136261u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(16777619)
    });
    20000 + (hash % 10000) as u16
}

/// One GET of `url` through the proxy, classified.
async fn open_through(proxy: &str, url: &str) -> Opened {
    let failed = |stage, said: String| Opened {
        stage: Some(stage),
        status: None,
        latency_ms: 0,
        said,
    };
    let client = match reqwest::Proxy::http(format!("http://{proxy}")).and_then(|p| {
        reqwest::Client::builder()
            .proxy(p)
            .timeout(OPEN_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
    }) {
        Ok(client) => client,
        Err(e) => return failed(ProbeStage::Node, format!("no HTTP client: {e}")),
    };
    let started = Instant::now();
    let answer = match client.get(url).send().await {
        Ok(answer) => answer,
        Err(e) if e.is_timeout() => {
            return failed(
                ProbeStage::Timeout,
                format!("no answer within {} s", OPEN_TIMEOUT.as_secs()),
            )
        }
        Err(e) if e.is_connect() => {
            return failed(
                ProbeStage::Node,
                format!("the proxy refused the connection: {e}"),
            )
        }
        Err(e) => return failed(ProbeStage::Overlay, format!("the connection broke: {e}")),
    };
    let status = answer.status().as_u16();
    let body = answer.text().await.unwrap_or_default();
    let latency_ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
    // A gateway error is the proxy saying the overlay gave it no answer.
    let stage = match status {
        502 | 504 => Some(ProbeStage::Overlay),
        500..=599 => Some(ProbeStage::Service),
        _ => None,
    };
    let first_line: String = body
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .chars()
        .take(200)
        .collect();
    let said = match stage {
        None => format!("HTTP {status} in {latency_ms} ms"),
        Some(_) if first_line.is_empty() => format!("HTTP {status}"),
        Some(_) => format!("HTTP {status}: {first_line}"),
    };
    Opened {
        stage,
        status: Some(status),
        latency_ms,
        said,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_ports_are_stable_and_in_range() {
        let a = loopback_port("probe-web");
        assert_eq!(a, loopback_port("probe-web"));
        assert!((20000..30000).contains(&a));
        assert_ne!(a, loopback_port("probe-shop"));
    }
}
