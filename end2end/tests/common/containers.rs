//! Control and the Agent as containers from the images `scripts/images.sh`
//! built, brought up with the shipped compose files (plus the test-only
//! additions in end2end/fixtures/compose), on a real Docker engine. The Agent
//! deploys the stand-in Beacon and sidecar images (`scripts/standin-images.sh`;
//! the real ones come from a registry this machine cannot reach).

use super::{free_port, workspace_root, ENROLL, PASSWORD};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The tag the stand-in Beacon and sidecar images carry (`KNOTROUTE_AGENT_IMAGE_TAG`).
pub const STANDIN_TAG: &str = "standin";

fn output(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

/// Runs `docker args…`, panicking with its stderr when it fails.
pub fn docker(args: &[&str]) -> String {
    let out = output(Command::new("docker").args(args));
    assert!(
        out.status.success(),
        "docker {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Runs `docker args…` and tells whether it worked (for cleanup).
pub fn docker_quiet(args: &[&str]) -> bool {
    output(Command::new("docker").args(args)).status.success()
}

fn image_exists(image: &str) -> bool {
    docker_quiet(&["image", "inspect", image])
}

/// One compose project: the shipped file(s) and this test's additions.
pub struct ComposeProject {
    pub name: String,
    files: Vec<PathBuf>,
    env: Vec<(String, String)>,
}

impl ComposeProject {
    fn new(name: String, files: &[&str], env: Vec<(String, String)>) -> Self {
        let root = workspace_root();
        Self {
            name,
            files: files.iter().map(|f| root.join(f)).collect(),
            env,
        }
    }

    fn command(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new("docker");
        cmd.arg("compose").arg("-p").arg(&self.name);
        for file in &self.files {
            cmd.arg("-f").arg(file);
        }
        cmd.args(args).current_dir(workspace_root());
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        output(&mut cmd)
    }

    /// `docker compose … args`, panicking with its output when it fails.
    pub fn run(&self, args: &[&str]) -> String {
        let out = self.command(args);
        assert!(
            out.status.success(),
            "docker compose -p {} {args:?}: {}{}",
            self.name,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// `up -d --wait`: returns once every service's health check passes.
    pub fn up(&self) -> Duration {
        let started = Instant::now();
        self.run(&["up", "-d", "--no-build", "--wait", "--wait-timeout", "180"]);
        started.elapsed()
    }

    /// The ID of a service's container.
    pub fn container(&self, service: &str) -> String {
        self.run(&["ps", "-q", service])
    }

    /// The health status Docker reports for a service's container.
    pub fn health(&self, service: &str) -> String {
        docker(&[
            "inspect",
            "--format",
            "{{.State.Health.Status}}",
            &self.container(service),
        ])
    }

    pub fn set_env(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_string(), value.to_string()));
    }
}

impl Drop for ComposeProject {
    fn drop(&mut self) {
        let _ = self.command(&["down", "-v", "--remove-orphans", "-t", "2"]);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Db {
    Sqlite,
    Postgres,
}

/// Control (from its image, on `db`) and, once [`Loop::start_agent`] ran, an
/// Agent container with the Docker socket, on a network of this test's own.
pub struct Loop {
    pub suffix: String,
    /// The test network (`KNOTROUTE_TEST_NETWORK`).
    pub network: String,
    /// Its gateway: the host's address on it, where deployed ports are published.
    pub gateway: String,
    /// Control as the host reaches it (published on loopback).
    pub base: String,
    pub control: ComposeProject,
    pub agent: Option<ComposeProject>,
    /// The network profile every deployed component belongs to (cleanup
    /// finds the containers by its label).
    pub network_id: String,
    /// Dropped last: the network outlives every project on it.
    _network: NetworkGuard,
}

struct NetworkGuard(String);

impl Drop for NetworkGuard {
    fn drop(&mut self) {
        docker_quiet(&["network", "rm", &self.0]);
    }
}

fn require_images() {
    for image in ["knotroute-control:local", "knotroute-agent:local"] {
        assert!(
            image_exists(image),
            "{image} is missing: scripts/images.sh builds it (scripts/test.sh runs it)"
        );
    }
    let standins = workspace_root().join("scripts/standin-images.sh");
    let out = output(Command::new(&standins).arg(STANDIN_TAG));
    assert!(
        out.status.success(),
        "{}: {}",
        standins.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Loop {
    /// Brings Control up with compose.yaml (SQLite in its volume) or
    /// compose.postgres.yaml (with the stand-in postgres:17), until healthy.
    /// `None` (the test skips) only where no engine answers outside CI.
    pub async fn start(db: Db) -> Option<Loop> {
        if !docker_quiet(&["info"]) {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "no Docker engine answers, and under CI the container tests may not skip"
            );
            eprintln!("SKIPPED: no Docker engine answers (`docker info` failed)");
            return None;
        }
        require_images();
        super::leftovers::sweep();
        let suffix = format!(
            "{}{}",
            std::process::id(),
            if db == Db::Sqlite { "s" } else { "p" }
        );
        let network = format!("kr-loop-{suffix}");
        docker(&["network", "create", &network]);
        let gateway = docker(&[
            "network",
            "inspect",
            "--format",
            "{{(index .IPAM.Config 0).Gateway}}",
            &network,
        ]);
        let port = free_port();
        let env = vec![
            ("KNOTROUTE_TEST_NETWORK".into(), network.clone()),
            ("KNOTROUTE_CONTROL_ADMIN_PASSWORD".into(), PASSWORD.into()),
            ("KNOTROUTE_CONTROL_ENROLL_TOKEN".into(), ENROLL.into()),
            (
                "KNOTROUTE_CONTROL_PUBLISH".into(),
                format!("127.0.0.1:{port}"),
            ),
            (
                "POSTGRES_PASSWORD".into(),
                "loop-test-database-password".into(),
            ),
        ];
        let files: &[&str] = match db {
            Db::Sqlite => &["compose.yaml", "end2end/fixtures/compose/control.test.yaml"],
            Db::Postgres => &[
                "compose.postgres.yaml",
                "end2end/fixtures/compose/control.test.yaml",
                "end2end/fixtures/compose/postgres.test.yaml",
            ],
        };
        let control = ComposeProject::new(format!("krc{suffix}"), files, env);
        let took = control.up();
        eprintln!("[loop] Control ({db:?}) healthy after {took:?}");
        let base = format!("http://127.0.0.1:{port}");
        let network_id = super::create_network(&base, &format!("loop {suffix}"), &[]).await;
        Some(Loop {
            suffix,
            network: network.clone(),
            gateway,
            base,
            control,
            agent: None,
            network_id,
            _network: NetworkGuard(network),
        })
    }

    /// Creates an install token and brings the Agent up with
    /// compose.agent.yaml; returns the Agent's ID once Control lists it online.
    pub async fn start_agent(&mut self) -> String {
        let token = self.install_token().await;
        let gid = std::fs::metadata("/var/run/docker.sock")
            .map(|m| std::os::unix::fs::MetadataExt::gid(&m).to_string())
            .expect("the Docker socket is at /var/run/docker.sock");
        let env = vec![
            ("KNOTROUTE_TEST_NETWORK".into(), self.network.clone()),
            ("KNOTROUTE_TEST_INSTALL_TOKEN".into(), token),
            (
                "KNOTROUTE_TEST_AGENT_NAME".into(),
                format!("loop-{}", self.suffix),
            ),
            ("KNOTROUTE_TEST_STANDIN_TAG".into(), STANDIN_TAG.into()),
            ("KNOTROUTE_TEST_GATEWAY".into(), self.gateway.clone()),
            ("DOCKER_GID".into(), gid),
        ];
        let agent = ComposeProject::new(
            format!("kra{}", self.suffix),
            &[
                "compose.agent.yaml",
                "end2end/fixtures/compose/agent.test.yaml",
            ],
            env,
        );
        let took = agent.up();
        eprintln!("[loop] Agent healthy after {took:?}");
        self.agent = Some(agent);
        self.online_agent(Duration::from_secs(60)).await["id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    pub fn agent(&self) -> &ComposeProject {
        self.agent.as_ref().expect("start_agent first")
    }

    /// Waits until Control answers `/readyz` from the host (after a start).
    pub async fn wait_ready(&self, within: Duration) {
        let deadline = Instant::now() + within;
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(2))
            .build()
            .unwrap();
        loop {
            let ready = client.get(format!("{}/readyz", self.base)).send().await;
            if ready.is_ok_and(|r| r.status() == 200) {
                return;
            }
            assert!(Instant::now() < deadline, "Control not ready again");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub async fn admin(&self) -> test_kit::AdminClient {
        super::admin_client(&self.base).await
    }

    async fn install_token(&self) -> String {
        let r = self
            .admin()
            .await
            .post_json(
                "/api/v1/install-tokens",
                json!({"name": format!("loop-{}", self.suffix)}),
            )
            .await;
        assert_eq!(r.status(), 201);
        r.json::<Value>().await.unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string()
    }

    pub async fn get(&self, path: &str) -> Value {
        let r = self.admin().await.get(path).await;
        assert_eq!(r.status(), 200, "GET {path}");
        r.json().await.unwrap()
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self.admin().await.post_json(path, body).await;
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn put(&self, path: &str, body: Value) -> (u16, Value) {
        let admin = self.admin().await;
        let r = admin
            .client
            .put(admin.url(path))
            .json(&body)
            .send()
            .await
            .expect("PUT");
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// The single Agent, once it is online (waiting up to `within`).
    pub async fn online_agent(&self, within: Duration) -> Value {
        let deadline = Instant::now() + within;
        loop {
            let agents = self.get("/api/v1/agents").await;
            let list = agents["items"].as_array().or(agents.as_array()).cloned();
            if let Some(agent) = list
                .unwrap_or_default()
                .into_iter()
                .find(|a| a["status"] == "online")
            {
                return agent;
            }
            assert!(Instant::now() < deadline, "no Agent online: {agents}");
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// Queues a job and waits until it finished; the finished job.
    pub async fn run_job(&self, agent_id: &str, kind: &str, payload: Value) -> Value {
        let (status, job) = self
            .post(
                "/api/v1/jobs",
                json!({"agent_id": agent_id, "kind": kind, "payload": payload}),
            )
            .await;
        assert_eq!(status, 201, "{job}");
        self.finished_job(job["id"].as_str().unwrap(), Duration::from_secs(180))
            .await
    }

    pub async fn finished_job(&self, id: &str, within: Duration) -> Value {
        let deadline = Instant::now() + within;
        loop {
            let job = self.get(&format!("/api/v1/jobs/{id}")).await;
            if matches!(
                job["status"].as_str(),
                Some("succeeded" | "failed" | "expired" | "cancelled")
            ) {
                return job;
            }
            assert!(Instant::now() < deadline, "job not finished: {job}");
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// A component as Control shows it on the Agent.
    pub async fn component(&self, agent_id: &str, id: &str) -> Option<Value> {
        let shown = self.get(&format!("/api/v1/agents/{agent_id}")).await;
        shown["components"]
            .as_array()?
            .iter()
            .find(|c| c["id"] == id)
            .cloned()
    }

    /// Waits until `check` holds for the component (up to `within`).
    pub async fn wait_component(
        &self,
        agent_id: &str,
        id: &str,
        within: Duration,
        what: &str,
        check: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + within;
        loop {
            let shown = self.component(agent_id, id).await;
            if let Some(c) = shown.as_ref().filter(|c| check(c)) {
                return c.clone();
            }
            assert!(
                Instant::now() < deadline,
                "{id}: {what} not seen: {shown:?}"
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// Containers the Agent deployed for this test.
    pub fn deployed(&self, component_id: &str) -> String {
        docker(&[
            "ps",
            "-q",
            "--filter",
            &format!("label=io.knotroute.network-id={}", self.network_id),
            "--filter",
            &format!("label=io.knotroute.component-id={component_id}"),
        ])
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        // What the Agent deployed lives in projects of its own (kr-<component>).
        let deployed = docker_quiet_output(&[
            "ps",
            "-a",
            "--filter",
            &format!("label=io.knotroute.network-id={}", self.network_id),
            "--format",
            "{{.Label \"com.docker.compose.project\"}}",
        ]);
        self.agent.take();
        for project in deployed.lines().collect::<std::collections::BTreeSet<_>>() {
            docker_quiet(&["compose", "-p", project, "down", "-v", "-t", "2"]);
        }
        // Containers the test itself started (the services it publishes).
        let own = docker_quiet_output(&[
            "ps",
            "-aq",
            "--filter",
            &format!("label=io.knotroute.test={}", self.suffix),
        ]);
        for id in own.lines() {
            docker_quiet(&["rm", "-f", "-v", id]);
        }
    }
}

pub fn docker_quiet_output(args: &[&str]) -> String {
    let out = output(Command::new("docker").args(args));
    String::from_utf8_lossy(&out.stdout).into_owned()
}
