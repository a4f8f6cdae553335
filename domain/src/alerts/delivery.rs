//! Delivering queued alerts to the webhook: a JSON POST, retried with
//! backoff (10 s doubling to 10 min, at most [`MAX_ATTEMPTS`] tries), by one
//! replica at a time per alert (a short lease), plus the settings screen's
//! test alert.

use crate::access::principal::Granted;
use crate::access::roles::ChangeSettings;
use crate::address_policy::{refused_address, shown, AddressPolicy};
use crate::alerts::settings::{AlertError, Alerts};
use crate::entities::alert;
use crate::StoreError;
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use protocol::alerts::TestAlertOutcome;
use protocol::AlertStatus;
use sea_orm::sea_query::Condition;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set,
};
use std::net::IpAddr;
use std::sync::Arc;

pub const MAX_ATTEMPTS: i32 = 8;
/// Each delivery gives up after this long.
pub const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// A replica delivering an alert holds it this long.
const LEASE: Duration = Duration::seconds(60);
/// Alerts handed to one pass of the delivery loop.
const BATCH: u64 = 50;
/// Delivered, failed and superseded alerts are kept this long.
const KEPT: Duration = Duration::days(30);
/// How much of a refusal's body an alert keeps as its error.
const ERROR_MAX: usize = 300;
/// How much of a refusal's body is read at most (a receiver could send an
/// endless one); enough for [`ERROR_MAX`] characters of any script.
const ERROR_READ_MAX: usize = 4 * ERROR_MAX;

/// The wait after `attempts` failed deliveries.
pub fn retry_delay(attempts: i32) -> Duration {
    crate::doubling_backoff(Duration::seconds(10), Duration::minutes(10), attempts)
}

/// The client alerts are posted with; built once per Control (it keeps
/// connections to the webhook open between deliveries). It connects only to
/// addresses the Beacon-check policy allows, resolved by itself, and never
/// through a proxy named in the environment (that would resolve and connect
/// on its own, past the policy).
pub(crate) fn client(policy: AddressPolicy) -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .dns_resolver(Arc::new(PolicyResolver(policy)))
        .timeout(TIMEOUT)
        // A webhook that redirects elsewhere is a misconfiguration, not a hop to follow.
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("KnotRoute-Control/", env!("CARGO_PKG_VERSION")))
        .build()
        .expect("a client with static settings builds")
}

/// Resolves webhook host names and drops the addresses the policy refuses
/// (link-local and metadata always; private ones with
/// KNOTROUTE_CONTROL_ALLOW_PRIVATE_BEACONS=false), so a webhook cannot reach them.
struct PolicyResolver(AddressPolicy);

impl reqwest::dns::Resolve for PolicyResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = self.0;
        Box::pin(async move {
            let found: Vec<std::net::SocketAddr> =
                tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            let allowed: Vec<std::net::SocketAddr> = found
                .iter()
                .copied()
                .filter(|a| refused_address(a.ip(), policy).is_none())
                .collect();
            if allowed.is_empty() && !found.is_empty() {
                let why = refused_address(found[0].ip(), policy).unwrap_or("refused");
                return Err(format!(
                    "{} resolves to a {why} address, which alerts never reach",
                    name.as_str()
                )
                .into());
            }
            Ok(Box::new(allowed.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// Why an IP-literal webhook host is refused (the resolver never sees those).
fn refused_literal(url: &str, policy: AddressPolicy) -> Option<String> {
    let host = url::Url::parse(url).ok()?.host()?.to_owned();
    let ip: IpAddr = match host {
        url::Host::Ipv4(ip) => ip.into(),
        url::Host::Ipv6(ip) => ip.into(),
        url::Host::Domain(_) => return None,
    };
    refused_address(ip, policy).map(|why| {
        format!("{} is a {why} address, which alerts never reach (KNOTROUTE_CONTROL_ALLOW_PRIVATE_BEACONS)", shown(ip))
    })
}

/// POSTs `payload`; the receiver's status on 2xx, else why not.
async fn post(
    client: &reqwest::Client,
    policy: AddressPolicy,
    url: &str,
    payload: &str,
) -> Result<u16, String> {
    if let Some(refusal) = refused_literal(url, policy) {
        return Err(refusal);
    }
    let mut answer = client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(payload.to_string())
        .send()
        .await
        .map_err(|e| {
            // reqwest's error text names the URL, which may hold a token.
            let e = e.without_url();
            if e.is_timeout() {
                format!("no answer within {} s", TIMEOUT.as_secs())
            } else if e.is_connect() {
                // The cause (refused, unreachable, a refused address) is in the source chain.
                format!("cannot connect: {}", crate::beacons::checks::chain(&e))
            } else {
                e.to_string()
            }
        })?;
    let code = answer.status();
    if code.is_success() {
        return Ok(code.as_u16());
    }
    let body = crate::beacons::checks::body_excerpt(&mut answer, ERROR_READ_MAX).await;
    let excerpt: String = body.chars().take(ERROR_MAX).collect();
    Err(format!("HTTP {}: {}", code.as_u16(), excerpt.trim()))
}

impl Alerts {
    /// Sends every alert due at `now`; returns how many were delivered.
    pub async fn deliver_due(&self, now: DateTime<Utc>) -> Result<usize, StoreError> {
        let Some(url) = self.webhook().await? else {
            return Ok(0);
        };
        let free = Condition::any()
            .add(alert::Column::LeaseUntil.is_null())
            .add(alert::Column::LeaseUntil.lt(now));
        let due = alert::Entity::find()
            .filter(alert::Column::Status.eq(AlertStatus::Pending))
            .filter(alert::Column::SendAfter.lte(now))
            .filter(free.clone())
            .order_by_asc(alert::Column::Id)
            .limit(BATCH)
            .all(&self.db)
            .await?;
        let mut delivered = 0;
        for a in due {
            let claimed = alert::Entity::update_many()
                .col_expr(alert::Column::LeaseUntil, Some(now + LEASE).into())
                .filter(alert::Column::Id.eq(a.id))
                .filter(alert::Column::Status.eq(AlertStatus::Pending))
                .filter(free.clone())
                .exec(&self.db)
                .await?;
            if claimed.rows_affected != 1 {
                continue;
            }
            let attempts = a.attempts + 1;
            let mut row: alert::ActiveModel = a.clone().into();
            row.attempts = Set(attempts);
            row.lease_until = Set(None);
            match post(&self.client, self.policy, &url, &a.payload).await {
                Ok(_) => {
                    row.status = Set(AlertStatus::Sent);
                    row.sent_at = Set(Some(now));
                    row.last_error = Set(String::new());
                    delivered += 1;
                    tracing::info!(event = %a.event, key = %a.key, "alert delivered");
                }
                Err(why) => {
                    // The receiver's answer is its own text: escaped, so it
                    // cannot write a line of its own into Control's log.
                    let error = crate::text::for_log(&why, ERROR_MAX + 40);
                    tracing::warn!(event = %a.event, attempts, %error, "alert delivery failed");
                    if attempts >= MAX_ATTEMPTS {
                        row.status = Set(AlertStatus::Failed);
                    } else {
                        row.send_after = Set(now + retry_delay(attempts));
                    }
                    row.last_error = Set(why);
                }
            }
            // Writes only what was set above: a retry leaves the status alone,
            // so an alert superseded meanwhile stays superseded.
            row.update(&self.db).await?;
        }
        Ok(delivered)
    }

    /// Sends a test alert now and says how it went (no retries: the admin
    /// is watching). Kept in the list of recent alerts.
    /// `_by`: only the capability is asked for; a test alert is not audited.
    pub async fn send_test(
        &self,
        _by: &Granted<ChangeSettings>,
    ) -> Result<TestAlertOutcome, AlertError> {
        let Some(url) = self.webhook().await? else {
            return Ok(TestAlertOutcome {
                delivered: false,
                detail: "No webhook URL is set.".into(),
            });
        };
        let now = Utc::now();
        let text = "Test alert from KnotRoute Control: the webhook works.";
        let payload = serde_json::json!({
            "source": "knotroute-control",
            "event": "test",
            "text": text,
            "at": now.to_rfc3339_opts(SecondsFormat::Secs, true),
            "subject": {},
        })
        .to_string();
        let result = post(&self.client, self.policy, &url, &payload).await;
        let (state, detail) = match &result {
            Ok(code) => (
                AlertStatus::Sent,
                format!("The receiver answered HTTP {code}."),
            ),
            Err(why) => (AlertStatus::Failed, why.clone()),
        };
        alert::ActiveModel {
            key: Set("test".into()),
            event: Set("test".into()),
            state: Set("test".into()),
            payload: Set(payload),
            created_at: Set(now),
            send_after: Set(now),
            status: Set(state),
            attempts: Set(1),
            lease_until: Set(None),
            last_error: Set(result.as_ref().err().cloned().unwrap_or_default()),
            sent_at: Set(result.is_ok().then_some(now)),
            network_id: Set(None),
            agent_id: Set(None),
            ..Default::default()
        }
        .insert(&self.db)
        .await
        .map_err(StoreError)?;
        Ok(TestAlertOutcome {
            delivered: result.is_ok(),
            detail,
        })
    }

    /// Deletes finished alerts older than 30 days.
    pub async fn prune(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        Ok(alert::Entity::delete_many()
            .filter(alert::Column::Status.ne(AlertStatus::Pending))
            .filter(alert::Column::CreatedAt.lt(now - KEPT))
            .exec(&self.db)
            .await?
            .rows_affected)
    }

    /// Delivers alerts for as long as Control runs: when one is queued here,
    /// and every few seconds for retries and other replicas' alerts.
    pub fn spawn_delivery(self) {
        tokio::spawn(async move {
            let mut passes: u64 = 0;
            loop {
                tokio::select! {
                    _ = self.wake.notified() => {}
                    _ = tokio::time::sleep(std::time::Duration::from_secs(5)) => {}
                }
                let now = crate::database_now(&self.db).await;
                if let Err(e) = self.deliver_due(now).await {
                    tracing::warn!(error = %e, "delivering alerts failed");
                }
                passes += 1;
                if passes % 720 == 1 {
                    if let Err(e) = self.prune(now).await {
                        tracing::warn!(error = %e, "pruning alerts failed");
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deliveries_back_off_from_10_seconds_to_10_minutes() {
        let secs: Vec<i64> = (1..=8).map(|n| retry_delay(n).num_seconds()).collect();
        assert_eq!(secs, [10, 20, 40, 80, 160, 320, 600, 600]);
    }
}
