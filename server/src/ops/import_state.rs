//! `knotroute-control import-state FILE`: brings in the `state.json` of the
//! single-file KnotRoute Control (networks with Beacon URLs, Agents with their
//! pinned keys and reported components, jobs).
//!
//! Each record goes through the rules our own API applies. One that breaks
//! them is skipped with the reason; nothing is silently rewritten except what
//! a heartbeat or enrollment would bound too (Agent names, tags, component
//! fields). Records already present are left alone, so a second run changes
//! nothing. Everything is written in one transaction.

use crate::domain::agents::requests::{heartbeat_fields, reported_component, AgentFields};
use crate::domain::text::{bounded, limits};
use crate::domain::{audit, network_names};
use crate::entities::agent::Retirement;
use crate::entities::{agent, component, job, network};
use chrono::{DateTime, Datelike, Utc};
use protocol::agent::{ComponentReport, Heartbeat};
use protocol::api::NetworkInput;
use protocol::jobs::JobPayload;
use protocol::signing::AgentPublicKey;
use protocol::JobStatus;
use protocol::Lang;
use sea_orm::{ActiveModelTrait, DatabaseConnection, DbErr, EntityTrait, IntoActiveModel, Set};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{path} is not a KnotRoute Control state.json: {reason}")]
    NotState { path: String, reason: String },
    #[error("writing the database failed, nothing was imported: {0}")]
    Db(#[from] DbErr),
}

/// What was done with each kind of record.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    pub networks: Tally,
    pub agents: Tally,
    pub components: Tally,
    pub jobs: Tally,
    /// Every skipped record: what it was and why.
    pub skipped: Vec<Skipped>,
    /// Networks imported under another name, since theirs was taken
    /// (names are unique here): the Network ID and the name given.
    pub renamed: Vec<(String, String)>,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub imported: usize,
    /// Already here (an earlier import, or created here): left unchanged.
    pub present: usize,
    pub skipped: usize,
}

#[derive(Debug, PartialEq, Eq)]
pub struct Skipped {
    /// `network`, `agent`, `component` or `job`.
    pub kind: &'static str,
    pub id: String,
    pub reason: String,
}

impl ImportReport {
    fn skip(&mut self, kind: &'static str, id: &str, reason: impl Into<String>) {
        let tally = match kind {
            "network" => &mut self.networks,
            "agent" => &mut self.agents,
            "component" => &mut self.components,
            _ => &mut self.jobs,
        };
        tally.skipped += 1;
        self.skipped.push(Skipped {
            kind,
            id: bounded(id, 120),
            reason: reason.into(),
        });
    }

    /// The report the command prints.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (label, t) in [
            ("networks", &self.networks),
            ("agents", &self.agents),
            ("components", &self.components),
            ("jobs", &self.jobs),
        ] {
            out.push_str(&format!(
                "{label}: {} imported, {} already present, {} skipped\n",
                t.imported, t.present, t.skipped
            ));
        }
        for (id, name) in &self.renamed {
            out.push_str(&format!(
                "renamed network {id} to \"{name}\": another network has its name\n"
            ));
        }
        for s in &self.skipped {
            out.push_str(&format!("skipped {} {}: {}\n", s.kind, s.id, s.reason));
        }
        out
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct OldState {
    networks: BTreeMap<String, serde_json::Value>,
    agents: BTreeMap<String, serde_json::Value>,
    jobs: BTreeMap<String, serde_json::Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct OldNetwork {
    id: String,
    name: String,
    description: String,
    beacons: Vec<String>,
    created_at: Option<DateTime<Utc>>,
    updated_at: Option<DateTime<Utc>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct OldAgent {
    id: String,
    name: String,
    public_key: String,
    hostname: String,
    version: String,
    docker_available: bool,
    docker_version: String,
    tags: Vec<String>,
    components: Vec<serde_json::Value>,
    enrolled_at: Option<DateTime<Utc>>,
    last_seen: Option<DateTime<Utc>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct OldJob {
    id: String,
    agent_id: String,
    kind: String,
    payload: serde_json::Value,
    status: String,
    result: String,
    created_at: Option<DateTime<Utc>>,
    started_at: Option<DateTime<Utc>>,
    ended_at: Option<DateTime<Utc>>,
}

/// Go writes an unset time as year 1; that means "never".
fn real_time(t: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
    t.filter(|t| t.year() > 1)
}

/// The record's own id, or its key in the map when the record has none.
fn record_id(key: &str, id: &str) -> String {
    if id.trim().is_empty() {
        key.to_string()
    } else {
        id.trim().to_string()
    }
}

/// Parses one record, or says why it cannot be read.
fn parse<T: serde::de::DeserializeOwned>(value: &serde_json::Value) -> Result<T, String> {
    serde_json::from_value(value.clone()).map_err(|e| format!("unreadable record: {e}"))
}

pub async fn import_state(
    db: &DatabaseConnection,
    file: &Path,
) -> Result<ImportReport, ImportError> {
    let path = file.display().to_string();
    let text = std::fs::read(file).map_err(|e| ImportError::Read {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let state: OldState = serde_json::from_slice(&text).map_err(|e| ImportError::NotState {
        path,
        reason: e.to_string(),
    })?;
    let txn = crate::domain::begin_write(db).await?;
    let mut report = ImportReport::default();
    let now = Utc::now();

    let mut networks: HashSet<String> = HashSet::new();
    // Names are unique here, and were not in the first Control.
    let mut names: Vec<String> = network::Entity::find()
        .all(&txn)
        .await?
        .into_iter()
        .map(|n| n.name)
        .collect();
    for (key, value) in &state.networks {
        let old: OldNetwork = match parse(value) {
            Ok(n) => n,
            Err(reason) => {
                report.skip("network", key, reason);
                continue;
            }
        };
        let id = record_id(key, &old.id);
        let input = NetworkInput {
            id: Some(id.clone()),
            name: old.name,
            description: Some(old.description),
            beacons: old.beacons,
            version: None,
        };
        let valid = match input.validate() {
            Ok(v) => v,
            Err(errors) => {
                report.skip("network", &id, refusals(&errors));
                continue;
            }
        };
        let id = valid.id.map(|i| i.to_string()).unwrap_or(id);
        networks.insert(id.clone());
        if network::Entity::find_by_id(id.as_str())
            .one(&txn)
            .await?
            .is_some()
        {
            report.networks.present += 1;
            continue;
        }
        let created = real_time(old.created_at).unwrap_or(now);
        let name = network_names::unused(&valid.name, &names);
        if name != valid.name {
            report.renamed.push((id.clone(), name.clone()));
        }
        names.push(name.clone());
        network::ActiveModel {
            id: Set(id.clone()),
            name: Set(name),
            // Imported by whoever runs Control's own command line.
            beacons_may_be_private: Set(true),
            description: Set(valid.description),
            beacons: Set(serde_json::to_string(&valid.beacons).expect("strings serialise")),
            created_at: Set(created),
            updated_at: Set(real_time(old.updated_at).unwrap_or(created)),
            version: Set(1),
        }
        .insert(&txn)
        .await?;
        report.networks.imported += 1;
    }

    // Jobs are read before Agents: a succeeded deployment is what tells a
    // component the old Control deployed from one it only saw.
    let mut jobs: Vec<(String, OldJob)> = Vec::new();
    for (key, value) in &state.jobs {
        match parse::<OldJob>(value) {
            Ok(j) => jobs.push((record_id(key, &j.id), j)),
            Err(reason) => report.skip("job", key, reason),
        }
    }
    let desired = desired_specs(&jobs);

    let mut agents: HashSet<String> = HashSet::new();
    for (key, value) in &state.agents {
        let old: OldAgent = match parse(value) {
            Ok(a) => a,
            Err(reason) => {
                report.skip("agent", key, reason);
                continue;
            }
        };
        let id = record_id(key, &old.id);
        let Ok(public_key) = AgentPublicKey::parse(old.public_key.trim()) else {
            report.skip(
                "agent",
                &id,
                "public_key is not an Ed25519 public key (32 bytes, base64 without padding)",
            );
            continue;
        };
        if public_key.agent_id().as_str() != id {
            report.skip("agent", &id, "the id is not the one its public key derives; a signed request could never match it");
            continue;
        }
        agents.insert(id.clone());
        if agent::Entity::find_by_id(id.as_str())
            .one(&txn)
            .await?
            .is_some()
        {
            report.agents.present += 1;
            continue;
        }
        let components =
            agent_components(&id, &old.components, &desired, &networks, &mut report, now);
        let created = real_time(old.enrolled_at).unwrap_or(now);
        // Bounded exactly as a heartbeat with these fields would be.
        let AgentFields(name, hostname, version, docker_available, docker_version, tags) =
            heartbeat_fields(&Heartbeat {
                name: old.name,
                hostname: old.hostname,
                version: old.version,
                docker_available: old.docker_available,
                docker_version: old.docker_version,
                tags: old.tags,
                ..Default::default()
            });
        agent::ActiveModel {
            id: Set(id.clone()),
            name: Set(if name.is_empty() { id.clone() } else { name }),
            public_key: Set(public_key.to_wire()),
            hostname: Set(hostname),
            version: Set(version),
            tags: Set(tags),
            disabled: Set(false),
            docker_available: Set(docker_available),
            docker_version: Set(docker_version),
            last_heartbeat_at: Set(real_time(old.last_seen)),
            created_at: Set(created),
            updated_at: Set(now),
            retired: Set(Retirement::Active),
            moved_to: Set(None),
            // Empty: the first heartbeat is read in full.
            report_hash: Set(String::new()),
            reconcile_pending: Set(components.iter().any(|c| c.desired)),
            named_by_admin: Set(false),
            // Enrolled with the first Control, which had no approval.
            pending: Set(false),
            // A first-version Agent until its requests announce more.
            extensions: Set(String::new()),
        }
        .insert(&txn)
        .await?;
        report.agents.imported += 1;
        for row in components {
            let mut active = row.into_active_model().reset_all();
            active.id = sea_orm::ActiveValue::NotSet;
            active.insert(&txn).await?;
            report.components.imported += 1;
        }
        // Whoever runs the import on the host holds the owner's keys anyway.
        let by = crate::domain::access::principal::Principal::owner().to_string();
        audit::record(&txn, &by, "agent.imported", &id, "from state.json").await;
    }

    for (id, old) in jobs {
        match import_job(&txn, &id, old, &agents, now).await? {
            Ok(true) => report.jobs.imported += 1,
            Ok(false) => report.jobs.present += 1,
            Err(reason) => report.skip("job", &id, reason),
        }
    }
    txn.commit().await?;
    Ok(report)
}

fn refusals(errors: &[protocol::FieldError]) -> String {
    errors
        .iter()
        .map(|e| format!("{}: {}", e.field, e.message(Lang::En)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Per Agent and component, the payload of the last deployment that
/// succeeded, unless a later succeeded removal took the component away.
fn desired_specs(jobs: &[(String, OldJob)]) -> HashMap<(String, String), Option<JobPayload>> {
    let mut done: Vec<&(String, OldJob)> = jobs
        .iter()
        .filter(|(_, j)| JobStatus::parse(&j.status) == Some(JobStatus::Succeeded))
        .collect();
    done.sort_by_key(|(_, j)| real_time(j.ended_at).or(real_time(j.created_at)));
    let mut latest = HashMap::new();
    for (_, j) in done {
        let Ok(payload) = JobPayload::parse(&j.kind, &j.payload) else {
            continue;
        };
        let key = (j.agent_id.clone(), payload.component_id());
        match payload {
            JobPayload::DeployBeacon(_) | JobPayload::DeploySidecar(_) => {
                latest.insert(key, Some(payload));
            }
            JobPayload::RemoveComponent { .. } => {
                latest.insert(key, None);
            }
            JobPayload::RestartComponent { .. }
            | JobPayload::BackupVolume(_)
            | JobPayload::VerifyBackup(_)
            | JobPayload::ProbeService(_) => {}
        }
    }
    latest
}

/// The Agent's components as rows: each reported one, bounded as a heartbeat
/// would be, plus each one the old Control deployed but the Agent no longer
/// reported (reconciliation deploys it again).
fn agent_components(
    agent_id: &str,
    reported: &[serde_json::Value],
    desired: &HashMap<(String, String), Option<JobPayload>>,
    networks: &HashSet<String>,
    report: &mut ImportReport,
    now: DateTime<Utc>,
) -> Vec<component::Model> {
    let mut rows: Vec<component::Model> = Vec::new();
    for value in reported {
        let shown = value.get("id").and_then(|v| v.as_str()).unwrap_or("?");
        let label = format!("{agent_id}/{shown}");
        let old: ComponentReport = match parse(value) {
            Ok(c) => c,
            Err(reason) => {
                report.skip("component", &label, reason);
                continue;
            }
        };
        if protocol::jobs::component_id(&old.id).is_err() {
            report.skip(
                "component",
                &label,
                "the id is not beacon-<name> or sidecar-<name> (lowercase letters, digits, '-')",
            );
            continue;
        }
        let row = reported_component(agent_id, &old, now);
        if rows.iter().any(|r| r.component_id == row.component_id) {
            report.skip(
                "component",
                &label,
                "listed twice for this Agent; the first is kept",
            );
            continue;
        }
        if rows.len() == limits::COMPONENTS {
            report.skip(
                "component",
                &label,
                format!("more than {} components on one Agent", limits::COMPONENTS),
            );
            continue;
        }
        rows.push(row);
    }
    for ((agent, component_id), payload) in desired {
        let Some(payload) = payload.as_ref().filter(|_| agent == agent_id) else {
            continue;
        };
        let network_id = payload.network_id().map(|n| n.to_string());
        if network_id.as_ref().is_some_and(|n| !networks.contains(n)) {
            report.skip(
                "component",
                &format!("{agent_id}/{component_id}"),
                "deployed for a network that is not in the file; imported as seen, not as deployed",
            );
            continue;
        }
        let row = match rows.iter_mut().find(|r| &r.component_id == component_id) {
            Some(row) => row,
            None => {
                let mut blank = reported_component(
                    agent_id,
                    &ComponentReport {
                        id: component_id.clone(),
                        ..Default::default()
                    },
                    now,
                );
                blank.name = component_id
                    .split_once('-')
                    .map(|(_, n)| n.to_string())
                    .unwrap_or_default();
                rows.push(blank);
                rows.last_mut().expect("just pushed")
            }
        };
        row.desired = true;
        row.network_id = network_id;
        row.spec = payload.to_value().to_string();
        if let JobPayload::DeploySidecar(sidecar) = payload {
            row.set_catalog(&sidecar.catalog);
        }
    }
    rows
}

/// Imports one job; `Ok(false)` when it is already here, the inner `Err`
/// says why it was skipped.
async fn import_job(
    txn: &sea_orm::DatabaseTransaction,
    id: &str,
    old: OldJob,
    agents: &HashSet<String>,
    now: DateTime<Utc>,
) -> Result<Result<bool, String>, DbErr> {
    let Ok(job_id) = protocol::JobId::parse(id) else {
        return Ok(Err("the id is not a job id (job_…)".into()));
    };
    let id = job_id.as_str();
    if !agents.contains(&old.agent_id) {
        return Ok(Err(format!(
            "its Agent {} is not among the imported Agents",
            bounded(&old.agent_id, 80)
        )));
    }
    // The old Control's job states mean the same here.
    let Some(old_status) = JobStatus::parse(&old.status) else {
        return Ok(Err(format!(
            "unknown status \"{}\"",
            bounded(&old.status, 40)
        )));
    };
    let payload = match JobPayload::parse(&old.kind, &old.payload) {
        Ok(p) => p,
        Err(e) if e.field == "kind" => {
            return Ok(Err(format!(
                "unknown job kind \"{}\"",
                bounded(&old.kind, 40)
            )))
        }
        Err(e) => return Ok(Err(format!("payload {}: {}", e.field, e.message(Lang::En)))),
    };
    if job::Entity::find_by_id(id).one(txn).await?.is_some() {
        return Ok(Ok(false));
    }
    // A job the old Control had handed out cannot finish here: its Agent
    // reports results to the Control that gave it.
    let (status, result) = if old_status == JobStatus::Running {
        (
            JobStatus::Expired,
            "was running in the old Control when its state was imported".to_string(),
        )
    } else {
        (
            old_status,
            crate::domain::text::bounded_multiline(
                &old.result,
                crate::domain::jobs::queue::RESULT_MAX,
            ),
        )
    };
    let created = real_time(old.created_at).unwrap_or(now);
    let finished =
        real_time(old.ended_at).or_else(|| (status == JobStatus::Expired).then_some(now));
    job::ActiveModel {
        id: Set(id.to_string()),
        agent_id: Set(old.agent_id),
        kind: Set(payload.kind().to_string()),
        payload: Set(payload.to_value().to_string()),
        status: Set(status),
        result: Set(result),
        created_at: Set(created),
        started_at: Set(real_time(old.started_at)),
        finished_at: Set(finished),
        lease_expires_at: Set(None),
        retry_of: Set(None),
        component_id: Set(Some(payload.component_id())),
        network_id: Set(payload.network_id().map(|n| n.to_string())),
        may_reach_private: Set(true),
        ..Default::default()
    }
    .insert(txn)
    .await?;
    Ok(Ok(true))
}
