//! Scheduled Beacon checks: every round, every Beacon URL of every profile
//! is checked (the same check as the "Check" button, kept as history), a
//! bounded number at a time and in random order, by exactly one replica: the
//! one that moves the round's lease on. Checks older than 30 days are pruned.

use crate::access::scope::NetworkScope;
use crate::beacons::checks::{AddressPolicy, BeaconChecks};
use crate::entities::schedule_lease;
use crate::networks::{NetworkError, Networks};
use crate::StoreError;
use chrono::{DateTime, Duration, Utc};
use futures_util::StreamExt;
use protocol::NetworkId;
use rand::seq::SliceRandom;
use rand::Rng;
use sea_orm::sea_query::OnConflict;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, Set};

pub const DEFAULT_INTERVAL_SECS: u32 = 60;
/// Checks in flight at once. Each waits at most `CHECK_TIMEOUT` (5 s), so a
/// round of 1,000 URLs that all time out still ends within 80 s; healthy
/// ones take milliseconds.
pub const CONCURRENCY: usize = 64;
/// How long a replica holds a claimed round before another may take it over.
pub const ROUND_LEASE: Duration = Duration::minutes(10);
pub use crate::beacons::history::HISTORY;
const LEASE: &str = "beacon_checks";

/// What one round did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RoundReport {
    pub checked: usize,
    pub failed: usize,
}

#[derive(Clone)]
pub struct BeaconSchedule {
    db: DatabaseConnection,
    checks: BeaconChecks,
    networks: Networks,
    interval: Duration,
}

impl BeaconSchedule {
    pub fn new(
        db: DatabaseConnection,
        checks: BeaconChecks,
        networks: Networks,
        interval: Duration,
    ) -> Self {
        Self {
            db,
            checks,
            networks,
            interval,
        }
    }

    /// Whether this replica runs the round due at `now`. The first call ever
    /// schedules the first round one interval ahead (a fresh start does not
    /// check at once); afterwards the replica whose update moves `next_at`
    /// on wins, and holds the round for up to [`ROUND_LEASE`] until
    /// [`Self::finish_round`] sets the next one: a slow round is not joined
    /// by a second one, and a replica that dies mid-round is replaced.
    pub async fn claim_round(&self, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let first = schedule_lease::ActiveModel {
            name: Set(LEASE.to_string()),
            next_at: Set(now + self.interval),
        };
        schedule_lease::Entity::insert(first)
            .on_conflict(
                OnConflict::column(schedule_lease::Column::Name)
                    .do_nothing()
                    .to_owned(),
            )
            .exec_without_returning(&self.db)
            .await?;
        let moved = schedule_lease::Entity::update_many()
            .col_expr(schedule_lease::Column::NextAt, (now + ROUND_LEASE).into())
            .filter(schedule_lease::Column::Name.eq(LEASE))
            .filter(schedule_lease::Column::NextAt.lte(now))
            .exec(&self.db)
            .await?;
        Ok(moved.rows_affected == 1)
    }

    /// Ends the round that began at `started`: the next is due one interval
    /// after that, give or take 10 % (so rounds do not fall into step with
    /// other periodic load), and not sooner than 5 s after `ended`.
    pub async fn finish_round(
        &self,
        started: DateTime<Utc>,
        ended: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let tenth = (self.interval.num_milliseconds() / 10).max(1);
        let jitter = Duration::milliseconds(rand::thread_rng().gen_range(-tenth..=tenth));
        let next = (started + self.interval + jitter).max(ended + Duration::seconds(5));
        schedule_lease::Entity::update_many()
            .col_expr(schedule_lease::Column::NextAt, next.into())
            .filter(schedule_lease::Column::Name.eq(LEASE))
            .exec(&self.db)
            .await?;
        Ok(())
    }

    /// Checks every Beacon URL of every profile once, each profile's as
    /// whoever listed its Beacons could check them.
    pub async fn run_round(&self) -> Result<RoundReport, NetworkError> {
        let private_ok = self.networks.beacons_may_be_private().await?;
        let mut targets: Vec<(NetworkId, String, AddressPolicy)> = self
            .networks
            .all(&NetworkScope::all())
            .await?
            .into_iter()
            .flat_map(|profile| {
                let id = profile.id;
                let policy = self
                    .checks
                    .policy_for_profile(private_ok.contains(id.as_str()));
                profile
                    .beacons
                    .into_iter()
                    .map(move |url| (id.clone(), url, policy))
            })
            .collect();
        // Random order: a slow Beacon does not always hold up the same others.
        targets.shuffle(&mut rand::thread_rng());
        let results: Vec<bool> = futures_util::stream::iter(targets)
            .map(|(network_id, url, policy)| {
                let checks = self.checks.clone();
                async move {
                    match checks.check_listed(&network_id, url, policy).await {
                        Ok(view) => Some(view.ok),
                        Err(e) => {
                            tracing::warn!(error = %e, "keeping a scheduled Beacon check failed");
                            None
                        }
                    }
                }
            })
            .buffer_unordered(CONCURRENCY)
            .filter_map(|ok| async move { ok })
            .collect()
            .await;
        Ok(RoundReport {
            checked: results.len(),
            failed: results.iter().filter(|ok| !**ok).count(),
        })
    }

    /// Deletes history older than [`HISTORY`] at `now`; returns how many rows.
    pub async fn prune(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        crate::beacons::history::prune(&self.db, now).await
    }

    /// Runs rounds for as long as Control runs. Every replica looks every few
    /// seconds whether a round is due; the lease lets one of them run it.
    pub fn spawn(self) {
        let look_every = std::time::Duration::from_secs(5).min(
            self.interval
                .to_std()
                .unwrap_or(std::time::Duration::from_secs(5)),
        );
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(look_every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                // The database's clock on PostgreSQL: replicas' clocks may differ.
                let started = crate::database_now(&self.db).await;
                match self.claim_round(started).await {
                    Ok(false) => continue,
                    Ok(true) => {}
                    Err(e) => {
                        tracing::warn!(error = %e, "scheduling Beacon checks failed");
                        continue;
                    }
                }
                let clock = std::time::Instant::now();
                match self.run_round().await {
                    Ok(report) => tracing::info!(
                        checked = report.checked,
                        failed = report.failed,
                        took_ms = clock.elapsed().as_millis() as u64,
                        "scheduled Beacon checks done"
                    ),
                    Err(e) => tracing::warn!(error = %e, "scheduled Beacon checks failed"),
                }
                let ended = crate::database_now(&self.db).await;
                if let Err(e) = self.finish_round(started, ended).await {
                    tracing::warn!(error = %e, "scheduling the next Beacon round failed");
                }
                match self.prune(ended).await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(deleted = n, "old Beacon checks pruned"),
                    Err(e) => tracing::warn!(error = %e, "pruning Beacon checks failed"),
                }
            }
        });
    }
}
