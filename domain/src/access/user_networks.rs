//! The networks each person is limited to, as `user_networks` rows: none is
//! every network. Read at each request ([`of_person`]), so a change takes
//! effect at the person's next one; written only with the person's row, in
//! its transaction.

use super::scope::NetworkScope;
use crate::entities::{network, user_network};
use crate::StoreError;
use protocol::NetworkId;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, Set};
use std::collections::HashMap;

/// What person `id` sees.
pub(crate) async fn of_person(
    db: &impl ConnectionTrait,
    id: &str,
) -> Result<NetworkScope, StoreError> {
    let rows = user_network::Entity::find()
        .filter(user_network::Column::UserId.eq(id))
        .all(db)
        .await?;
    Ok(NetworkScope::of_rows(
        rows.into_iter().map(|r| r.network_id),
    ))
}

/// Every limited person's Network IDs, for the Users screen (one query).
pub(crate) async fn of_everyone(
    db: &impl ConnectionTrait,
) -> Result<HashMap<String, Vec<String>>, StoreError> {
    let mut by_person: HashMap<String, Vec<String>> = HashMap::new();
    for row in user_network::Entity::find().all(db).await? {
        by_person
            .entry(row.user_id)
            .or_default()
            .push(row.network_id);
    }
    for ids in by_person.values_mut() {
        ids.sort();
    }
    Ok(by_person)
}

/// Person `id`'s Network IDs, sorted; empty for every network.
pub(crate) async fn ids_of(db: &impl ConnectionTrait, id: &str) -> Result<Vec<String>, StoreError> {
    let mut ids: Vec<String> = user_network::Entity::find()
        .filter(user_network::Column::UserId.eq(id))
        .all(db)
        .await?
        .into_iter()
        .map(|r| r.network_id)
        .collect();
    ids.sort();
    Ok(ids)
}

/// Whether every one of `ids` names a network: a limit naming one that
/// does not exist (a typo, one deleted meanwhile) is refused, or the person
/// would see nothing with no word why.
pub(crate) async fn all_exist(
    db: &impl ConnectionTrait,
    ids: &[NetworkId],
) -> Result<bool, StoreError> {
    if ids.is_empty() {
        return Ok(true);
    }
    let found = network::Entity::find()
        .filter(network::Column::Id.is_in(ids.iter().map(|id| id.as_str())))
        .count(db)
        .await?;
    Ok(found as usize == ids.len())
}

/// Replaces person `id`'s networks with `ids` (empty: every network).
pub(crate) async fn replace(
    db: &impl ConnectionTrait,
    id: &str,
    ids: &[NetworkId],
) -> Result<(), StoreError> {
    user_network::Entity::delete_many()
        .filter(user_network::Column::UserId.eq(id))
        .exec(db)
        .await?;
    if ids.is_empty() {
        return Ok(());
    }
    let rows = ids.iter().map(|n| user_network::ActiveModel {
        user_id: Set(id.to_string()),
        network_id: Set(n.to_string()),
    });
    user_network::Entity::insert_many(rows).exec(db).await?;
    Ok(())
}

/// How a limit reads in the audit log: `all networks` or the IDs.
pub(crate) fn described(ids: &[impl AsRef<str>]) -> String {
    if ids.is_empty() {
        "all networks".into()
    } else {
        ids.iter()
            .map(|id| id.as_ref())
            .collect::<Vec<_>>()
            .join(", ")
    }
}
