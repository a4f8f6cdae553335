//! Webhook alerts: when a watched thing changes state (an Agent goes
//! offline, a Beacon down, a service loses its `.knot` address, a job fails)
//! an alert is queued for the webhook. A thing's alerts are debounced: after
//! one is sent, the next waits out [`DEBOUNCE`], and a state that flapped
//! back meanwhile sends nothing. Delivery is in `alert_delivery`; what is
//! watched, and the words, in `alert_events`.

use crate::access::principal::Granted;
use crate::access::roles::ChangeSettings;
use crate::access::scope::NetworkScope;
use crate::entities::{alert, alert_state, setting};
use crate::{audit, StoreError};
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use protocol::alerts::{AlertSettings, AlertSettingsInput, AlertView};
use protocol::validation::FieldError;
use protocol::AlertStatus;
use sea_orm::sea_query::{Condition, OnConflict};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::Notify;

/// A thing sends at most one alert per this window.
pub const DEBOUNCE: Duration = Duration::minutes(5);
const WEBHOOK_SETTING: &str = "alert_webhook";
/// How many alerts the settings screen lists.
const RECENT: u64 = 20;

#[derive(Debug, thiserror::Error)]
pub enum AlertError {
    #[error("invalid input: {0:?}")]
    Invalid(Vec<FieldError>),
    /// KNOTROUTE_CONTROL_ALERT_WEBHOOK is set; the screen cannot change it.
    #[error("the webhook is set by KNOTROUTE_CONTROL_ALERT_WEBHOOK")]
    SetByEnvironment,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A watched thing's state, as just seen.
pub struct Observation {
    /// `agent:<id>`, `beacon:<url>`, `service:<agent>/<component>`, `job:<id>`.
    pub key: String,
    pub state: &'static str,
    /// The state that is news only right after an alert about another one
    /// (`online` after `offline`).
    pub healthy: &'static str,
    /// Whether the first state ever seen is news when it is not healthy (an
    /// Agent already offline is; a new sidecar without its address is not).
    pub news_when_first: bool,
    /// `agent.offline`, `beacon.up`, …
    pub event: &'static str,
    /// One sentence for a chat message.
    pub text: String,
    /// Identifiers of the thing, for automation.
    pub subject: serde_json::Value,
    /// Where the thing belongs, which decides who sees its alerts: its
    /// network, or else its Agent (an Agent belongs to the networks whose
    /// components it runs); neither for what concerns all (a test alert).
    pub place: Place,
}

/// Where an alert's thing belongs (`Observation::place`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    pub network_id: Option<String>,
    pub agent_id: Option<String>,
}

impl Place {
    pub fn network(id: Option<&str>) -> Self {
        Self {
            network_id: id.map(str::to_string),
            agent_id: None,
        }
    }

    pub fn agent(id: &str) -> Self {
        Self {
            network_id: None,
            agent_id: Some(id.to_string()),
        }
    }
}

#[derive(Clone)]
pub struct Alerts {
    pub(crate) db: DatabaseConnection,
    /// KNOTROUTE_CONTROL_ALERT_WEBHOOK, which overrides the settings screen.
    env_webhook: Option<Arc<str>>,
    /// Control's public URL, for links in alerts.
    control_url: Option<Arc<str>>,
    /// Wakes the delivery loop when an alert is queued.
    pub(crate) wake: Arc<Notify>,
    pub(crate) client: reqwest::Client,
    /// Which addresses webhook deliveries may reach.
    pub(crate) policy: crate::beacons::checks::AddressPolicy,
}

impl Alerts {
    pub fn new(
        db: DatabaseConnection,
        env_webhook: Option<String>,
        control_url: Option<String>,
        policy: crate::beacons::checks::AddressPolicy,
    ) -> Self {
        Self {
            db,
            env_webhook: env_webhook.map(Arc::from),
            control_url: control_url.map(Arc::from),
            wake: Arc::new(Notify::new()),
            client: crate::alerts::delivery::client(policy),
            policy,
        }
    }

    /// The webhook alerts go to, if any.
    pub async fn webhook(&self) -> Result<Option<String>, StoreError> {
        if let Some(url) = &self.env_webhook {
            return Ok(Some(url.to_string()));
        }
        Ok(setting::Entity::find_by_id(WEBHOOK_SETTING)
            .one(&self.db)
            .await?
            .map(|s| s.value)
            .filter(|v| !v.is_empty()))
    }

    /// What the settings screen shows to someone who sees `scope`: the
    /// recent alerts about things of their networks (one about an Agent
    /// counts when they see the Agent), none about what concerns all.
    pub async fn settings(&self, scope: &NetworkScope) -> Result<AlertSettings, StoreError> {
        let recent = alert::Entity::find()
            .filter(visible_in(scope))
            .order_by_desc(alert::Column::Id)
            .limit(RECENT)
            .all(&self.db)
            .await?
            .into_iter()
            .map(alert_view)
            .collect();
        Ok(AlertSettings {
            webhook: self
                .webhook()
                .await?
                .map(|url| protocol::alerts::redacted(&url)),
            from_environment: self.env_webhook.is_some(),
            recent,
        })
    }

    /// Sets (or, with an empty URL, clears) the webhook from the settings screen.
    pub async fn set_webhook(
        &self,
        by: &Granted<ChangeSettings>,
        input: &AlertSettingsInput,
    ) -> Result<AlertSettings, AlertError> {
        if self.env_webhook.is_some() {
            return Err(AlertError::SetByEnvironment);
        }
        let url = protocol::alerts::webhook_url(&input.webhook_url)
            .map_err(|e| AlertError::Invalid(vec![e]))?;
        setting::put(&self.db, WEBHOOK_SETTING, url.clone().unwrap_or_default()).await?;
        let detail = match &url {
            Some(url) => format!("alerts go to {}", protocol::alerts::redacted(url)),
            None => "alerts turned off".into(),
        };
        audit::record(
            &self.db,
            &by.actor(),
            "settings.alert_webhook",
            "alerts",
            &detail,
        )
        .await;
        Ok(self.settings(by.scope()).await?)
    }

    /// Records what was just seen; a change of state queues an alert. Never
    /// fails its caller: a problem is logged.
    pub async fn observe(&self, observations: Vec<Observation>, now: DateTime<Utc>) {
        if let Err(e) = self.try_observe(observations, now).await {
            tracing::warn!(error = %e, "recording alert states failed");
        }
    }

    async fn try_observe(
        &self,
        observations: Vec<Observation>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut known: HashMap<String, String> = HashMap::new();
        for chunk in observations.chunks(500) {
            let keys = chunk.iter().map(|o| o.key.clone());
            for row in alert_state::Entity::find()
                .filter(alert_state::Column::Key.is_in(keys))
                .all(&self.db)
                .await?
            {
                known.insert(row.key, row.state);
            }
        }
        for o in observations {
            // Compare-and-set: of several replicas seeing the same change,
            // exactly one moves the state on and queues the alert.
            let news = match known.get(&o.key) {
                Some(state) if state == o.state => continue,
                Some(state) => {
                    alert_state::Entity::update_many()
                        .col_expr(alert_state::Column::State, o.state.into())
                        .col_expr(alert_state::Column::ChangedAt, now.into())
                        .filter(alert_state::Column::Key.eq(o.key.as_str()))
                        .filter(alert_state::Column::State.eq(state.as_str()))
                        .exec(&self.db)
                        .await?
                        .rows_affected
                        == 1
                }
                None => {
                    let row = alert_state::ActiveModel {
                        key: Set(o.key.clone()),
                        state: Set(o.state.to_string()),
                        changed_at: Set(now),
                    };
                    let inserted = alert_state::Entity::insert(row)
                        .on_conflict(
                            OnConflict::column(alert_state::Column::Key)
                                .do_nothing()
                                .to_owned(),
                        )
                        .exec_without_returning(&self.db)
                        .await?;
                    inserted == 1 && o.news_when_first && o.state != o.healthy
                }
            };
            if news {
                self.queue(&o, now).await?;
            }
        }
        Ok(())
    }

    /// Queues an alert about `o`, debounced against the last one sent about
    /// the same thing. Nothing is queued while no webhook is set.
    pub async fn queue(&self, o: &Observation, now: DateTime<Utc>) -> Result<(), StoreError> {
        if self.webhook().await?.is_none() {
            return Ok(());
        }
        let last_sent = alert::Entity::find()
            .filter(alert::Column::Key.eq(o.key.as_str()))
            .filter(alert::Column::Status.eq(AlertStatus::Sent))
            .order_by_desc(alert::Column::Id)
            .one(&self.db)
            .await?;
        alert::Entity::update_many()
            .col_expr(alert::Column::Status, AlertStatus::Superseded.into())
            .filter(alert::Column::Key.eq(o.key.as_str()))
            .filter(alert::Column::Status.eq(AlertStatus::Pending))
            .exec(&self.db)
            .await?;
        // Back where the last alert left it (a flap inside the window, or a
        // recovery nobody was told was needed): nothing to say.
        let told = last_sent.as_ref().map_or(o.healthy, |a| a.state.as_str());
        if o.state == told {
            return Ok(());
        }
        let send_after = last_sent
            .and_then(|a| a.sent_at)
            .map(|at| at + DEBOUNCE)
            .filter(|at| *at > now)
            .unwrap_or(now);
        let payload = serde_json::json!({
            "source": "knotroute-control",
            "event": o.event,
            "text": o.text,
            "at": now.to_rfc3339_opts(SecondsFormat::Secs, true),
            "subject": o.subject,
            "control": self.control_url.as_deref(),
        });
        alert::ActiveModel {
            key: Set(o.key.clone()),
            event: Set(o.event.to_string()),
            state: Set(o.state.to_string()),
            payload: Set(payload.to_string()),
            created_at: Set(now),
            send_after: Set(send_after),
            status: Set(AlertStatus::Pending),
            attempts: Set(0),
            lease_until: Set(None),
            last_error: Set(String::new()),
            sent_at: Set(None),
            network_id: Set(o.place.network_id.clone()),
            agent_id: Set(o.place.agent_id.clone()),
            ..Default::default()
        }
        .insert(&self.db)
        .await?;
        tracing::info!(event = o.event, key = %o.key, "alert queued");
        self.wake.notify_one();
        Ok(())
    }
}

/// The alerts someone who sees `scope` may read: of a network in it, or,
/// placed by their Agent alone, of an Agent in it.
fn visible_in(scope: &NetworkScope) -> Condition {
    if scope.is_all() {
        return Condition::all();
    }
    Condition::any()
        .add(scope.condition(alert::Column::NetworkId))
        .add(
            Condition::all()
                .add(alert::Column::NetworkId.is_null())
                .add(scope.agents_condition(alert::Column::AgentId)),
        )
}

fn alert_view(a: alert::Model) -> AlertView {
    let text = serde_json::from_str::<serde_json::Value>(&a.payload)
        .ok()
        .and_then(|p| p["text"].as_str().map(str::to_string))
        .unwrap_or_default();
    AlertView {
        id: a.id,
        event: a.event,
        text,
        created_at: a.created_at.to_rfc3339_opts(SecondsFormat::Secs, true),
        status: a.status,
        attempts: a.attempts,
        last_error: a.last_error,
    }
}
