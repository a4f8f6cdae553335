//! What Agents report about Control's key in their heartbeats: which key
//! they pinned, and the answers they refused because that key did not sign
//! them. A refusal means a server pretending to be Control reached the
//! Agent (or a proxy changed an answer on the way): the admin sees it on the
//! Agent, with when it happened.

use crate::access::control_identity::ControlIdentity;
use crate::entities::agent_control_trust as trust;
use crate::text::bounded;
use crate::StoreError;
use chrono::{DateTime, Duration, TimeZone, Utc};
use protocol::agent::Heartbeat;
use sea_orm::sea_query::OnConflict;
use sea_orm::{DatabaseConnection, EntityTrait, Set};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How long a refused answer keeps the Agent marked degraded.
pub const REFUSAL_SHOWN_FOR: Duration = Duration::days(7);

#[derive(Clone)]
pub struct ControlTrust {
    db: DatabaseConnection,
    identity: ControlIdentity,
    /// The (pin, state) last written per Agent by this replica, so an
    /// unchanged pin costs no write per heartbeat.
    written: Arc<Mutex<HashMap<String, (String, &'static str)>>>,
}

impl ControlTrust {
    pub fn new(db: DatabaseConnection, identity: ControlIdentity) -> Self {
        Self {
            db,
            identity,
            written: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Records the pin and any refusals a heartbeat reports.
    pub async fn record(&self, agent_id: &str, heartbeat: &Heartbeat) -> Result<(), StoreError> {
        let pinned = heartbeat
            .control_key
            .as_deref()
            .map(|k| bounded(k, 64))
            .unwrap_or_default();
        let state = self.identity.pin_state(&pinned).await?;
        // An Agent repeats its refusals until an answer it trusts arrives
        // (never, for one on a retired key): count only those newer than
        // what is stored.
        let mut refused: Vec<&protocol::agent::RefusedAnswer> = Vec::new();
        for r in &heartbeat.refused_answers {
            // Signed by Control's own keys, refused for an out-of-date pin:
            // the pin state tells that story, no impostor was there.
            let mut own = r.reason == "other_key" && !r.signed_by.is_empty();
            for f in r.signed_by.iter().take(4) {
                own = own && self.identity.is_own_fingerprint(f).await.unwrap_or(false);
            }
            if !own {
                refused.push(r);
            }
        }
        if !refused.is_empty() {
            let stored_at = trust::Entity::find_by_id(agent_id)
                .one(&self.db)
                .await?
                .and_then(|t| t.refused_at)
                .map(|t| t.timestamp());
            if let Some(stored_at) = stored_at {
                refused.retain(|r| r.at > stored_at);
            }
        }
        let unchanged = self
            .written
            .lock()
            .expect("not poisoned")
            .get(agent_id)
            .is_some_and(|(p, s)| *p == pinned && *s == state);
        if unchanged && refused.is_empty() {
            return Ok(());
        }
        let now = Utc::now();
        let mut row = trust::ActiveModel {
            agent_id: Set(agent_id.to_string()),
            pinned_key: Set(pinned.clone()),
            pin_state: Set(state.to_string()),
            updated_at: Set(now),
            refused_count: Set(0),
            ..Default::default()
        };
        let mut columns = vec![
            trust::Column::PinnedKey,
            trust::Column::PinState,
            trust::Column::UpdatedAt,
        ];
        // Only the newest refusal is kept in words; the count adds up all.
        let count = refused.len().min(1000) as i64;
        if let Some(last) = refused.iter().max_by_key(|r| r.at) {
            let at = Utc
                .timestamp_opt(last.at, 0)
                .single()
                .filter(|t| *t <= now + Duration::minutes(5))
                .unwrap_or(now);
            let what = if last.job_kind.is_empty() {
                format!("an answer to {}", bounded(&last.path, 80))
            } else {
                format!("a {} job", bounded(&last.job_kind, 40))
            };
            row.refused_at = Set(Some(at));
            row.refused_reason = Set(bounded(&last.reason, 40));
            row.refused_detail = Set(bounded(&format!("{what}: {}", last.detail), 1000));
            row.refused_count = Set(count);
            columns.extend([
                trust::Column::RefusedAt,
                trust::Column::RefusedReason,
                trust::Column::RefusedDetail,
            ]);
        }
        let mut on_conflict = OnConflict::column(trust::Column::AgentId);
        on_conflict.update_columns(columns);
        if count > 0 {
            on_conflict.value(
                trust::Column::RefusedCount,
                sea_orm::sea_query::Expr::col((trust::Entity, trust::Column::RefusedCount))
                    .add(count),
            );
            tracing::error!(
                agent_id,
                refused = count,
                "the Agent refused answers not signed by Control's key: a server pretending to be Control reached it"
            );
        }
        trust::Entity::insert(row)
            .on_conflict(on_conflict)
            .exec(&self.db)
            .await?;
        self.written
            .lock()
            .expect("not poisoned")
            .insert(agent_id.to_string(), (pinned, state));
        Ok(())
    }
}

/// What an Agent's report means for the admin: a reason code and a sentence,
/// when something is wrong. A pin on a key that no longer signs comes first:
/// it explains the refusals such an Agent reports. Then a refusal in the
/// last week: a server pretending to be Control reached it.
pub fn trust_problem(t: &trust::Model, now: DateTime<Utc>) -> Option<(&'static str, String)> {
    match t.pin_state.as_str() {
        "retired" => return Some((
            "control_key_retired",
            "This Agent trusts a Control key that was retired while it was offline, so it refuses every job. Re-pin it with a move token (handbook, Operations: Re-pinning an Agent).".into(),
        )),
        "unknown" => return Some((
            "control_key_unknown",
            "This Agent trusts a key that is not this Control's, so it refuses every job. Re-pin it with a move token (handbook, Operations: Re-pinning an Agent).".into(),
        )),
        _ => {}
    }
    let at = t.refused_at.filter(|at| now - *at < REFUSAL_SHOWN_FOR)?;
    Some((
        "impostor_control",
        format!(
            "A server pretending to be Control reached this Agent: at {} it refused {} (nothing ran).",
            at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            t.refused_detail
        ),
    ))
}
