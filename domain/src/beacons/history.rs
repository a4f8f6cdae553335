//! A Beacon URL's check history: every check kept raw (pruned after 30
//! days), and what the screens read instead of it — the latest check and
//! the last failure per URL, and hourly roll-ups for the 24-hour sparkline.
//! All three are written in one transaction per check.

use crate::entities::{beacon_check, beacon_check_hour, beacon_status};
use crate::rfc3339;
use crate::StoreError;
use chrono::{DateTime, Duration, DurationRound, Utc};
use protocol::beacons::{BeaconCheckView, CheckClass, LatencyHour};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, Set};
use std::collections::HashMap;

/// Raw checks are kept this long.
pub const HISTORY: Duration = Duration::days(30);
/// Hourly roll-ups are kept this long (the sparkline shows 24 hours).
const HOURS_KEPT: Duration = Duration::hours(48);

/// One check's outcome, as stored.
pub struct CheckRecord {
    pub network_id: String,
    pub url: String,
    pub at: DateTime<Utc>,
    pub latency_ms: Option<i32>,
    pub class: CheckClass,
    pub detail: String,
}

fn hour_of(at: DateTime<Utc>) -> DateTime<Utc> {
    at.duration_trunc(Duration::hours(1)).unwrap_or(at)
}

/// Keeps one check: its raw row, the URL's latest state and its hour.
pub async fn record(
    db: &DatabaseConnection,
    check: CheckRecord,
) -> Result<beacon_check::Model, StoreError> {
    let ok = check.class == CheckClass::Ok;
    let latency = if ok { check.latency_ms.unwrap_or(0) } else { 0 };
    let txn = crate::begin_write(db).await?;
    let row = beacon_check::ActiveModel {
        network_id: Set(check.network_id.clone()),
        url: Set(check.url.clone()),
        checked_at: Set(check.at),
        ok: Set(ok),
        latency_ms: Set(check.latency_ms),
        class: Set(check.class.as_str().to_string()),
        detail: Set(check.detail.clone()),
        ..Default::default()
    }
    .insert(&txn)
    .await?;

    use beacon_status::Column as S;
    let failure = |value: String| if ok { String::new() } else { value };
    let status = beacon_status::ActiveModel {
        network_id: Set(check.network_id.clone()),
        url: Set(check.url.clone()),
        checked_at: Set(check.at),
        ok: Set(ok),
        latency_ms: Set(check.latency_ms),
        class: Set(check.class.as_str().to_string()),
        detail: Set(check.detail.clone()),
        failed_at: Set((!ok).then_some(check.at)),
        failure_class: Set(failure(check.class.as_str().to_string())),
        failure_detail: Set(failure(check.detail.clone())),
    };
    // A success leaves the last failure as it was.
    let mut kept = vec![S::CheckedAt, S::Ok, S::LatencyMs, S::Class, S::Detail];
    if !ok {
        kept.extend([S::FailedAt, S::FailureClass, S::FailureDetail]);
    }
    beacon_status::Entity::insert(status)
        .on_conflict(
            OnConflict::columns([S::NetworkId, S::Url])
                .update_columns(kept)
                .to_owned(),
        )
        .exec_without_returning(&txn)
        .await?;

    use beacon_check_hour::Column as H;
    let hour = beacon_check_hour::ActiveModel {
        network_id: Set(check.network_id),
        url: Set(check.url),
        hour: Set(hour_of(check.at)),
        checks: Set(1),
        failures: Set(i32::from(!ok)),
        latency_sum_ms: Set(i64::from(latency)),
        latency_max_ms: Set(latency),
    };
    beacon_check_hour::Entity::insert(hour)
        .on_conflict(
            OnConflict::columns([H::NetworkId, H::Url, H::Hour])
                .value(H::Checks, Expr::cust("beacon_check_hours.checks + 1"))
                .value(
                    H::Failures,
                    Expr::cust("beacon_check_hours.failures + excluded.failures"),
                )
                .value(
                    H::LatencySumMs,
                    Expr::cust("beacon_check_hours.latency_sum_ms + excluded.latency_sum_ms"),
                )
                .value(
                    H::LatencyMaxMs,
                    Expr::cust(
                        "CASE WHEN excluded.latency_max_ms > beacon_check_hours.latency_max_ms \
                         THEN excluded.latency_max_ms ELSE beacon_check_hours.latency_max_ms END",
                    ),
                )
                .to_owned(),
        )
        .exec_without_returning(&txn)
        .await?;
    txn.commit().await?;
    Ok(row)
}

pub fn check_view(row: beacon_check::Model) -> BeaconCheckView {
    let c = StoredCheck {
        at: row.checked_at,
        ok: row.ok,
        latency_ms: row.latency_ms,
        class: &row.class,
        detail: row.detail.clone(),
    };
    c.view(row.network_id, row.url)
}

/// A check as a row keeps it, whichever table.
struct StoredCheck<'a> {
    at: DateTime<Utc>,
    ok: bool,
    latency_ms: Option<i32>,
    class: &'a str,
    detail: String,
}

impl StoredCheck<'_> {
    fn view(self, network_id: String, url: String) -> BeaconCheckView {
        BeaconCheckView {
            network_id,
            url,
            checked_at: rfc3339(self.at),
            ok: self.ok,
            latency_ms: self.latency_ms.and_then(|ms| u32::try_from(ms).ok()),
            class: CheckClass::parse(self.class).unwrap_or(CheckClass::Connect),
            detail: self.detail,
        }
    }
}

/// A URL's latest check and its last failure.
pub struct Health {
    pub last_check: BeaconCheckView,
    pub last_failure: Option<BeaconCheckView>,
}

impl From<beacon_status::Model> for Health {
    fn from(s: beacon_status::Model) -> Self {
        let last_failure = s.failed_at.map(|at| {
            let failure = StoredCheck {
                at,
                ok: false,
                latency_ms: None,
                class: &s.failure_class,
                detail: s.failure_detail.clone(),
            };
            failure.view(s.network_id.clone(), s.url.clone())
        });
        let latest = StoredCheck {
            at: s.checked_at,
            ok: s.ok,
            latency_ms: s.latency_ms,
            class: &s.class,
            detail: s.detail,
        };
        Health {
            last_check: latest.view(s.network_id, s.url),
            last_failure,
        }
    }
}

/// Every checked URL's health, by (network ID, URL).
pub async fn health(
    db: &DatabaseConnection,
) -> Result<HashMap<(String, String), Health>, StoreError> {
    Ok(beacon_status::Entity::find()
        .all(db)
        .await?
        .into_iter()
        .map(|s| ((s.network_id.clone(), s.url.clone()), Health::from(s)))
        .collect())
}

/// The 24 hours up to `now` of every checked URL, by (network ID, URL).
pub async fn last_24h(
    db: &DatabaseConnection,
    now: DateTime<Utc>,
) -> Result<HashMap<(String, String), Vec<LatencyHour>>, StoreError> {
    let first = hour_of(now) - Duration::hours(23);
    let rows = beacon_check_hour::Entity::find()
        .filter(beacon_check_hour::Column::Hour.gte(first))
        .all(db)
        .await?;
    let mut by_url: HashMap<(String, String), Vec<beacon_check_hour::Model>> = HashMap::new();
    for row in rows {
        by_url
            .entry((row.network_id.clone(), row.url.clone()))
            .or_default()
            .push(row);
    }
    Ok(by_url
        .into_iter()
        .map(|(key, rows)| (key, day_of_hours(&rows, first)))
        .collect())
}

/// 24 entries from `first`, hour by hour; hours without checks are empty.
fn day_of_hours(rows: &[beacon_check_hour::Model], first: DateTime<Utc>) -> Vec<LatencyHour> {
    (0..24)
        .map(|i| {
            let hour = first + Duration::hours(i);
            let Some(row) = rows.iter().find(|r| r.hour == hour) else {
                return LatencyHour {
                    hour: rfc3339(hour),
                    ..Default::default()
                };
            };
            let succeeded = (row.checks - row.failures).max(0);
            let clamp = |ms: i64| u32::try_from(ms.max(0)).unwrap_or(u32::MAX);
            LatencyHour {
                hour: rfc3339(hour),
                checks: row.checks.max(0) as u32,
                failures: row.failures.max(0) as u32,
                mean_ms: (succeeded > 0).then(|| clamp(row.latency_sum_ms / i64::from(succeeded))),
                max_ms: (succeeded > 0).then(|| clamp(i64::from(row.latency_max_ms))),
            }
        })
        .collect()
}

/// Deletes raw checks older than [`HISTORY`], roll-ups older than two days
/// and the state of URLs not checked for [`HISTORY`]; returns how many rows.
pub async fn prune(db: &DatabaseConnection, now: DateTime<Utc>) -> Result<u64, StoreError> {
    let raw = beacon_check::Entity::delete_many()
        .filter(beacon_check::Column::CheckedAt.lt(now - HISTORY))
        .exec(db)
        .await?;
    let hours = beacon_check_hour::Entity::delete_many()
        .filter(beacon_check_hour::Column::Hour.lt(now - HOURS_KEPT))
        .exec(db)
        .await?;
    let states = beacon_status::Entity::delete_many()
        .filter(beacon_status::Column::CheckedAt.lt(now - HISTORY))
        .exec(db)
        .await?;
    Ok(raw.rows_affected + hours.rows_affected + states.rows_affected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_has_24_hours_with_means_over_successful_checks_only() {
        let first = hour_of(Utc::now()) - Duration::hours(23);
        let row = |h: i64, checks, failures, sum, max| beacon_check_hour::Model {
            network_id: "n".into(),
            url: "u".into(),
            hour: first + Duration::hours(h),
            checks,
            failures,
            latency_sum_ms: sum,
            latency_max_ms: max,
        };
        let day = day_of_hours(&[row(0, 60, 0, 600, 40), row(23, 4, 4, 0, 0)], first);
        assert_eq!(day.len(), 24);
        assert_eq!((day[0].mean_ms, day[0].max_ms), (Some(10), Some(40)));
        assert_eq!((day[1].checks, day[1].mean_ms), (0, None));
        assert_eq!((day[23].failures, day[23].mean_ms), (4, None));
    }
}
