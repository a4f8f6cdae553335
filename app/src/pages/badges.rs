//! The badge of each kind of status: which ones look fine, which call for a
//! look and which are trouble, decided here once from the status's own rules.

use protocol::progress::StageStatus;
use protocol::{AgentStatus, AlertStatus, ComponentStatus, JobStatus};

pub fn job_badge(status: JobStatus) -> &'static str {
    if status.needs_attention() {
        "badge bad"
    } else if status.is_active() {
        "badge warn"
    } else if status == JobStatus::Succeeded {
        "badge ok"
    } else {
        "badge"
    }
}

pub fn stage_badge(status: StageStatus) -> &'static str {
    match status {
        StageStatus::Running => "badge warn",
        StageStatus::Succeeded => "badge ok",
        StageStatus::Failed => "badge bad",
        StageStatus::Cancelled => "badge",
    }
}

pub fn agent_badge(status: AgentStatus) -> &'static str {
    match status {
        AgentStatus::Online => "badge ok",
        AgentStatus::Degraded | AgentStatus::Pending => "badge warn",
        _ => "badge bad",
    }
}

pub fn alert_badge(status: AlertStatus) -> &'static str {
    match status {
        AlertStatus::Sent => "badge ok",
        AlertStatus::Failed => "badge bad",
        AlertStatus::Pending | AlertStatus::Superseded => "badge",
    }
}

/// A container's state: running is fine, anything else is trouble.
pub fn component_badge(status: ComponentStatus) -> &'static str {
    if status.is_running() {
        "badge ok"
    } else {
        "badge bad"
    }
}
