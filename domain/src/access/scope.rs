//! Which networks a person sees ("network scope"). A person may be
//! limited to some network profiles; everything of other networks (Agents
//! that run none of theirs, jobs, services, Beacons, invites, audit entries)
//! is then absent for them, and a direct lookup answers not found, never
//! "not allowed", so an ID outside the scope cannot be probed.
//!
//! Reads take a `&NetworkScope` and filter in SQL with [`NetworkScope::condition`];
//! records with no network (a NULL column) never match a limited scope, so
//! what cannot be placed in a network stays hidden: the safe side.

use crate::entities::component;
use sea_orm::sea_query::Query;
use sea_orm::{ColumnTrait, Condition};
use std::collections::BTreeSet;

/// The networks a principal sees: all, or only some.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkScope(Inner);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Inner {
    All,
    Only(BTreeSet<String>),
}

impl NetworkScope {
    /// Every network: the owner role, owner tokens, people with no limit,
    /// Control's own work, benchmarks and tests. A request's scope comes from
    /// its [`Principal`](super::principal::Principal) (`Reader` in the HTTP
    /// adapters), never from this.
    pub fn all() -> Self {
        Self(Inner::All)
    }

    /// A person's scope from their `user_networks` rows: none is all.
    pub(crate) fn of_rows(ids: impl IntoIterator<Item = String>) -> Self {
        let ids: BTreeSet<String> = ids.into_iter().collect();
        if ids.is_empty() {
            Self::all()
        } else {
            Self(Inner::Only(ids))
        }
    }

    pub fn is_all(&self) -> bool {
        matches!(self.0, Inner::All)
    }

    /// Whether network `id` is seen.
    pub fn contains(&self, id: &str) -> bool {
        match &self.0 {
            Inner::All => true,
            Inner::Only(ids) => ids.contains(id),
        }
    }

    /// The networks seen, when limited; `None` for all.
    pub fn only(&self) -> Option<&BTreeSet<String>> {
        match &self.0 {
            Inner::All => None,
            Inner::Only(ids) => Some(ids),
        }
    }

    /// Rows whose network column `column` is in the scope. Unlimited, it
    /// selects every row, NULLs included; limited, never a NULL.
    pub fn condition<C: ColumnTrait>(&self, column: C) -> Condition {
        match &self.0 {
            Inner::All => Condition::all(),
            Inner::Only(ids) => Condition::all().add(column.is_in(ids.iter().cloned())),
        }
    }

    /// Agents in the scope: those running (or about to run) a component of
    /// a network in it. An Agent with no components belongs to no network.
    pub fn agents_condition<C: ColumnTrait>(&self, agent_id: C) -> Condition {
        match &self.0 {
            Inner::All => Condition::all(),
            Inner::Only(_) => {
                let running = Query::select()
                    .column(component::Column::AgentId)
                    .from(component::Entity)
                    .cond_where(self.condition(component::Column::NetworkId))
                    .to_owned();
                Condition::all().add(agent_id.in_subquery(running))
            }
        }
    }

    /// Whether a component is shown: its network is in the scope (one with
    /// no network only when the scope is unlimited).
    pub fn keeps_component(&self, c: &component::Model) -> bool {
        self.is_all() || c.network_id.as_deref().is_some_and(|n| self.contains(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entities::{agent, job};
    use sea_orm::{DbBackend, EntityTrait, QueryFilter, QueryTrait};

    fn sql(scope: &NetworkScope, backend: DbBackend) -> String {
        job::Entity::find()
            .filter(scope.condition(job::Column::NetworkId))
            .build(backend)
            .to_string()
    }

    #[test]
    fn no_rows_means_every_network() {
        let all = NetworkScope::of_rows(Vec::new());
        assert!(all.is_all());
        assert!(all.contains("anything"));
        for backend in [DbBackend::Postgres, DbBackend::Sqlite] {
            let sql = sql(&all, backend);
            assert!(!sql.contains(" IN "), "{backend:?}: {sql}");
        }
    }

    #[test]
    fn a_limited_scope_selects_only_its_networks_in_sql() {
        let some = NetworkScope::of_rows(["net_a".to_string(), "net_b".to_string()]);
        assert!(some.contains("net_a") && !some.contains("net_c"));
        for backend in [DbBackend::Postgres, DbBackend::Sqlite] {
            let sql = sql(&some, backend);
            assert!(sql.contains("IN ('net_a', 'net_b')"), "{sql}");
        }
        let agents = agent::Entity::find()
            .filter(some.agents_condition(agent::Column::Id))
            .build(DbBackend::Sqlite)
            .to_string();
        assert!(
            agents.contains(r#""agents"."id" IN (SELECT "agent_id" FROM "components" WHERE "components"."network_id" IN ('net_a', 'net_b'))"#),
            "{agents}"
        );
    }

    #[test]
    fn a_component_without_a_network_is_seen_only_unlimited() {
        let mut c = component::Model::empty("agt_1", "beacon-x", chrono::Utc::now());
        assert!(NetworkScope::all().keeps_component(&c));
        let some = NetworkScope::of_rows(["net_a".to_string()]);
        assert!(!some.keeps_component(&c));
        c.network_id = Some("net_a".into());
        assert!(some.keeps_component(&c));
        c.network_id = Some("net_b".into());
        assert!(!some.keeps_component(&c));
    }
}
