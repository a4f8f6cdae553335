//! Enrollment: an Agent presents its public key with the shared token or a
//! one-time install token and gets its Agent ID. Every attempt, accepted or
//! refused, goes to the enrollment log with its reason and client address;
//! repeated refusals from one address for one reason fold into one line, so
//! a flood of attempts cannot grow the log (nor the audit log) row by row.

use crate::access::scope::NetworkScope;
use crate::access::secrets::{secret_matches, token_hash};
use crate::agents::approval::{self, AgentApproval};
use crate::agents::install_tokens;
use crate::agents::revoked_keys;
use crate::entities::agent::Retirement;
use crate::entities::{agent, component, enrollment_log, install_token};
use crate::text::{bounded, bounded_list, limits};
use crate::{audit, split_page, StoreError};
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use protocol::agent::EnrollRequest;
use protocol::api::EnrollmentAttempt;
use protocol::extensions::Extensions;
use protocol::signing::AgentPublicKey;
use protocol::InstallTokenState;
use protocol::{AgentId, Lang};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};

/// Refused enrollments from one client within this window before it is throttled.
pub const ENROLL_REFUSALS_MAX: i64 = 20;
/// Also how long one log line keeps counting the same refusal: a line spans
/// at most this long, so the throttle can count attempts by line.
pub const ENROLL_WINDOW: Duration = Duration::minutes(10);

/// Why an enrollment was refused; the code is what the enrollment log shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnrollRefusal {
    BadToken,
    InstallTokenExpired,
    InstallTokenUsed,
    InstallTokenRevoked,
    MalformedKey,
    Throttled,
    /// The key belongs to a revoked Agent record.
    AgentRevoked,
    /// The key belongs to a record that moved to another host.
    AgentMoved,
    /// A move token was used with a key that is already enrolled.
    KeyInUse,
}

impl EnrollRefusal {
    pub fn code(self) -> &'static str {
        match self {
            EnrollRefusal::BadToken => "bad_token",
            EnrollRefusal::InstallTokenExpired => "install_token_expired",
            EnrollRefusal::InstallTokenUsed => "install_token_used",
            EnrollRefusal::InstallTokenRevoked => "install_token_revoked",
            EnrollRefusal::MalformedKey => "malformed_key",
            EnrollRefusal::Throttled => "throttled",
            EnrollRefusal::AgentRevoked => "agent_revoked",
            EnrollRefusal::AgentMoved => "agent_moved",
            EnrollRefusal::KeyInUse => "key_in_use",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EnrollError {
    #[error("enrollment refused: {}", .0.code())]
    Refused(EnrollRefusal),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What let a request enroll.
enum Grant {
    Shared,
    Install(install_token::Model),
}

#[derive(Clone)]
pub struct Enrollment {
    db: DatabaseConnection,
    enroll_token: std::sync::Arc<str>,
    /// Told of each Agent that begins to wait for approval.
    approval: AgentApproval,
}

impl Enrollment {
    pub fn new(db: DatabaseConnection, enroll_token: &str, approval: AgentApproval) -> Self {
        Self {
            db,
            enroll_token: enroll_token.into(),
            approval,
        }
    }

    /// Enrolls (or re-enrolls) the key in `request`. The same key always gets
    /// the same Agent ID; its name and tags are refreshed. An install token is
    /// used up by the enrollment it allows (the same key may repeat it until
    /// the token expires or is revoked, so a lost answer can be retried); a
    /// move token hands the old record's desired components to the new Agent.
    /// A revoked key is refused, even once its Agent record is deleted.
    /// `extensions` is what the Agent announced (`X-Knot-Extensions`): what
    /// Control may send it from now on.
    pub async fn enroll(
        &self,
        request: &EnrollRequest,
        client: &str,
        extensions: Extensions,
    ) -> Result<AgentId, EnrollError> {
        let now = Utc::now();
        let name = bounded(&request.name, limits::NAME);
        let key = AgentPublicKey::parse(&request.public_key).ok();
        let agent_id = key.as_ref().map(AgentPublicKey::agent_id);
        let log = LogLine {
            at: now,
            client,
            agent_id: agent_id.as_ref().map(ToString::to_string),
            name: name.clone(),
        };
        let outcome = self
            .admit(request, key.is_some(), agent_id.as_ref(), client, now)
            .await?;
        let grant = match outcome {
            Ok(grant) => grant,
            Err(refusal) => return Err(self.refuse(&log, refusal).await),
        };
        let (key, agent_id) = (
            key.expect("admit checked the key"),
            agent_id.expect("admit checked the key"),
        );
        let txn = crate::begin_write(&self.db).await?;
        let (mut name, mut tags) = (name, bounded_list(&request.tags, limits::TAGS, limits::TAG));
        let mut replaces = None;
        let mut named_by_admin = false;
        if let Grant::Install(token) = &grant {
            // Conditional, so two hosts racing with one token cannot both win,
            // and a token revoked or expired meanwhile ends a repeat's grace.
            let claim = install_token::Entity::update_many()
                .col_expr(
                    install_token::Column::UsedBy,
                    Some(agent_id.to_string()).into(),
                )
                .filter(install_token::Column::Id.eq(token.id.as_str()))
                .filter(install_token::Column::RevokedAt.is_null())
                .filter(install_token::Column::ExpiresAt.gt(now));
            let repeat = token.used_by.as_deref() == Some(agent_id.as_str());
            let claim = if repeat {
                claim.filter(install_token::Column::UsedBy.eq(agent_id.as_str()))
            } else {
                claim
                    .col_expr(install_token::Column::UsedAt, Some(now).into())
                    .filter(install_token::Column::UsedAt.is_null())
            };
            if claim.exec(&txn).await?.rows_affected == 0 {
                drop(txn);
                return Err(self.refuse(&log, EnrollRefusal::InstallTokenUsed).await);
            }
            if !token.name.is_empty() {
                name = token.name.clone();
                named_by_admin = true;
            }
            let token_tags: Vec<String> = serde_json::from_str(&token.tags).unwrap_or_default();
            if !token_tags.is_empty() {
                tags = token_tags;
                named_by_admin = true;
            }
            replaces = token.replaces_agent.clone();
        }
        let display_name = if name.is_empty() {
            agent_id.to_string()
        } else {
            name.clone()
        };
        // The shared token lets anyone who knows it enroll, so its Agents
        // wait for an admin; an install token's Agent was approved by the
        // admin who made it (unless they asked otherwise).
        let approved_by_token = matches!(&grant, Grant::Install(t) if !t.needs_approval);
        let waits_if_new = match &grant {
            Grant::Shared => approval::required(&txn).await?,
            Grant::Install(t) => t.needs_approval,
        };
        let was_waiting = agent::Entity::find_by_id(agent_id.as_str())
            .one(&txn)
            .await?
            .map(|a| a.pending);
        let waits = match was_waiting {
            None => waits_if_new,
            Some(waiting) => waiting && !approved_by_token,
        };
        let new_row = NewAgent {
            id: &agent_id,
            key: &key,
            name: &display_name,
            tags: &tags,
            named_by_admin,
            pending: waits,
            extensions,
        };
        upsert_agent(&txn, new_row, approved_by_token, now).await?;
        if let Some(old) = &replaces {
            if !take_over(&txn, old, agent_id.as_str()).await? {
                // The record was taken over, revoked or deleted meanwhile.
                drop(txn);
                return Err(self.refuse(&log, EnrollRefusal::InstallTokenRevoked).await);
            }
        }
        log.write(&txn, true, "accepted").await?;
        txn.commit().await?;
        tracing::info!(client, agent_id = %agent_id, pending = waits, "agent enrolled");
        let how = match (&grant, &replaces) {
            (Grant::Shared, _) => "shared enrollment token".to_string(),
            (Grant::Install(t), None) => format!("install token {}", t.id),
            (Grant::Install(t), Some(old)) => format!("install token {} (moved from {old})", t.id),
        };
        let waiting = if waits { "; waits for approval" } else { "" };
        audit::record(
            &self.db,
            &audit::agent_actor(agent_id.as_str()),
            "agent.enrolled",
            agent_id.as_str(),
            &format!("from {client} with {how}{waiting}"),
        )
        .await;
        if waits && was_waiting != Some(true) {
            self.approval
                .announce(&agent_id, &display_name, client)
                .await;
        }
        Ok(agent_id)
    }

    /// Decides whether the request may enroll, in the order an operator
    /// would want the reason: throttling, token, key, then the key's record.
    async fn admit(
        &self,
        request: &EnrollRequest,
        key_ok: bool,
        agent_id: Option<&AgentId>,
        client: &str,
        now: DateTime<Utc>,
    ) -> Result<Result<Grant, EnrollRefusal>, StoreError> {
        // Lines with an attempt in the window; each spans at most the window,
        // so this counts the refusals of the last 10 to 20 minutes.
        let refusals: i64 = enrollment_log::Entity::find()
            .select_only()
            .column(enrollment_log::Column::Attempts)
            .filter(enrollment_log::Column::Client.eq(client))
            .filter(enrollment_log::Column::Accepted.eq(false))
            .filter(enrollment_log::Column::At.gt(now - ENROLL_WINDOW))
            .into_tuple::<i64>()
            .all(&self.db)
            .await?
            .iter()
            .sum();
        if refusals >= ENROLL_REFUSALS_MAX {
            return Ok(Err(EnrollRefusal::Throttled));
        }
        let grant = if secret_matches(&request.token, &self.enroll_token) {
            Grant::Shared
        } else {
            let token = request.token.trim();
            let found = if token.starts_with(install_tokens::TOKEN_PREFIX) {
                install_token::Entity::find()
                    .filter(install_token::Column::TokenHash.eq(token_hash(token)))
                    .one(&self.db)
                    .await?
            } else {
                None
            };
            let Some(found) = found else {
                return Ok(Err(EnrollRefusal::BadToken));
            };
            let repeat = found.used_by.is_some()
                && found.used_by.as_deref() == agent_id.map(AgentId::as_str);
            match install_tokens::state(&found, now) {
                InstallTokenState::Revoked => return Ok(Err(EnrollRefusal::InstallTokenRevoked)),
                InstallTokenState::Used if !repeat => {
                    return Ok(Err(EnrollRefusal::InstallTokenUsed))
                }
                // The repeat grace (a lost answer retried) lasts as long as
                // the token would have, and revoking the token ends it.
                InstallTokenState::Used if found.expires_at <= now => {
                    return Ok(Err(EnrollRefusal::InstallTokenExpired))
                }
                InstallTokenState::Expired => return Ok(Err(EnrollRefusal::InstallTokenExpired)),
                InstallTokenState::Used | InstallTokenState::Active => Grant::Install(found),
            }
        };
        let Some(agent_id) = agent_id.filter(|_| key_ok) else {
            return Ok(Err(EnrollRefusal::MalformedKey));
        };
        // Outlives the Agent record: deleting a revoked Agent does not let it back.
        if revoked_keys::is_revoked(&self.db, agent_id.as_str()).await? {
            return Ok(Err(EnrollRefusal::AgentRevoked));
        }
        let existing = agent::Entity::find_by_id(agent_id.as_str())
            .one(&self.db)
            .await?;
        match existing.as_ref().map(|a| a.retired) {
            Some(Retirement::Revoked) => return Ok(Err(EnrollRefusal::AgentRevoked)),
            Some(Retirement::Moved) => return Ok(Err(EnrollRefusal::AgentMoved)),
            _ => {}
        }
        if let Grant::Install(token) = &grant {
            let moving_onto_other_record = token.replaces_agent.is_some()
                && existing.is_some()
                && token.used_by.as_deref() != Some(agent_id.as_str());
            if moving_onto_other_record {
                return Ok(Err(EnrollRefusal::KeyInUse));
            }
        }
        Ok(Ok(grant))
    }

    /// Logs a refusal. Only the first of a run of the same refusal from one
    /// address opens a log line, an audit line and a warning; the rest are counted.
    async fn refuse(&self, log: &LogLine<'_>, refusal: EnrollRefusal) -> EnrollError {
        let opened = match log.fold_refusal(&self.db, refusal.code()).await {
            Ok(opened) => opened,
            Err(e) => return e.into(),
        };
        if !opened {
            tracing::debug!(
                client = log.client,
                reason = refusal.code(),
                "enrollment refused again"
            );
            return EnrollError::Refused(refusal);
        }
        tracing::warn!(
            client = log.client,
            reason = refusal.code(),
            "enrollment refused"
        );
        let subject = log.agent_id.clone().unwrap_or_default();
        audit::record(
            &self.db,
            log.client,
            "agent.enroll_refused",
            &subject,
            refusal.code(),
        )
        .await;
        EnrollError::Refused(refusal)
    }

    /// The enrollment log, newest first; `before` is the last `id` of the
    /// previous page. Enrollments belong to no network: someone who sees only
    /// some reads none.
    pub async fn log(
        &self,
        scope: &NetworkScope,
        before: Option<i64>,
        limit: u64,
        lang: Lang,
    ) -> Result<(Vec<EnrollmentAttempt>, Option<String>), StoreError> {
        if !scope.is_all() {
            return Ok((Vec::new(), None));
        }
        let limit = limit.clamp(1, 500);
        let mut query = enrollment_log::Entity::find()
            .order_by_desc(enrollment_log::Column::Id)
            .limit(limit + 1);
        if let Some(before) = before {
            query = query.filter(enrollment_log::Column::Id.lt(before));
        }
        let mut rows = query.all(&self.db).await?;
        let next = split_page(&mut rows, limit, |r| r.id.to_string());
        Ok((
            rows.iter()
                .map(|r| EnrollmentAttempt {
                    at: r.at.to_rfc3339_opts(SecondsFormat::Secs, true),
                    first_at: r.first_at.to_rfc3339_opts(SecondsFormat::Secs, true),
                    attempts: r.attempts.max(1) as u64,
                    client: r.client.clone(),
                    agent_id: r.agent_id.clone(),
                    name: r.name.clone(),
                    accepted: r.accepted,
                    reason: r.reason.clone(),
                    reason_text: protocol::agent::enrollment_reason(&r.reason, lang).to_string(),
                })
                .collect(),
            next,
        ))
    }
}

struct LogLine<'a> {
    at: DateTime<Utc>,
    client: &'a str,
    agent_id: Option<String>,
    name: String,
}

impl LogLine<'_> {
    async fn write(
        &self,
        db: &impl ConnectionTrait,
        accepted: bool,
        reason: &str,
    ) -> Result<(), StoreError> {
        enrollment_log::ActiveModel {
            at: Set(self.at),
            first_at: Set(self.at),
            attempts: Set(1),
            client: Set(self.client.to_string()),
            agent_id: Set(self.agent_id.clone()),
            name: Set(self.name.clone()),
            accepted: Set(accepted),
            reason: Set(reason.to_string()),
            ..Default::default()
        }
        .insert(db)
        .await?;
        Ok(())
    }

    /// Counts a refusal into this address's open line for the reason (opened
    /// less than [`ENROLL_WINDOW`] ago), or opens one. True when it opened one.
    /// The latest name and key are kept: the line says what was last tried.
    async fn fold_refusal(
        &self,
        db: &impl ConnectionTrait,
        reason: &str,
    ) -> Result<bool, StoreError> {
        let open = enrollment_log::Entity::find()
            .select_only()
            .column(enrollment_log::Column::Id)
            .filter(enrollment_log::Column::Client.eq(self.client))
            .filter(enrollment_log::Column::Accepted.eq(false))
            .filter(enrollment_log::Column::Reason.eq(reason))
            .filter(enrollment_log::Column::FirstAt.gt(self.at - ENROLL_WINDOW))
            .order_by_desc(enrollment_log::Column::Id)
            .into_tuple::<i64>()
            .one(db)
            .await?;
        if let Some(id) = open {
            // Incremented in the database, so replicas counting at once lose nothing.
            let counted = enrollment_log::Entity::update_many()
                .col_expr(
                    enrollment_log::Column::Attempts,
                    Expr::col(enrollment_log::Column::Attempts).add(1),
                )
                .col_expr(enrollment_log::Column::At, self.at.into())
                .col_expr(
                    enrollment_log::Column::AgentId,
                    self.agent_id.clone().into(),
                )
                .col_expr(enrollment_log::Column::Name, self.name.clone().into())
                .filter(enrollment_log::Column::Id.eq(id))
                .exec(db)
                .await?;
            if counted.rows_affected == 1 {
                return Ok(false);
            }
        }
        self.write(db, false, reason).await?;
        Ok(true)
    }
}

/// Inserts the Agent, or refreshes name and tags when the key is enrolled already.
/// An Agent record as enrollment writes it.
struct NewAgent<'a> {
    id: &'a AgentId,
    key: &'a AgentPublicKey,
    name: &'a str,
    tags: &'a [String],
    named_by_admin: bool,
    /// Waits for an admin's approval (`agents::approval`).
    pending: bool,
    extensions: Extensions,
}

/// Inserts the Agent, or refreshes the record its key already has: name and
/// tags; and, with `approving` (an install token that needs no approval),
/// ends its wait for approval. Otherwise the record keeps whether it waits.
async fn upsert_agent(
    db: &impl ConnectionTrait,
    new: NewAgent<'_>,
    approving: bool,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let row = agent::ActiveModel {
        id: Set(new.id.to_string()),
        name: Set(new.name.to_string()),
        public_key: Set(new.key.to_wire()),
        hostname: Set(String::new()),
        version: Set(String::new()),
        tags: Set(serde_json::to_string(new.tags).expect("strings serialise")),
        disabled: Set(false),
        docker_available: Set(false),
        docker_version: Set(String::new()),
        last_heartbeat_at: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        retired: Set(Retirement::Active),
        moved_to: Set(None),
        report_hash: Set(String::new()),
        reconcile_pending: Set(false),
        named_by_admin: Set(new.named_by_admin),
        pending: Set(new.pending),
        extensions: Set(new.extensions.header_value()),
    };
    let mut refreshed = vec![
        agent::Column::Extensions,
        agent::Column::Name,
        agent::Column::Tags,
        agent::Column::NamedByAdmin,
        agent::Column::UpdatedAt,
    ];
    if approving {
        refreshed.push(agent::Column::Pending);
    }
    agent::Entity::insert(row)
        .on_conflict(
            OnConflict::column(agent::Column::Id)
                .update_columns(refreshed)
                .to_owned(),
        )
        .exec(db)
        .await?;
    Ok(())
}

/// A move completes: the new Agent takes the old record's desired components
/// (reconciliation deploys them once it heartbeats) and the old record points
/// to it. False when the record is no longer waiting for a new host.
async fn take_over(db: &impl ConnectionTrait, old: &str, new: &str) -> Result<bool, StoreError> {
    let claimed = agent::Entity::update_many()
        .col_expr(agent::Column::MovedTo, Some(new.to_string()).into())
        .col_expr(agent::Column::UpdatedAt, Utc::now().into())
        .filter(agent::Column::Id.eq(old))
        .filter(agent::Column::Retired.eq(Retirement::Moved))
        .filter(agent::Column::MovedTo.is_null())
        .exec(db)
        .await?;
    if claimed.rows_affected != 1 {
        return Ok(false);
    }
    component::Entity::delete_many()
        .filter(component::Column::AgentId.eq(old))
        .filter(component::Column::Desired.eq(false))
        .exec(db)
        .await?;
    crate::jobs::reconcile::without_backoff(component::Entity::update_many())
        .col_expr(component::Column::AgentId, new.into())
        .col_expr(component::Column::Status, "".into())
        .filter(component::Column::AgentId.eq(old))
        .exec(db)
        .await?;
    Ok(true)
}
