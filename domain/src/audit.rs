//! The audit log: every enrollment, state change, job creation and result.
//! Writing is best effort: a failed audit write is logged loudly but does not
//! undo the action it describes.

use crate::access::principal::Principal;
use crate::entities::audit_entry;
use crate::text::bounded;
use crate::StoreError;
use chrono::{SecondsFormat, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use serde::Deserialize;

/// Control itself (reconciliation, expiry). People and tokens are named by
/// their `Principal` (`access::principal`), which a change's `Granted` carries.
pub const CONTROL: &str = "control";

pub fn agent_actor(agent_id: &str) -> String {
    format!("agent:{agent_id}")
}

/// An entry that concerns no one network (an Agent, a token, a person,
/// settings): only those who see every network read it, and its actor.
pub async fn record(
    db: &impl ConnectionTrait,
    actor: &str,
    action: &str,
    subject: &str,
    detail: &str,
) {
    record_in(db, None, actor, action, subject, detail).await
}

/// An entry about something of network `network` (the network itself, a
/// job, an invite, a component): people who see that network read it.
pub async fn record_in(
    db: &impl ConnectionTrait,
    network: Option<&str>,
    actor: &str,
    action: &str,
    subject: &str,
    detail: &str,
) {
    let row = audit_entry::ActiveModel {
        at: Set(Utc::now()),
        // `sso:<issuer>/<subject>` is long; the column holds 300 (migration 23).
        actor: Set(bounded(actor, 300)),
        action: Set(bounded(action, 64)),
        subject: Set(bounded(subject, 128)),
        detail: Set(bounded(detail, 1024)),
        network_id: Set(network.map(str::to_string)),
        ..Default::default()
    };
    if let Err(e) = row.insert(db).await {
        tracing::error!(error = %e, action, subject, "could not write the audit log");
    }
}

/// An audit line as the API shows it (shared with the UI through `protocol`).
pub type AuditView = protocol::api::AuditEntry;

#[derive(Clone, Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditFilter {
    pub action: Option<String>,
    /// Whose entries: `owner`, `user:<name>` (with their tokens'), or any
    /// actor as written (`protocol::users::audit_person`).
    pub person: Option<String>,
    pub subject: Option<String>,
    /// The last `id` of the previous page.
    pub before: Option<i64>,
    pub limit: Option<u64>,
}

/// The entries `protocol::users::audit_person` files under `person`: the
/// actor itself, the owner's break-glass spelling, and tokens ending in
/// ` (<person>)` (matched literally: `%` and `_` in the input are escaped).
fn by_person(person: &str) -> sea_orm::Condition {
    use sea_orm::sea_query::LikeExpr;
    let literal: String = person
        .chars()
        .flat_map(|c| match c {
            '%' | '_' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    let mut any = sea_orm::Condition::any()
        .add(audit_entry::Column::Actor.eq(person))
        .add(
            audit_entry::Column::Actor
                .like(LikeExpr::new(format!("token:% ({literal})")).escape('\\')),
        );
    if person == "owner" {
        any = any.add(audit_entry::Column::Actor.eq("owner (break-glass)"));
    }
    any
}

/// Newest first: the entries `reader` may read. Seeing every network, all
/// of them; seeing only some, those about these networks and the reader's
/// own (as themselves or through their tokens).
pub async fn list(
    db: &impl ConnectionTrait,
    reader: &Principal,
    filter: &AuditFilter,
) -> Result<Vec<AuditView>, StoreError> {
    let scope = reader.networks();
    let readable = if scope.is_all() {
        sea_orm::Condition::all()
    } else {
        let actor = reader.to_string();
        sea_orm::Condition::any()
            .add(scope.condition(audit_entry::Column::NetworkId))
            .add(by_person(protocol::users::audit_person(&actor)))
    };
    let mut query = audit_entry::Entity::find()
        .filter(readable)
        .order_by_desc(audit_entry::Column::Id)
        .limit(filter.limit.unwrap_or(100).clamp(1, 500));
    if let Some(action) = &filter.action {
        query = query.filter(audit_entry::Column::Action.eq(action.as_str()));
    }
    if let Some(person) = &filter.person {
        query = query.filter(by_person(person));
    }
    if let Some(subject) = &filter.subject {
        query = query.filter(audit_entry::Column::Subject.eq(subject.as_str()));
    }
    if let Some(before) = filter.before {
        query = query.filter(audit_entry::Column::Id.lt(before));
    }
    Ok(query
        .all(db)
        .await?
        .into_iter()
        .map(|r| AuditView {
            id: r.id,
            at: r.at.to_rfc3339_opts(SecondsFormat::Secs, true),
            actor: r.actor,
            action: r.action,
            subject: r.subject,
            detail: r.detail,
        })
        .collect())
}
