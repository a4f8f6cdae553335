//! Whether a deploy worked. The container must settle running, without new
//! restarts; then a Beacon must answer `/healthz` on its host port, and a
//! sidecar must say it is ready (`service <name> ready as <address>.knot …`
//! in its log since it started), each within the health timeout. When not,
//! the error says why in an admin's words: the container's last words, what
//! `/healthz` answered, and for a sidecar the Beacons this host cannot reach
//! and a target that no container on its Docker network answers to. A
//! diagnosis costs a few Docker calls and one probe per Beacon (at most
//! MAX_PROBED), and quotes only URLs, names and the container's own log.

use super::{Transcript, Workloads, LOG_TAIL};
use crate::docker::{Output, QUICK_TIMEOUT};
use crate::inventory::{self, Inspected};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

/// Beacons probed from this host for a sidecar that is not ready.
const MAX_PROBED: usize = 8;
/// Containers looked at on a Docker network for a target's name.
const MAX_NEIGHBOURS: usize = 100;
const POLL: Duration = Duration::from_secs(1);

/// `60s`, `1500ms`: as the setting is written.
fn human(duration: Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{}s", duration.as_secs())
    } else {
        format!("{}ms", duration.as_millis())
    }
}

fn container_name(container: &Inspected) -> &str {
    container.name.trim_start_matches('/')
}

fn running(container: &Inspected) -> bool {
    container.state.status.is_running() && !container.state.restarting
}

/// The innermost cause of a failed request, e.g. "Connection refused (os error 111)".
fn root_cause(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        return "timed out".into();
    }
    let mut cause: &dyn std::error::Error = error;
    while let Some(inner) = cause.source() {
        cause = inner;
    }
    cause.to_string()
}

impl Workloads {
    pub(super) async fn verify(
        &self,
        component_id: &str,
        transcript: &mut Transcript<'_>,
    ) -> Result<String, String> {
        transcript.stage("settle")?;
        let first = self.existing(component_id).await?;
        transcript.journal.line(&format!(
            "watching container {} for {} (restarts so far: {})",
            container_name(&first),
            human(self.settle),
            first.restart_count
        ));
        tokio::select! {
            _ = tokio::time::sleep(self.settle) => {}
            _ = transcript.journal.cancelled() => {}
        }
        transcript.journal.go_on()?;
        let settled = self.existing(component_id).await?;
        if !running(&settled) || settled.restart_count > first.restart_count {
            return Err(self.not_running(&settled, transcript).await);
        }
        transcript.stage("health")?;
        if settled.is_beacon() {
            return self.verify_beacon(component_id, &settled, transcript).await;
        }
        if settled.is_sidecar() {
            return self.verify_sidecar(component_id, settled, transcript).await;
        }
        Ok(format!(
            "verified: container {} is running after {}",
            container_name(&settled),
            human(self.settle)
        ))
    }

    async fn existing(&self, component_id: &str) -> Result<Inspected, String> {
        self.one_container(component_id)
            .await?
            .ok_or_else(|| format!("no container labelled {component_id} exists after starting it"))
    }

    /// `docker logs` of the container, since a start time when given.
    async fn logs(&self, container: &Inspected, since: Option<&str>) -> Option<Output> {
        let mut args = vec!["logs", "--tail", LOG_TAIL];
        if let Some(since) = since.filter(|s| !s.is_empty()) {
            args.extend(["--since", since]);
        }
        args.push(&container.id);
        self.docker.docker(&args, QUICK_TIMEOUT).await.ok()
    }

    fn attach(
        &self,
        container: &Inspected,
        logs: Option<&Output>,
        transcript: &mut Transcript<'_>,
    ) {
        if let Some(logs) = logs {
            transcript.note(format!(
                "--- last {LOG_TAIL} log lines of {} ---\n{}",
                container_name(container),
                logs.text.trim_end()
            ));
        }
    }

    /// Why a container is not running, with its last words; its log goes to the transcript.
    async fn not_running(&self, container: &Inspected, transcript: &mut Transcript<'_>) -> String {
        let logs = self.logs(container, None).await;
        self.attach(container, logs.as_ref(), transcript);
        let why = container
            .last_error()
            .map(|e| format!(" ({e})"))
            .unwrap_or_default();
        let said = logs
            .as_ref()
            .and_then(|l| inventory::last_line(&l.stderr).or_else(|| inventory::last_line(&l.text)))
            .map(|line| format!("; it last said: {line:?}"))
            .unwrap_or_default();
        format!(
            "container {} is {} after {}, with {} restarts{why}{said}; see its log above",
            container_name(container),
            container.state.status,
            human(self.settle),
            container.restart_count,
        )
    }

    async fn verify_beacon(
        &self,
        component_id: &str,
        container: &Inspected,
        transcript: &mut Transcript<'_>,
    ) -> Result<String, String> {
        let name = container_name(container);
        let Some((bound, port)) = container.host_binding("8080/tcp") else {
            return Err(format!(
                "container {name} publishes no host port for the Beacon API (8080/tcp)"
            ));
        };
        let hosts = health_hosts(bound);
        let deadline = tokio::time::Instant::now() + self.health_timeout;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut last = String::new();
            for host in &hosts {
                let url = format!("http://{}/healthz", SocketAddr::new(*host, port));
                match self.health.get(&url).send().await {
                    Ok(response) if response.status().is_success() => {
                        return Ok(format!(
                            "verified: container {name} is running and the Beacon answers /healthz on port {port}"
                        ))
                    }
                    Ok(response) => {
                        last = format!("answers HTTP {}", response.status().as_u16())
                    }
                    Err(e) => last = format!("does not answer ({})", root_cause(&e)),
                }
            }
            transcript.journal.line(&format!(
                "attempt {attempt}: /healthz on port {port} {last}"
            ));
            if tokio::time::Instant::now() >= deadline {
                let logs = self.logs(container, None).await;
                self.attach(container, logs.as_ref(), transcript);
                return Err(format!(
                    "Beacon {} is not healthy after {}: container {name} runs, but the Beacon's /healthz on host port {port} {last}: see its log above; check the port is free and the Beacon's settings",
                    component_id.trim_start_matches("beacon-"),
                    human(self.health_timeout)
                ));
            }
            transcript.journal.go_on()?;
            tokio::time::sleep(POLL).await;
            let now = self.existing(component_id).await?;
            if !running(&now) {
                return Err(self.not_running(&now, transcript).await);
            }
        }
    }

    async fn verify_sidecar(
        &self,
        component_id: &str,
        mut container: Inspected,
        transcript: &mut Transcript<'_>,
    ) -> Result<String, String> {
        let service = match container.service_name() {
            "" => component_id.trim_start_matches("sidecar-").to_string(),
            named => named.to_string(),
        };
        let deadline = tokio::time::Instant::now() + self.health_timeout;
        // Only what this start printed counts: a restarted container keeps its old lines.
        let since = container.state.started_at.clone();
        let mut logs;
        let mut attempt = 0;
        loop {
            attempt += 1;
            logs = self.logs(&container, Some(&since)).await;
            let ready = logs
                .as_ref()
                .and_then(|l| inventory::ready_address(&l.text, &service));
            if let Some(address) = ready {
                return Ok(format!(
                    "verified: container {} is running and sidecar {service} is ready as {address}",
                    container_name(&container)
                ));
            }
            transcript.journal.line(&format!(
                "attempt {attempt}: sidecar {service} has not said it is ready yet"
            ));
            if tokio::time::Instant::now() >= deadline {
                break;
            }
            transcript.journal.go_on()?;
            tokio::time::sleep(POLL).await;
            container = self.existing(component_id).await?;
            if !running(&container) {
                let why = self.not_running(&container, transcript).await;
                return Err(format!("sidecar {service} is not ready: {why}"));
            }
        }
        self.attach(&container, logs.as_ref(), transcript);
        let mut reasons = self.why_not_ready(&container).await;
        if let Some(line) = logs.as_ref().and_then(|l| inventory::last_line(&l.stderr)) {
            reasons.push(format!("it last said: {line:?}"));
        }
        if reasons.is_empty() {
            reasons.push("it reported no error".into());
        }
        Err(format!(
            "sidecar {service} is not ready after {}: {}; see its log above",
            human(self.health_timeout),
            reasons.join("; ")
        ))
    }

    /// What this host can find out about a running sidecar that is not ready.
    async fn why_not_ready(&self, container: &Inspected) -> Vec<String> {
        let mut reasons = Vec::new();
        let beacons: Vec<&str> = container
            .env("KNOTROUTE_BEACONS")
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .take(MAX_PROBED)
            .collect();
        let mut unreachable = Vec::new();
        for beacon in &beacons {
            let url = format!("{}/healthz", beacon.trim_end_matches('/'));
            match self.health.get(&url).send().await {
                Ok(r) if r.status().is_success() => {}
                Ok(r) => unreachable.push(format!(
                    "Beacon {beacon} answers /healthz with HTTP {} from this host",
                    r.status().as_u16()
                )),
                Err(e) => unreachable.push(format!(
                    "Beacon {beacon} unreachable from this host ({})",
                    root_cause(&e)
                )),
            }
        }
        let all_fail = unreachable.len() == beacons.len();
        if let Some(why) = self.target_unresolved(container).await {
            reasons.push(why);
        }
        if all_fail {
            reasons.splice(0..0, unreachable);
        } else if reasons.is_empty() {
            reasons.push(format!(
                "its Beacons answer from this host: check that Docker network {} can reach them",
                container.networks().join(", ")
            ));
        }
        reasons
    }

    /// A target host that no running container on the sidecar's networks is
    /// named or aliased. IP addresses and dotted DNS names are not judged.
    async fn target_unresolved(&self, container: &Inspected) -> Option<String> {
        let target = container.target();
        let host = target.rsplit_once(':')?.0;
        if host.is_empty() || host.contains(['.', '[']) || host.parse::<IpAddr>().is_ok() {
            return None;
        }
        let networks = container.networks();
        for network in networks.iter().take(4) {
            let filter = format!("network={network}");
            let listed = self
                .docker
                .docker(
                    &["ps", "-q", "--no-trunc", "--filter", &filter],
                    QUICK_TIMEOUT,
                )
                .await
                .ok()
                .filter(|o| o.success)?;
            let ids: Vec<&str> = listed
                .stdout
                .split_whitespace()
                .take(MAX_NEIGHBOURS)
                .collect();
            if ids.is_empty() {
                continue;
            }
            let mut args = vec!["inspect"];
            args.extend(&ids);
            let inspected = self.docker.docker(&args, QUICK_TIMEOUT).await.ok()?;
            let neighbours = inventory::parse_inspect(&inspected.stdout).ok()?;
            if neighbours.iter().any(|c| c.answers_to(network, host)) {
                return None;
            }
        }
        (!networks.is_empty()).then(|| {
            format!(
                "target {target} does not resolve on Docker network {}: no running container there is named or aliased {host}",
                networks.join(", ")
            )
        })
    }
}

/// Where this host's published ports answer: the one address a port is
/// published on (KNOTROUTE_AGENT_PUBLISH_ADDRESS); otherwise loopback when the
/// Agent runs on the host, and the default gateway (the Docker host) when it
/// runs in a container.
fn health_hosts(bound: Option<IpAddr>) -> Vec<IpAddr> {
    if let Some(address) = bound {
        return vec![address];
    }
    let mut hosts = vec![IpAddr::V4(Ipv4Addr::LOCALHOST)];
    if let Some(gateway) = std::fs::read_to_string("/proc/net/route")
        .ok()
        .and_then(|table| default_gateway(&table))
    {
        hosts.push(IpAddr::V4(gateway));
    }
    hosts
}

/// The default route's gateway from `/proc/net/route` (hex, little-endian).
fn default_gateway(route_table: &str) -> Option<Ipv4Addr> {
    route_table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.get(1) != Some(&"00000000") {
            return None;
        }
        let raw = u32::from_str_radix(fields.get(2)?, 16).ok()?;
        let gateway = Ipv4Addr::from(raw.to_le_bytes());
        (!gateway.is_unspecified()).then_some(gateway)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_gateway_is_read_from_the_route_table() {
        let table = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\n\
                     eth0\t0011A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n\
                     eth0\t00000000\t010011AC\t0003\t0\t0\t0\t00000000\n";
        assert_eq!(default_gateway(table), Some(Ipv4Addr::new(172, 17, 0, 1)));
        assert_eq!(default_gateway("Iface\tDestination\n"), None);
    }

    #[test]
    fn durations_read_as_the_setting_is_written() {
        assert_eq!(human(Duration::from_secs(60)), "60s");
        assert_eq!(human(Duration::from_millis(1500)), "1500ms");
    }
}
