//! Beacons and sidecars on this host: deploying, restarting and removing them
//! for jobs (PROTOCOL.md, "What an Agent does with a deploy job"), and
//! reporting what runs for heartbeats.
//!
//! A deploy is done when it is verified (see `verify`), not when Compose
//! returned 0.

use crate::compose::{self, ComposeFile};
use crate::config::{Config, PullPolicy};
use crate::docker::{ComposeCli, Docker, Live, Output, Project, QUICK_TIMEOUT, UP_TIMEOUT};
use crate::inventory::{self, Inspected, COMPONENT_ID_LABEL, MANAGED_LABEL};
use crate::progress::Journal;
use crate::redact::Secrets;
use protocol::agent::{ComponentReport, RestartReport};
use protocol::backups::BackupReport;
use protocol::jobs::JobPayload;
use protocol::probes::ProbeReport;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// Lines of the container's log attached to a failed deploy.
const LOG_TAIL: &str = "40";
/// Lines searched for the sidecar's `.knot` announcement.
const ANNOUNCE_TAIL: &str = "500";

mod backup;
mod probe;
mod pull;
mod verify;

pub const DOCKER_DISABLED: &str = "Docker jobs are disabled on this Agent: start it with KNOTROUTE_AGENT_DOCKER=true and the Docker socket mounted";

/// What a heartbeat says about Docker.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DockerReport {
    pub available: bool,
    pub version: String,
    pub components: Vec<ComponentReport>,
}

/// What a job leaves behind: its result text, and a backup, probe or
/// sidecar restart job's report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Done {
    pub text: String,
    pub backup: Option<BackupReport>,
    pub probe: Option<ProbeReport>,
    pub restart: Option<RestartReport>,
}

impl Done {
    /// Only a result text: what every job but a backup or a probe leaves.
    pub fn text(text: String) -> Self {
        Self {
            text,
            ..Self::default()
        }
    }
}

pub struct Workloads {
    docker: Docker,
    enabled: bool,
    stacks: PathBuf,
    /// `<data>/backups`: identity archives, one directory per sidecar.
    backups: PathBuf,
    image_tag: String,
    pull: PullPolicy,
    settle: Duration,
    health_timeout: Duration,
    publish_address: Option<std::net::IpAddr>,
    secrets: Secrets,
    health: reqwest::Client,
    compose: Mutex<Option<ComposeCli>>,
    /// `.knot` addresses by (container id, start time): read once per start.
    addresses: Mutex<HashMap<(String, String), String>>,
    /// The last Docker problem logged, so a lasting one is logged once.
    last_problem: Mutex<Option<String>>,
}

/// What a job did: the command lines and what they printed, as the result
/// text (what version 1 shows), and the job's live journal of stages, which
/// the commands run through `*_live` print into as they go.
struct Transcript<'a> {
    text: Vec<String>,
    journal: &'a Journal,
}

impl<'a> Transcript<'a> {
    fn new(journal: &'a Journal) -> Self {
        Self {
            text: Vec::new(),
            journal,
        }
    }

    /// Begins the next stage: a safe point, so a cancelled job stops here.
    fn stage(&mut self, name: &str) -> Result<(), String> {
        self.journal.go_on()?;
        self.journal.begin(name);
        Ok(())
    }

    /// A command run live: its lines are in the journal already.
    fn add(&mut self, output: &Output) {
        self.add_showing(output, |_| true);
    }

    /// [`Self::add`] with only the lines `shown` keeps, as the journal had them.
    fn add_showing(&mut self, output: &Output, shown: fn(&str) -> bool) {
        let lines: Vec<&str> = output
            .text
            .trim_end()
            .lines()
            .filter(|l| shown(l))
            .collect();
        self.text
            .push(format!("$ {}\n{}", output.command, lines.join("\n")));
    }

    fn note(&mut self, line: impl Into<String>) {
        let line = line.into();
        for part in line.lines() {
            self.journal.line(part);
        }
        self.text.push(line);
    }
}

impl Workloads {
    /// `file` with its ports on KNOTROUTE_AGENT_PUBLISH_ADDRESS, when set.
    fn published(&self, file: compose::ComposeFile) -> compose::ComposeFile {
        match self.publish_address {
            Some(address) => compose::publish_on(file, address),
            None => file,
        }
    }

    pub fn new(config: &Config, secrets: Secrets) -> Self {
        Self {
            docker: Docker::default(),
            enabled: config.docker,
            stacks: config.data.join("stacks"),
            backups: config.data.join("backups"),
            image_tag: config.image_tag(),
            pull: config.pull,
            settle: config.settle,
            health_timeout: config.health_timeout,
            publish_address: config.publish_address,
            secrets,
            health: reqwest::Client::builder()
                .timeout(Duration::from_secs(3))
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("a plain HTTP client builds"),
            compose: Mutex::new(None),
            addresses: Mutex::new(HashMap::new()),
            last_problem: Mutex::new(None),
        }
    }

    /// What job output must never show.
    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// `<data>/stacks/<component_id>/compose.yaml`.
    pub fn stack_file(&self, component_id: &str) -> PathBuf {
        self.stacks.join(component_id).join("compose.yaml")
    }

    fn log_problem(&self, problem: Option<String>) {
        let mut last = self.last_problem.lock().expect("not poisoned");
        if *last != problem {
            match &problem {
                Some(why) => tracing::warn!(%why, "Docker is not usable"),
                None => tracing::info!("Docker is usable"),
            }
            *last = problem;
        }
    }

    async fn compose_cli(&self) -> Option<ComposeCli> {
        if let Some(found) = *self.compose.lock().expect("not poisoned") {
            return Some(found);
        }
        let found = self.docker.detect_compose().await;
        *self.compose.lock().expect("not poisoned") = found;
        found
    }

    /// Docker's state for a heartbeat. Available only when Docker jobs are
    /// enabled, the engine answers and Compose exists.
    pub async fn report(&self) -> DockerReport {
        if !self.enabled {
            return DockerReport::default();
        }
        let version = match self.docker.engine_version().await {
            Ok(version) => version,
            Err(why) => {
                self.log_problem(Some(why));
                return DockerReport::default();
            }
        };
        if self.compose_cli().await.is_none() {
            self.log_problem(Some(
                "neither `docker compose` nor `docker-compose` is installed".into(),
            ));
            return DockerReport {
                available: false,
                version,
                components: Vec::new(),
            };
        }
        self.log_problem(None);
        let components = match self.managed(None).await {
            Ok(containers) => {
                let mut reports = Vec::with_capacity(containers.len());
                for container in &containers {
                    let address = self.announced_address(container).await;
                    reports.push(container.report(address.as_deref()));
                }
                reports
            }
            Err(why) => {
                tracing::warn!(%why, "could not list managed containers");
                Vec::new()
            }
        };
        DockerReport {
            available: true,
            version,
            components,
        }
    }

    /// A running sidecar's `.knot` address from its logs, remembered per start.
    async fn announced_address(&self, container: &Inspected) -> Option<String> {
        if !container.is_sidecar() || !container.state.status.is_running() {
            return None;
        }
        let key = (container.id.clone(), container.state.started_at.clone());
        if let Some(known) = self.addresses.lock().expect("not poisoned").get(&key) {
            return Some(known.clone());
        }
        // Only this start's lines: a restarted container keeps the old ones,
        // whose address may not be the one it announces now.
        let mut args = vec!["logs", "--tail", ANNOUNCE_TAIL];
        if let Some(since) = container.state.this_start_since() {
            args.extend(["--since", since]);
        }
        args.push(&container.id);
        let logs = self.docker.docker(&args, QUICK_TIMEOUT).await.ok()?;
        let address = inventory::knot_address(&logs.text)?;
        let mut cache = self.addresses.lock().expect("not poisoned");
        cache.retain(|(id, _), _| id != &container.id);
        cache.insert(key, address.clone());
        Some(address)
    }

    /// Managed containers, all or those of one component.
    async fn managed(&self, component_id: Option<&str>) -> Result<Vec<Inspected>, String> {
        let mut filters = vec![format!("label={MANAGED_LABEL}=true")];
        filters.extend(component_id.map(|id| format!("label={COMPONENT_ID_LABEL}={id}")));
        let ids = self.container_ids(&filters).await?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut args = vec!["inspect"];
        args.extend(ids.iter().map(String::as_str));
        let inspected = self
            .docker
            .docker(&args, QUICK_TIMEOUT)
            .await
            .map_err(|e| e.to_string())?;
        if !inspected.success {
            return Err(format!("docker inspect failed: {}", inspected.text.trim()));
        }
        inventory::parse_inspect(&inspected.stdout)
    }

    /// The IDs of every container, running or not, that all `filters`
    /// (`docker ps --filter`) select.
    async fn container_ids(&self, filters: &[String]) -> Result<Vec<String>, String> {
        let mut args = vec!["ps", "-a", "-q", "--no-trunc"];
        for filter in filters {
            args.extend(["--filter", filter.as_str()]);
        }
        let listed = self
            .docker
            .docker(&args, QUICK_TIMEOUT)
            .await
            .map_err(|e| e.to_string())?;
        if !listed.success {
            return Err(format!("docker ps failed: {}", listed.text.trim()));
        }
        Ok(listed
            .stdout
            .split_whitespace()
            .map(str::to_string)
            .collect())
    }

    /// Runs a validated job, stage by stage into `journal`; `Ok` and `Err`
    /// both carry the result text (and a backup job's report).
    pub async fn run(&self, job: &JobPayload, journal: &Journal) -> Result<Done, Done> {
        if !self.enabled {
            journal.line(DOCKER_DISABLED);
            return Err(Done::text(DOCKER_DISABLED.into()));
        }
        let mut transcript = Transcript::new(journal);
        let mut backup = None;
        let mut probe = None;
        let mut restart = None;
        let outcome = match job {
            JobPayload::DeployBeacon(beacon) => {
                let file = self.published(compose::beacon(beacon, &self.image_tag));
                self.deploy(&job.component_id(), &file, &mut transcript)
                    .await
            }
            JobPayload::DeploySidecar(sidecar) => {
                let file = self.published(compose::sidecar(sidecar, &self.image_tag));
                self.deploy(&job.component_id(), &file, &mut transcript)
                    .await
            }
            JobPayload::RestartComponent { component_id } => self
                .restart(component_id, &mut transcript)
                .await
                .map(|(text, report)| {
                    restart = report;
                    text
                }),
            JobPayload::RemoveComponent { component_id } => {
                self.remove(component_id, &mut transcript).await
            }
            JobPayload::BackupVolume(job) => {
                self.backup(job, &mut transcript)
                    .await
                    .map(|(text, report)| {
                        backup = Some(report);
                        text
                    })
            }
            JobPayload::VerifyBackup(job) => {
                self.verify_backup(job, &mut transcript)
                    .await
                    .map(|(text, report)| {
                        backup = Some(report);
                        text
                    })
            }
            // A failed probe is a finding too: its report goes either way.
            JobPayload::ProbeService(job) => {
                let (outcome, report) = self.probe(job, &mut transcript).await;
                probe = report;
                outcome
            }
        };
        let mut text = |summary: String| {
            transcript.note(summary);
            self.secrets.clean(&transcript.text.join("\n"))
        };
        match outcome {
            Ok(summary) => Ok(Done {
                text: text(summary),
                backup,
                probe,
                restart,
            }),
            Err(why) => Err(Done {
                text: text(why),
                probe,
                ..Done::default()
            }),
        }
    }

    /// `compose up` as this Agent runs it: detached, under the pull policy.
    fn up_args(&self, cli: ComposeCli) -> Vec<&'static str> {
        let mut up = vec!["up", "-d", "--remove-orphans"];
        // The v1 CLI has no --pull; it pulls only missing images by itself.
        if cli == ComposeCli::Plugin {
            up.extend([
                "--pull",
                if self.pull == PullPolicy::Never {
                    "never"
                } else {
                    "missing"
                },
            ]);
        }
        up
    }

    async fn require_compose(&self) -> Result<ComposeCli, String> {
        self.compose_cli().await.ok_or_else(|| {
            "neither `docker compose` (v2) nor `docker-compose` is installed on this host: install the Compose plugin".to_string()
        })
    }

    async fn deploy(
        &self,
        component_id: &str,
        file: &ComposeFile,
        transcript: &mut Transcript<'_>,
    ) -> Result<String, String> {
        self.compose_up(component_id, file, transcript).await?;
        self.verify(component_id, transcript).await
    }

    /// Writes the component's compose file, pulls what the policy asks for
    /// and brings the stack up, each a stage of the job.
    async fn compose_up(
        &self,
        component_id: &str,
        file: &ComposeFile,
        transcript: &mut Transcript<'_>,
    ) -> Result<(), String> {
        let cli = self.require_compose().await?;
        let path = self.stack_file(component_id);
        // Written whole or not at all, so a stop here leaves no half a file.
        transcript.stage("write compose")?;
        crate::private_file::write_atomically(&path, compose::to_yaml(file).as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        transcript
            .journal
            .line(&format!("wrote {}", path.display()));
        let name = compose::project_name(component_id);
        let project = Project {
            cli,
            file: Some(&path),
            name: &name,
        };
        if self.pull != PullPolicy::Never {
            transcript.stage("pull")?;
            self.pull(project, file, transcript).await?;
        }
        let up = self.up_args(cli);
        transcript.stage("up")?;
        let started = self
            .docker
            .compose_live(
                project,
                &up,
                UP_TIMEOUT,
                Live::every_line(transcript.journal),
            )
            .await
            .map_err(|e| e.to_string())?;
        transcript.add(&started);
        if !started.success {
            return Err(format!("`{}` failed", started.command));
        }
        Ok(())
    }

    /// The component's container on this host, if it has one.
    async fn one_container(&self, component_id: &str) -> Result<Option<Inspected>, String> {
        let mut found = self.managed(Some(component_id)).await?;
        // Prefer a running one if an old container lingers beside it.
        found.sort_by_key(|c| !c.state.status.is_running());
        Ok(found.into_iter().next())
    }

    /// Restarts the component's container; for a sidecar, also says which
    /// address it announced before and after (each from that start's lines).
    async fn restart(
        &self,
        component_id: &str,
        transcript: &mut Transcript<'_>,
    ) -> Result<(String, Option<RestartReport>), String> {
        let Some(container) = self.one_container(component_id).await? else {
            return Err(format!(
                "{component_id} has no container on this host: deploy it first"
            ));
        };
        let before = self.announced_address(&container).await;
        transcript.stage("restart")?;
        let restarted = self
            .docker
            .docker_live(&["restart", &container.id], UP_TIMEOUT, transcript.journal)
            .await
            .map_err(|e| e.to_string())?;
        transcript.add(&restarted);
        if !restarted.success {
            return Err(format!("`{}` failed", restarted.command));
        }
        let verified = self.verify(component_id, transcript).await?;
        let after = match self.one_container(component_id).await? {
            Some(now) => self.announced_address(&now).await,
            None => None,
        };
        let report = before.zip(after).map(|(address_before, address_after)| {
            transcript.note(if address_before == address_after {
                format!("the identity survived the restart: {address_after} before and after")
            } else {
                format!("the address changed across the restart: {address_before} before, {address_after} after")
            });
            RestartReport {
                component_id: component_id.to_string(),
                address_before,
                address_after,
            }
        });
        Ok((verified, report))
    }

    /// `compose down` for the stack (volumes kept), then its directory goes.
    async fn remove(
        &self,
        component_id: &str,
        transcript: &mut Transcript<'_>,
    ) -> Result<String, String> {
        let path = self.stack_file(component_id);
        let project = compose::project_name(component_id);
        transcript.stage("down")?;
        if path.exists() {
            let cli = self.require_compose().await?;
            let down = self
                .docker
                .compose_live(
                    Project {
                        cli,
                        file: Some(&path),
                        name: &project,
                    },
                    &["down"],
                    UP_TIMEOUT,
                    Live::every_line(transcript.journal),
                )
                .await
                .map_err(|e| e.to_string())?;
            transcript.add(&down);
            if !down.success {
                return Err(format!("`{}` failed", down.command));
            }
        } else {
            // Deployed by an earlier installation without its stack file.
            let containers = if protocol::probes::is_node_component_id(component_id) {
                // A probe's node carries no component labels: its Compose
                // project names it.
                self.container_ids(&[compose::project_filter(&project)])
                    .await?
            } else {
                let managed = self.managed(Some(component_id)).await?;
                managed.into_iter().map(|c| c.id).collect()
            };
            if containers.is_empty() {
                return Ok(format!(
                    "nothing to remove: {component_id} is not deployed on this host"
                ));
            }
            let mut args = vec!["rm", "-f"];
            args.extend(containers.iter().map(String::as_str));
            let removed = self
                .docker
                .docker_live(&args, UP_TIMEOUT, transcript.journal)
                .await
                .map_err(|e| e.to_string())?;
            transcript.add(&removed);
            if !removed.success {
                return Err(format!("`{}` failed", removed.command));
            }
        }
        transcript.stage("delete stack")?;
        remove_stack_dir(path.parent().expect("stack files sit in a directory"))?;
        Ok(format!(
            "removed {component_id}; its data volume is kept (docker volume ls --filter label=com.docker.compose.project={project})"
        ))
    }
}

fn remove_stack_dir(dir: &Path) -> Result<(), String> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("cannot delete {}: {e}", dir.display()))
        }
        _ => Ok(()),
    }
}
