//! What alerts watch and what they say: Agents going offline and coming
//! back (a sweep every 15 s), Beacons going down and up (every check),
//! sidecars losing and regaining their `.knot` address (heartbeats), the
//! end-to-end probe failing and passing again, and failed jobs.

use crate::agents::status::agent_status;
use crate::alerts::settings::{Alerts, Observation, Place};
use crate::entities::agent::Retirement;
use crate::entities::{agent, component, job};
use crate::StoreError;
use chrono::{DateTime, Duration, Utc};
use protocol::beacons::BeaconCheckView;
use protocol::AgentStatus;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::json;

/// How often Agents are looked at for going offline or coming back.
const AGENT_SWEEP: std::time::Duration = std::time::Duration::from_secs(15);

impl Alerts {
    /// After a Beacon check, manual or scheduled.
    pub async fn beacon_checked(&self, check: &BeaconCheckView) {
        let down = !check.ok;
        let text = if down {
            format!(
                "Beacon {} is down: {} ({}).",
                check.url,
                check.class.as_str(),
                check.detail
            )
        } else {
            format!("Beacon {} is up again.", check.url)
        };
        let observation = Observation {
            key: format!("beacon:{}", check.url),
            state: if down { "down" } else { "up" },
            healthy: "up",
            news_when_first: true,
            event: if down { "beacon.down" } else { "beacon.up" },
            text,
            subject: json!({"url": check.url, "network_id": check.network_id,
                            "class": check.class.as_str(), "detail": check.detail}),
            place: Place::network(Some(check.network_id.as_str())),
        };
        self.observe(vec![observation], Utc::now()).await;
    }

    /// After each end-to-end probe: a failure is news once, and so is the
    /// first pass after it.
    pub async fn probe_finished(&self, probed: &crate::probes::RecordedRun) {
        let run = &probed.run;
        let stage = run.stage.map(|s| s.slug()).unwrap_or_default();
        let text = if run.ok {
            format!(
                "The end-to-end probe opens {} ({}) again from Agent {}, in {} ms.",
                probed.service, probed.address, probed.agent_name, run.latency_ms
            )
        } else {
            format!(
                "The end-to-end probe from Agent {} cannot open {} ({}): it stopped at {stage} ({}).",
                probed.agent_name, probed.service, probed.address, run.detail
            )
        };
        let observation = Observation {
            key: format!("probe:{}", probed.network_id),
            state: if run.ok { "ok" } else { "failed" },
            healthy: "ok",
            news_when_first: true,
            event: if run.ok { "probe.ok" } else { "probe.failed" },
            text,
            subject: json!({"network_id": probed.network_id, "service": probed.service,
                            "address": probed.address, "agent_name": probed.agent_name,
                            "stage": stage, "latency_ms": run.latency_ms, "detail": run.detail}),
            place: Place::network(Some(probed.network_id.as_str())),
        };
        self.observe(vec![observation], Utc::now()).await;
    }

    /// After a heartbeat changed an Agent's components: a sidecar that had
    /// a `.knot` address and reports none has lost it.
    pub async fn services_reported(&self, agent: &agent::Model, components: &[component::Model]) {
        let observations = components
            .iter()
            .filter(|c| c.kind == "sidecar" && c.status.is_reported())
            .map(|c| {
                let lost = c.service.is_empty();
                let text = if lost {
                    format!(
                        "Service {} on Agent {} lost its .knot address.",
                        c.name, agent.name
                    )
                } else {
                    format!(
                        "Service {} on Agent {} has its .knot address again: {}.",
                        c.name, agent.name, c.service
                    )
                };
                Observation {
                    key: format!("service:{}/{}", agent.id, c.component_id),
                    state: if lost { "lost" } else { "known" },
                    healthy: "known",
                    // A new sidecar has no address until it announces one.
                    news_when_first: false,
                    event: if lost {
                        "service.address_lost"
                    } else {
                        "service.address_restored"
                    },
                    text,
                    subject: json!({"agent_id": agent.id, "agent_name": agent.name,
                                    "component_id": c.component_id, "service": c.service,
                                    "network_id": c.network_id}),
                    place: Place {
                        network_id: c.network_id.clone(),
                        agent_id: Some(agent.id.clone()),
                    },
                }
            })
            .collect::<Vec<_>>();
        if !observations.is_empty() {
            self.observe(observations, Utc::now()).await;
        }
    }

    /// A job ended failed (or its lease expired).
    pub async fn job_failed(&self, job: &job::Model, reason: &str) {
        let first_line = reason.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let observation = Observation {
            key: format!("job:{}", job.id),
            state: "failed",
            healthy: "",
            news_when_first: true,
            event: "job.failed",
            text: format!(
                "Job {} ({}) on Agent {} {}: {first_line}",
                job.id, job.kind, job.agent_id, job.status
            ),
            subject: json!({"job_id": job.id, "kind": job.kind, "agent_id": job.agent_id,
                            "component_id": job.component_id, "status": job.status}),
            place: Place {
                network_id: job.network_id.clone(),
                agent_id: Some(job.agent_id.clone()),
            },
        };
        if let Err(e) = self.queue(&observation, Utc::now()).await {
            tracing::warn!(error = %e, "queueing a job alert failed");
        }
    }

    /// Looks at every enabled Agent that ever sent a heartbeat: offline or online.
    pub async fn watch_agents(
        &self,
        now: DateTime<Utc>,
        offline_after: Duration,
    ) -> Result<(), StoreError> {
        let agents = agent::Entity::find()
            .filter(agent::Column::Retired.eq(Retirement::Active))
            .filter(agent::Column::Disabled.eq(false))
            .filter(agent::Column::LastHeartbeatAt.is_not_null())
            .all(&self.db)
            .await?;
        let observations = agents
            .iter()
            .map(|a| {
                let status = agent_status(a, &[], None, now, offline_after);
                let offline = status.status == AgentStatus::Offline;
                let text = if offline {
                    format!(
                        "Agent {} ({}) is offline: {}",
                        a.name, a.hostname, status.reason_text
                    )
                } else {
                    format!("Agent {} ({}) is online again.", a.name, a.hostname)
                };
                Observation {
                    key: format!("agent:{}", a.id),
                    state: if offline { "offline" } else { "online" },
                    healthy: "online",
                    news_when_first: true,
                    event: if offline {
                        "agent.offline"
                    } else {
                        "agent.online"
                    },
                    text,
                    subject: json!({"agent_id": a.id, "name": a.name, "hostname": a.hostname}),
                    place: Place::agent(&a.id),
                }
            })
            .collect();
        self.observe(observations, now).await;
        Ok(())
    }

    /// Runs [`Alerts::watch_agents`] for as long as Control runs.
    pub fn spawn_agent_watch(self, offline_after: Duration) {
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(AGENT_SWEEP);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let now = crate::database_now(&self.db).await;
                if let Err(e) = self.watch_agents(now, offline_after).await {
                    tracing::warn!(error = %e, "watching Agents for alerts failed");
                }
            }
        });
    }
}
