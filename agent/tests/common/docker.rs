//! What the real-Docker tests share: the stand-in image tag, the engine
//! check, cleanup of what a test's stacks left, and an Agent with Docker on.

use super::*;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The image tag: one per checkout (not `kr-test`, which older branches'
/// tests use), so that worktrees with different stand-in binaries sharing an
/// engine do not rebuild each other's images, nor swap one under a running test.
pub fn tag() -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    env!("CARGO_MANIFEST_DIR").hash(&mut hasher);
    format!("kr-standin-{:08x}", hasher.finish() as u32)
}

pub fn engine_available() -> bool {
    Command::new("docker")
        .args(["info", "--format", "{{.ServerVersion}}"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

pub fn docker(args: &[&str]) -> String {
    let out = Command::new("docker").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "docker {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Removes what the test's stacks left, even when it fails half-way:
/// containers, volumes and networks of each `kr-<component>` project, then
/// the test's own network.
pub struct Cleanup {
    pub components: Vec<String>,
    pub network: String,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let quiet = |args: &[&str]| {
            Command::new("docker")
                .args(args)
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default()
        };
        for id in &self.components {
            let project = format!("label=com.docker.compose.project=kr-{id}");
            for (list, remove) in [
                (vec!["ps", "-aq", "--filter", &project], vec!["rm", "-f"]),
                (
                    vec!["volume", "ls", "-q", "--filter", &project],
                    vec!["volume", "rm"],
                ),
                (
                    vec!["network", "ls", "-q", "--filter", &project],
                    vec!["network", "rm"],
                ),
            ] {
                let found = quiet(&list);
                let ids: Vec<&str> = found.split_whitespace().collect();
                if !ids.is_empty() {
                    quiet(&[remove, ids].concat());
                }
            }
        }
        quiet(&["network", "rm", &self.network]);
    }
}

pub async fn run_job(control: &Control, agent_id: &str, kind: &str, payload: Value) -> String {
    let id = queue_job(control, agent_id, kind, payload).await;
    let job = finished_job(control, &id, Duration::from_secs(120)).await;
    assert_eq!(job["status"], "succeeded", "{job}");
    job["result"].as_str().unwrap().to_string()
}

pub async fn component(control: &Control, agent_id: &str, id: &str) -> Option<Value> {
    let shown = control.get(&format!("/api/v1/agents/{agent_id}")).await;
    shown["components"]
        .as_array()?
        .iter()
        .find(|c| c["id"] == id)
        .cloned()
}

/// The `.knot` address Control shows for a sidecar once a heartbeat carries one.
pub async fn shown_address(control: &Control, agent_id: &str, id: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let shown = component(control, agent_id, id).await;
        if let Some(service) = shown.as_ref().and_then(|c| c["service"].as_str()) {
            if !service.is_empty() {
                return service.to_string();
            }
        }
        assert!(Instant::now() < deadline, "no address shown: {shown:?}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

pub fn is_knot_address(address: &str) -> bool {
    address.strip_suffix(".knot").is_some_and(|label| {
        label.len() == 56
            && label
                .chars()
                .all(|c| c.is_ascii_lowercase() || ('2'..='7').contains(&c))
    })
}

/// Whether the engine answers; where it does not, says the test skips
/// (never under CI, where scripts/test.sh starts one).
pub fn engine_available_or_skip(test: &str) -> bool {
    if engine_available() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "no Docker engine answers (`docker info` failed), and under CI the real-Docker test may not skip"
    );
    eprintln!(
        "SKIPPED {test}: no Docker engine answers on this machine \
         (`docker info` failed); the command lines are checked by tests/docker_commands.rs instead"
    );
    false
}

/// The Agent binary enrolling at `base` with Docker on, deploying the
/// stand-in images of `tag` when a job names none.
pub fn docker_agent_running(base: &str, data: &std::path::Path, tag: &str) -> Running {
    Running(
        agent(base, data, Some(ENROLL))
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("KNOTROUTE_AGENT_DOCKER", "true")
            .env("KNOTROUTE_AGENT_PULL", "missing")
            .env("KNOTROUTE_AGENT_IMAGE_TAG", tag)
            .env("KNOTROUTE_AGENT_SETTLE", "2s")
            .env("KNOTROUTE_AGENT_HEALTH_TIMEOUT", "5s")
            // Nothing the tests start listens beyond loopback.
            .env("KNOTROUTE_AGENT_PUBLISH_ADDRESS", "127.0.0.1")
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// The Agent with Docker on, deploying the stand-in images of `tag` when a
/// job names none; its data dir lives as long as it does.
pub async fn start_docker_agent(
    control: &Control,
    tag: &str,
) -> ((Running, tempfile::TempDir), String) {
    let data = tempfile::tempdir().unwrap();
    let running = docker_agent_running(&control.base, data.path(), tag);
    let agent_id = docker_agent(control, Duration::from_secs(30)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    ((running, data), agent_id)
}
