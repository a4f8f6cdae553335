//! Published services: the sidecar components on every Agent, as the
//! Services screen lists them, and why one has no `.knot` address yet
//! (DESIGN.md, "service without `.knot`").

use crate::api::{AgentView, ComponentView};
use crate::jobs::DeploySidecar;
use crate::Lang;

/// Why a service has no `.knot` address yet, in the order to look into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AddressPending {
    /// Its Agent is offline, disabled or gone: nothing can report it.
    AgentAway,
    /// Deploying it failed; Control tries again at `next_retry_at`.
    DeployFailed,
    /// Asked for, but no heartbeat has reported its container yet.
    NotStarted,
    /// The container exists but is not running (bad target or settings).
    NotRunning,
    /// Running, but it has not announced its address yet.
    IdentityNotSeen,
}

impl AddressPending {
    /// Why there is no `.knot` address yet, and what to do: the services
    /// screen and the network diagnosis say it alike.
    pub fn explained(self, lang: Lang) -> &'static str {
        use AddressPending::*;
        match (self, lang) {
            (AgentAway, Lang::En) => "its Agent is not online: nothing reports the sidecar. Bring the Agent back first.",
            (AgentAway, Lang::Ru) => "его Agent не в сети: о sidecar некому сообщить. Сначала верните Agent.",
            (DeployFailed, Lang::En) => "deploying the sidecar failed; Control tries again. The failed job says why.",
            (DeployFailed, Lang::Ru) => "развернуть sidecar не удалось; Control попробует снова. Причина — в проваленной задаче.",
            (NotStarted, Lang::En) => "the sidecar has not started yet: its deploy job may still be queued or running.",
            (NotStarted, Lang::Ru) => "sidecar ещё не запущен: задача на развёртывание может быть в очереди или выполняться.",
            (NotRunning, Lang::En) => "the sidecar's container is not running: check the target and the Docker network.",
            (NotRunning, Lang::Ru) => "контейнер sidecar не работает: проверьте цель и сеть Docker.",
            (IdentityNotSeen, Lang::En) => "the sidecar runs but has not announced its address yet; this usually takes under a minute once a Beacon is reachable.",
            (IdentityNotSeen, Lang::Ru) => "sidecar работает, но ещё не объявил адрес; обычно это меньше минуты, если Beacon доступен.",
        }
    }
}

/// `None` once the address is known.
pub fn address_pending(agent: &AgentView, sidecar: &ComponentView) -> Option<AddressPending> {
    if !sidecar.service.is_empty() {
        return None;
    }
    Some(if agent.status.is_away() {
        AddressPending::AgentAway
    } else if sidecar.next_retry_at.is_some() {
        AddressPending::DeployFailed
    } else if !sidecar.status.is_reported() {
        AddressPending::NotStarted
    } else if !sidecar.status.is_running() {
        AddressPending::NotRunning
    } else {
        AddressPending::IdentityNotSeen
    })
}

/// One published service: a sidecar and the Agent it runs on.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PublishedService {
    pub agent: AgentView,
    pub sidecar: ComponentView,
    /// What the admin asked for, when Control deployed it.
    pub spec: Option<DeploySidecar>,
    /// Its identity backups on the Agent's host, once one was taken.
    #[serde(default)]
    pub backup: Option<crate::backups::BackupState>,
    /// Its latest backup or verification job of the last week, if any.
    #[serde(default)]
    pub backup_job: Option<crate::backups::BackupJob>,
}

impl PublishedService {
    /// `sidecar` of `agent`; the Agent is kept without its component list.
    pub fn of(agent: &AgentView, sidecar: &ComponentView) -> Self {
        PublishedService {
            agent: AgentView {
                components: Vec::new(),
                ..agent.clone()
            },
            spec: sidecar
                .spec
                .as_ref()
                .and_then(|s| serde_json::from_value(s.clone()).ok()),
            sidecar: sidecar.clone(),
            backup: None,
            backup_job: None,
        }
    }

    /// Its network: the one Control deployed it for (an Agent's report never
    /// names one), else as its spec says.
    pub fn network_id(&self) -> Option<String> {
        self.sidecar
            .network_id
            .clone()
            .or_else(|| self.spec.as_ref().map(|s| s.network_id.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(status: &str, components: Vec<ComponentView>) -> AgentView {
        AgentView {
            id: crate::AgentId::derive(&[1; 32]),
            name: "edge".into(),
            hostname: String::new(),
            version: String::new(),
            tags: Vec::new(),
            docker_available: true,
            docker_version: String::new(),
            status: crate::AgentStatus::parse(status).unwrap(),
            reason: String::new(),
            reason_text: String::new(),
            last_heartbeat_at: None,
            last_seen_secs: None,
            moved_to: None,
            components,
            control_trust: None,
            key_fingerprint: String::new(),
        }
    }

    fn sidecar(name: &str, status: &str, service: &str) -> ComponentView {
        ComponentView {
            id: format!("sidecar-{name}"),
            kind: "sidecar".into(),
            name: name.into(),
            network_id: None,
            desired: true,
            status: status.into(),
            image: String::new(),
            version: String::new(),
            service: service.into(),
            restart_count: 0,
            last_error: String::new(),
            warnings: Vec::new(),
            next_retry_at: None,
            spec: None,
            catalog: Default::default(),
        }
    }

    #[test]
    fn the_likeliest_reason_for_a_missing_address_comes_first() {
        let online = agent("online", Vec::new());
        let offline = agent("offline", Vec::new());
        assert_eq!(
            address_pending(
                &online,
                &sidecar(
                    "a",
                    "running",
                    "umuxz2vrqhhpnmzqk5ycspnwjcgwjjljnngqghfxbar6lw5ar626lwyb.knot"
                )
            ),
            None
        );
        assert_eq!(
            address_pending(&offline, &sidecar("a", "", "")),
            Some(AddressPending::AgentAway)
        );
        let mut failed = sidecar("a", "", "");
        failed.next_retry_at = Some("2026-11-30T10:00:00Z".into());
        assert_eq!(
            address_pending(&online, &failed),
            Some(AddressPending::DeployFailed)
        );
        assert_eq!(
            address_pending(&online, &sidecar("a", "", "")),
            Some(AddressPending::NotStarted)
        );
        assert_eq!(
            address_pending(&online, &sidecar("a", "exited", "")),
            Some(AddressPending::NotRunning)
        );
        assert_eq!(
            address_pending(&online, &sidecar("a", "running", "")),
            Some(AddressPending::IdentityNotSeen)
        );
    }

    #[test]
    fn a_service_carries_its_deploy_spec_and_network_but_not_the_agents_other_components() {
        let beacon = {
            let mut b = sidecar("b", "running", "");
            b.kind = "beacon".into();
            b
        };
        let mut web = sidecar(
            "web",
            "running",
            "kau75ypsqmui5tbb7vggtka227chwgcp433dfabnvi6hqz6dbk6tdvzh.knot",
        );
        web.spec = Some(
            serde_json::json!({"name": "web", "network_id": crate::NetworkId::from_random_bytes([1; 32]).to_string(),
            "target": "app:8080", "docker_network": "apps", "beacons": ["https://b.example.net"]}),
        );
        let host = agent("online", vec![web.clone(), beacon]);
        let service = PublishedService::of(&host, &web);
        assert_eq!(service.spec.as_ref().unwrap().target, "app:8080");
        assert_eq!(
            service.network_id(),
            Some(crate::NetworkId::from_random_bytes([1; 32]).to_string())
        );
        assert!(service.agent.components.is_empty());
        assert_eq!(service.agent.status, crate::AgentStatus::Online);
        let reported_only = PublishedService::of(&host, &sidecar("api", "", ""));
        assert!(reported_only.spec.is_none() && reported_only.network_id().is_none());
    }
}
