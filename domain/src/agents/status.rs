//! Whether an Agent is online, degraded, offline or disabled, and why: decided
//! here once, for every place that shows an Agent.

use crate::entities::agent::Retirement;
use crate::entities::{agent, agent_control_trust, component};
use chrono::{DateTime, Duration, Utc};
use protocol::{AgentStatus, ComponentStatus};

/// Offline after three missed heartbeats at the default 15 s interval
/// (KNOTROUTE_CONTROL_AGENT_OFFLINE_AFTER changes it).
pub const DEFAULT_OFFLINE_AFTER_SECS: u32 = 45;

/// An Agent's status with a stable code for why, and the same in a sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentStanding {
    pub status: AgentStatus,
    pub reason: String,
    pub reason_text: String,
}

/// A component is in error when its deployment failed, it is reported but
/// not running, or it carries an error.
pub fn component_error(c: &component::Model) -> Option<String> {
    if c.desired && !c.deploy_error.is_empty() {
        return Some(c.deploy_error.clone());
    }
    if !c.last_error.is_empty() {
        return Some(c.last_error.clone());
    }
    match c.status {
        ComponentStatus::Running => None,
        ComponentStatus::NotReported if c.desired => Some("not reported by the Agent".into()),
        ComponentStatus::NotReported => None,
        other => Some(format!("container is {other}")),
    }
}

/// `now` comes from the same clock the heartbeat times were written with
/// (`database_now`), so every replica judges an Agent alike.
pub fn agent_status(
    agent: &agent::Model,
    components: &[component::Model],
    trust: Option<&agent_control_trust::Model>,
    now: DateTime<Utc>,
    offline_after: Duration,
) -> AgentStanding {
    let make = |status, reason: &str, text: String| AgentStanding {
        status,
        reason: reason.to_string(),
        reason_text: text,
    };
    match (agent.retired, &agent.moved_to) {
        (Retirement::Active, _) => {}
        (Retirement::Moved, Some(to)) => {
            return make(
                AgentStatus::Moved,
                "moved_to_new_host",
                format!("Moved to a new host, now Agent {to}; this key no longer works."),
            )
        }
        (Retirement::Moved, None) => {
            return make(
                AgentStatus::Moved,
                "awaiting_new_host",
                "Moving: this key no longer works; waiting for the new host to enroll with the move token.".into(),
            )
        }
        (Retirement::Revoked, _) => {
            return make(
                AgentStatus::Revoked,
                "revoked_by_admin",
                "Revoked by an admin: its key no longer works.".into(),
            )
        }
    }
    if agent.disabled {
        return make(
            AgentStatus::Disabled,
            "disabled_by_admin",
            "Disabled by an admin: it gets no jobs.".into(),
        );
    }
    if agent.pending {
        return make(
            AgentStatus::Pending,
            "awaiting_approval",
            "Waiting for an admin's approval: it gets no jobs and belongs to no network. Compare its key fingerprint with the Agent's log before approving it.".into(),
        );
    }
    let Some(seen) = agent.last_heartbeat_at else {
        return make(
            AgentStatus::Offline,
            "no_heartbeat_yet",
            "Enrolled, but no heartbeat has arrived yet.".into(),
        );
    };
    if now - seen > offline_after {
        return make(
            AgentStatus::Offline,
            "heartbeat_missed",
            format!("No heartbeat for {} s.", (now - seen).num_seconds()),
        );
    }
    // An impostor, or a pin that makes the Agent refuse every job, matters
    // more than one failing component.
    if let Some((reason, text)) =
        trust.and_then(|t| crate::agents::control_trust::trust_problem(t, now))
    {
        return make(AgentStatus::Degraded, reason, text);
    }
    if let Some((c, error)) = components
        .iter()
        .find_map(|c| component_error(c).map(|e| (c, e)))
    {
        return make(
            AgentStatus::Degraded,
            "component_error",
            format!("{}: {error}", c.component_id),
        );
    }
    make(
        AgentStatus::Online,
        "heartbeat_recent",
        "Heartbeats arrive on time.".into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(last: Option<DateTime<Utc>>, disabled: bool) -> agent::Model {
        let now = Utc::now();
        agent::Model {
            id: "ka_x".into(),
            name: "a".into(),
            public_key: String::new(),
            hostname: String::new(),
            version: String::new(),
            tags: "[]".into(),
            disabled,
            docker_available: true,
            docker_version: String::new(),
            last_heartbeat_at: last,
            created_at: now,
            updated_at: now,
            retired: Retirement::Active,
            moved_to: None,
            report_hash: String::new(),
            reconcile_pending: false,
            named_by_admin: false,
            pending: false,
            extensions: String::new(),
        }
    }

    fn component(status: &str, last_error: &str) -> component::Model {
        component::Model {
            id: 1,
            kind: "sidecar".into(),
            name: "web".into(),
            desired: true,
            status: ComponentStatus::parse(status),
            last_error: last_error.into(),
            ..component::Model::empty("ka_x", "sidecar-web", Utc::now())
        }
    }

    const W: Duration = Duration::seconds(DEFAULT_OFFLINE_AFTER_SECS as i64);

    #[test]
    fn status_follows_heartbeats_components_and_the_admin() {
        let now = Utc::now();
        let fresh = Some(now - Duration::seconds(5));
        assert_eq!(
            agent_status(
                &agent(fresh, false),
                &[component("running", "")],
                None,
                now,
                W
            )
            .status
            .as_str(),
            "online"
        );
        assert_eq!(
            agent_status(
                &agent(fresh, false),
                &[component("exited", "")],
                None,
                now,
                W
            )
            .status
            .as_str(),
            "degraded"
        );
        assert_eq!(
            agent_status(
                &agent(fresh, false),
                &[component("running", "pull failed")],
                None,
                now,
                W
            )
            .reason,
            "component_error"
        );
        assert_eq!(
            agent_status(
                &agent(Some(now - Duration::seconds(46)), false),
                &[],
                None,
                now,
                W
            )
            .reason,
            "heartbeat_missed"
        );
        assert_eq!(
            agent_status(&agent(None, false), &[], None, now, W).reason,
            "no_heartbeat_yet"
        );
        assert_eq!(
            agent_status(&agent(fresh, true), &[], None, now, W)
                .status
                .as_str(),
            "disabled"
        );
        let mut failed = component("", "");
        failed.deploy_error = "deployment failed (job_x): pull denied".into();
        let degraded = agent_status(&agent(fresh, false), &[failed], None, now, W);
        assert_eq!(degraded.status.as_str(), "degraded");
        assert!(degraded.reason_text.contains("pull denied"));
        let mut revoked = agent(fresh, true);
        revoked.retired = Retirement::Revoked;
        assert_eq!(
            agent_status(&revoked, &[], None, now, W).status.as_str(),
            "revoked"
        );
        // Waiting for approval: whatever its heartbeats and components say,
        // and before "offline" (its heartbeats may not have come yet).
        for last in [fresh, None] {
            let mut waiting = agent(last, false);
            waiting.pending = true;
            let standing = agent_status(&waiting, &[component("exited", "")], None, now, W);
            assert_eq!(standing.status.as_str(), "pending");
            assert_eq!(standing.reason, "awaiting_approval");
        }
        // The window is the operator's: a minute-old heartbeat is fine with two minutes.
        let minute_old = agent(Some(now - Duration::seconds(60)), false);
        assert_eq!(
            agent_status(&minute_old, &[], None, now, W).status.as_str(),
            "offline"
        );
        assert_eq!(
            agent_status(&minute_old, &[], None, now, Duration::seconds(120))
                .status
                .as_str(),
            "online"
        );
    }
}
