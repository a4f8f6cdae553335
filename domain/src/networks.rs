//! Network profiles: the rules for creating, editing and deleting them.

use crate::access::principal::Granted;
use crate::access::roles::{ActionKind, EditNetworks};
use crate::access::scope::NetworkScope;
use crate::address_policy::names_private_host;
use crate::entities::network;
use crate::rfc3339;
use crate::{audit, is_unique_violation, network_names, split_page, StoreError};
use chrono::Utc;
use protocol::api::{NetworkInput, NetworkProfile, ValidNetwork};
use protocol::validation::{FieldError, Problem};
use protocol::NetworkId;
use rand::Rng;
use rand::RngCore;
use sea_orm::sea_query::{Condition, Expr};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, DbErr, EntityTrait,
    QueryFilter, QueryOrder, QuerySelect, Set,
};
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    /// The input broke a rule; every refused field is listed.
    #[error("invalid input: {0:?}")]
    Invalid(Vec<FieldError>),
    #[error("network profile not found")]
    NotFound,
    /// The `after` cursor names no profile (deleted meanwhile, or made up).
    #[error("unknown page cursor")]
    UnknownCursor,
    /// The profile changed since the version the change was based on (or,
    /// for an addition, kept changing through every attempt).
    #[error("the profile changed since it was read")]
    Stale,
    /// A new profile would be outside the creator's networks.
    #[error("creating a network needs access to all networks")]
    NeedsAllNetworks,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// One page of profiles, ordered by name then ID.
#[derive(Debug, Clone)]
pub struct NetworkPage {
    pub items: Vec<NetworkProfile>,
    /// Pass back as `after` to get the next page; `None` on the last page.
    pub next: Option<String>,
}

#[derive(Clone)]
pub struct Networks {
    db: DatabaseConnection,
}

pub const PAGE_MAX: u64 = 500;

/// Rows are written only through this service; a row edited by hand into an
/// invalid ID is skipped (and logged) rather than breaking the whole list.
fn to_profile(row: network::Model) -> Option<NetworkProfile> {
    let Ok(id) = NetworkId::parse(&row.id) else {
        tracing::warn!(id = %row.id, "skipping network row with a malformed ID");
        return None;
    };
    let beacons = stored_beacons(&row);
    Some(NetworkProfile {
        id,
        name: row.name,
        description: row.description,
        beacons,
        created_at: rfc3339(row.created_at),
        updated_at: rfc3339(row.updated_at),
        version: row.version,
    })
}

impl Networks {
    pub fn new(db: DatabaseConnection) -> Self {
        Self { db }
    }

    /// Every profile `scope` sees, by name, read a page at a time.
    pub async fn all(&self, scope: &NetworkScope) -> Result<Vec<NetworkProfile>, NetworkError> {
        let mut profiles = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = self.list(scope, after.as_deref(), None, PAGE_MAX).await?;
            profiles.extend(page.items);
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(profiles),
            }
        }
    }

    /// One page in name order, of the profiles `scope` sees whose name
    /// contains `search` when one is given (what the forms' choice lists
    /// narrow by). The cursor is the last row's ID; its current name is
    /// looked up, so the cursor stays short and opaque.
    pub async fn list(
        &self,
        scope: &NetworkScope,
        after: Option<&str>,
        search: Option<&str>,
        limit: u64,
    ) -> Result<NetworkPage, NetworkError> {
        let limit = limit.clamp(1, PAGE_MAX);
        let mut query = network::Entity::find()
            .filter(scope.condition(network::Column::Id))
            .order_by_asc(network::Column::Name)
            .order_by_asc(network::Column::Id)
            .limit(limit + 1);
        if let Some(search) = search.filter(|s| !s.trim().is_empty()) {
            query = query.filter(crate::name_contains(
                sea_orm::ConnectionTrait::get_database_backend(&self.db),
                network::Column::Name,
                search,
            ));
        }
        if let Some(after_id) = after {
            // Restarting silently from the top would hand a paging script repeats.
            // A cursor outside the scope is as unknown as a made-up one.
            let anchor = network::Entity::find_by_id(after_id.to_string())
                .filter(scope.condition(network::Column::Id))
                .one(&self.db)
                .await?
                .ok_or(NetworkError::UnknownCursor)?;
            query = query.filter(
                Condition::any()
                    .add(network::Column::Name.gt(anchor.name.clone()))
                    .add(
                        Condition::all()
                            .add(network::Column::Name.eq(anchor.name))
                            .add(network::Column::Id.gt(anchor.id)),
                    ),
            );
        }
        let mut rows = query.all(&self.db).await?;
        let next = split_page(&mut rows, limit, |r| r.id.clone());
        Ok(NetworkPage {
            items: rows.into_iter().filter_map(to_profile).collect(),
            next,
        })
    }

    /// The profiles whose Beacons Control's own checks may look for at
    /// private addresses (`network::Model::beacons_may_be_private`).
    pub async fn beacons_may_be_private(
        &self,
    ) -> Result<std::collections::HashSet<String>, NetworkError> {
        let ids: Vec<String> = network::Entity::find()
            .select_only()
            .column(network::Column::Id)
            .filter(network::Column::BeaconsMayBePrivate.eq(true))
            .into_tuple()
            .all(&self.db)
            .await?;
        Ok(ids.into_iter().collect())
    }

    /// The profile `id`, when `scope` sees it: one outside is not found,
    /// like one that does not exist.
    pub async fn get(
        &self,
        scope: &NetworkScope,
        id: &NetworkId,
    ) -> Result<NetworkProfile, NetworkError> {
        in_scope(scope, id)?;
        network::Entity::find_by_id(id.as_str())
            .one(&self.db)
            .await?
            .and_then(to_profile)
            .ok_or(NetworkError::NotFound)
    }

    /// Creates a profile; a blank ID generates a new one, a pasted ID must be
    /// well-formed and not yet used. Only someone who sees every network may:
    /// the new one would be outside a limited scope.
    pub async fn create(
        &self,
        by: &Granted<EditNetworks>,
        input: NetworkInput,
    ) -> Result<NetworkProfile, NetworkError> {
        if !by.scope().is_all() {
            return Err(NetworkError::NeedsAllNetworks);
        }
        let valid = input.validate().map_err(NetworkError::Invalid)?;
        let may_reach_private = by.may_also(ActionKind::ChangeSettings);
        private_beacons(&valid.beacons, &[], may_reach_private).map_err(NetworkError::Invalid)?;
        if !network_names::named(&self.db, &valid.name, None)
            .await?
            .is_empty()
        {
            return Err(NetworkError::Invalid(vec![network_names::taken()]));
        }
        let id = match valid.id {
            Some(id) => {
                if network::Entity::find_by_id(id.as_str())
                    .one(&self.db)
                    .await?
                    .is_some()
                {
                    return Err(NetworkError::Invalid(vec![FieldError::new(
                        "id",
                        Problem::NetworkIdTaken,
                    )]));
                }
                id
            }
            None => {
                let mut bytes = [0u8; 32];
                rand::rngs::OsRng.fill_bytes(&mut bytes);
                NetworkId::from_random_bytes(bytes)
            }
        };
        let now = Utc::now();
        let row = network::ActiveModel {
            id: Set(id.to_string()),
            name: Set(valid.name),
            description: Set(valid.description),
            beacons: Set(serde_json::to_string(&valid.beacons).expect("strings serialise")),
            beacons_may_be_private: Set(may_reach_private),
            created_at: Set(now),
            updated_at: Set(now),
            version: Set(1),
        };
        // A concurrent create of the same pasted ID loses on the primary key.
        match row.insert(&self.db).await {
            Ok(row) => {
                tracing::info!(network_id = %row.id, "network profile created");
                let actor = by.actor();
                audit::record_in(
                    &self.db,
                    Some(&row.id),
                    &actor,
                    "network.created",
                    &row.id,
                    &row.name,
                )
                .await;
                to_profile(row).ok_or(NetworkError::NotFound)
            }
            // A concurrent create of the same pasted ID, or of the same name.
            Err(e) if is_unique_violation(&e) => {
                let id_taken = network::Entity::find_by_id(id.as_str())
                    .one(&self.db)
                    .await?
                    .is_some();
                Err(NetworkError::Invalid(vec![if id_taken {
                    FieldError::new("id", Problem::NetworkIdTaken)
                } else {
                    network_names::taken()
                }]))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Replaces name, description and Beacon URLs. The ID never changes.
    /// With `input.version` (the admin's form always sends the one it
    /// showed), a profile changed since is refused as [`NetworkError::Stale`]
    /// and left as it is: retrying would silently undo the other change.
    /// Without it, the whole profile is replaced whatever its version, as
    /// scripts written for the first Control expect.
    pub async fn update(
        &self,
        by: &Granted<EditNetworks>,
        id: &NetworkId,
        input: NetworkInput,
    ) -> Result<NetworkProfile, NetworkError> {
        in_scope(by.scope(), id)?;
        let valid = input.validate().map_err(NetworkError::Invalid)?;
        if valid.id.as_ref().is_some_and(|given| given != id) {
            return Err(NetworkError::Invalid(vec![FieldError::new(
                "id",
                Problem::NetworkIdImmutable,
            )]));
        }
        // Whoever's the other profile is: a limited admin renaming theirs to
        // the name of a network they do not see would make every rule that
        // names that network ambiguous.
        if !network_names::named(&self.db, &valid.name, Some(id.as_str()))
            .await?
            .is_empty()
        {
            return Err(NetworkError::Invalid(vec![network_names::taken()]));
        }
        let may_reach_private = by.may_also(ActionKind::ChangeSettings);
        let written = self
            .write(id, valid, input.version, may_reach_private)
            .await;
        let row = match written {
            Err(NetworkError::Store(StoreError(e))) if is_unique_violation(&e) => {
                return Err(NetworkError::Invalid(vec![network_names::taken()]))
            }
            other => other?,
        };
        tracing::info!(network_id = %row.id, version = row.version, "network profile updated");
        self.audited_update(by, row).await
    }

    /// Writes `valid` over profile `id`: only over `version` when given. A
    /// Beacon URL it adds that names a private host is refused to someone
    /// who may not point Control at private addresses; those already listed
    /// stay, so they can still save the rest of the profile.
    async fn write(
        &self,
        id: &NetworkId,
        valid: ValidNetwork,
        version: Option<i64>,
        may_reach_private: bool,
    ) -> Result<network::Model, NetworkError> {
        Ok(match version {
            Some(based_on) => {
                let seen = stored(&self.db, id).await?;
                if seen.version != based_on {
                    return Err(NetworkError::Stale);
                }
                refuse_private_additions(&seen, &valid, may_reach_private)?;
                match write_if_unchanged(&self.db, &seen, valid, may_reach_private).await? {
                    Some(row) => row,
                    // Changed or deleted between the read and the write.
                    None => {
                        stored(&self.db, id).await?;
                        return Err(NetworkError::Stale);
                    }
                }
            }
            None => {
                let (row, _) = retry_on_conflict(&self.db, id, may_reach_private, |seen| {
                    refuse_private_additions(seen, &valid, may_reach_private)?;
                    Ok(Some(valid.clone()))
                })
                .await?;
                row
            }
        })
    }

    /// Adds an existing Beacon's URL (already normalised) to a profile, for
    /// the admin; see [`add_beacon`]. A URL already listed is refused as a
    /// duplicate, on the `url` field.
    pub async fn add_beacon(
        &self,
        by: &Granted<EditNetworks>,
        id: &NetworkId,
        url: &str,
    ) -> Result<NetworkProfile, NetworkError> {
        in_scope(by.scope(), id)?;
        let may_reach_private = by.may_also(ActionKind::ChangeSettings);
        let (row, added) = add_beacon(&self.db, id, url, may_reach_private).await?;
        if !added {
            return Err(NetworkError::Invalid(vec![FieldError::new(
                "url",
                Problem::BeaconDuplicate,
            )]));
        }
        tracing::info!(network_id = %row.id, %url, version = row.version, "Beacon added to a profile");
        self.audited_update(by, row).await
    }

    /// Records an admin's change of a profile in the audit log and answers it.
    async fn audited_update(
        &self,
        by: &Granted<EditNetworks>,
        row: network::Model,
    ) -> Result<NetworkProfile, NetworkError> {
        let actor = by.actor();
        audit::record_in(
            &self.db,
            Some(&row.id),
            &actor,
            "network.updated",
            &row.id,
            &row.name,
        )
        .await;
        to_profile(row).ok_or(NetworkError::NotFound)
    }

    pub async fn delete(
        &self,
        by: &Granted<EditNetworks>,
        id: &NetworkId,
    ) -> Result<(), NetworkError> {
        in_scope(by.scope(), id)?;
        // The profile, its checklist's rows and its probe go together, or not at all.
        let txn = crate::begin_write(&self.db).await?;
        let result = network::Entity::delete_by_id(id.as_str())
            .exec(&txn)
            .await?;
        if result.rows_affected == 0 {
            return Err(NetworkError::NotFound);
        }
        crate::entities::setup_skip::Entity::delete_many()
            .filter(crate::entities::setup_skip::Column::NetworkId.eq(id.as_str()))
            .exec(&txn)
            .await?;
        crate::entities::beacon_diagnosis::Entity::delete_many()
            .filter(crate::entities::beacon_diagnosis::Column::NetworkId.eq(id.as_str()))
            .exec(&txn)
            .await?;
        // Its probe stops with it (nothing would be left to queue it for).
        crate::entities::network_probe::Entity::delete_many()
            .filter(crate::entities::network_probe::Column::NetworkId.eq(id.as_str()))
            .exec(&txn)
            .await?;
        txn.commit().await?;
        tracing::info!(network_id = %id, "network profile deleted");
        let id = id.as_str();
        audit::record_in(&self.db, Some(id), &by.actor(), "network.deleted", id, "").await;
        Ok(())
    }
}

/// Network `id` is not found for a scope that does not see it, before any
/// read: its existence is not for them to learn.
fn in_scope(scope: &NetworkScope, id: &NetworkId) -> Result<(), NetworkError> {
    if scope.contains(id.as_str()) {
        Ok(())
    } else {
        Err(NetworkError::NotFound)
    }
}

/// The refused Beacon URLs of `beacons` that are not among `listed` and name
/// a private host, for someone who may not point Control at one
/// (`address_policy`).
fn private_beacons(
    beacons: &[String],
    listed: &[String],
    may_reach_private: bool,
) -> Result<(), Vec<FieldError>> {
    if may_reach_private {
        return Ok(());
    }
    let refused: Vec<FieldError> = beacons
        .iter()
        .enumerate()
        .filter(|(_, url)| !listed.contains(url) && names_private_host(url))
        .map(|(i, _)| FieldError::at("beacons", i, Problem::PrivateAddress))
        .collect();
    if refused.is_empty() {
        Ok(())
    } else {
        Err(refused)
    }
}

fn refuse_private_additions(
    seen: &network::Model,
    valid: &ValidNetwork,
    may_reach_private: bool,
) -> Result<(), NetworkError> {
    private_beacons(&valid.beacons, &stored_beacons(seen), may_reach_private)
        .map_err(NetworkError::Invalid)
}

/// How many times a change that stays right whatever others did meanwhile
/// (adding a URL, replacing the whole profile) is re-applied to a fresh read
/// before giving up: enough for dozens of writers at once.
const ATTEMPTS: u32 = 40;

/// The Beacon URLs a row stores. The list is only written through this
/// module; a row edited by hand into something unreadable shows (and is
/// edited) as empty, with a warning.
pub(crate) fn stored_beacons(row: &network::Model) -> Vec<String> {
    serde_json::from_str(&row.beacons).unwrap_or_else(|_| {
        tracing::warn!(network_id = %row.id, "stored Beacon list unreadable; treated as empty");
        Vec::new()
    })
}

async fn stored(db: &impl ConnectionTrait, id: &NetworkId) -> Result<network::Model, NetworkError> {
    network::Entity::find_by_id(id.as_str())
        .one(db)
        .await?
        .ok_or(NetworkError::NotFound)
}

/// The one write of a profile after its creation: `valid` replaces the row
/// as it was read, only if its version is still the one read, and the
/// version goes up by one. `None` when someone changed (or deleted) the row
/// in between. Checked in the `UPDATE` itself, so no two writers based on
/// the same version can both succeed, on any number of replicas.
///
/// `may_reach_private`: whether whoever writes may point Control at private
/// addresses. A Beacon list they change is checked by Control's own rounds
/// as they could check it (`beacons_may_be_private`); a list left as it was
/// keeps what it had.
async fn write_if_unchanged(
    db: &impl ConnectionTrait,
    seen: &network::Model,
    valid: ValidNetwork,
    may_reach_private: bool,
) -> Result<Option<network::Model>, DbErr> {
    let now = Utc::now();
    let beacons = serde_json::to_string(&valid.beacons).expect("strings serialise");
    let private_ok = if beacons == seen.beacons {
        seen.beacons_may_be_private
    } else {
        may_reach_private
    };
    let written = network::Entity::update_many()
        .col_expr(network::Column::BeaconsMayBePrivate, private_ok.into())
        .col_expr(network::Column::Name, valid.name.clone().into())
        .col_expr(
            network::Column::Description,
            valid.description.clone().into(),
        )
        .col_expr(network::Column::Beacons, beacons.clone().into())
        .col_expr(network::Column::UpdatedAt, now.into())
        .col_expr(
            network::Column::Version,
            Expr::col(network::Column::Version).add(1),
        )
        .filter(network::Column::Id.eq(seen.id.as_str()))
        .filter(network::Column::Version.eq(seen.version))
        .exec(db)
        .await?;
    if written.rows_affected != 1 {
        return Ok(None);
    }
    Ok(Some(network::Model {
        name: valid.name,
        description: valid.description,
        beacons,
        beacons_may_be_private: private_ok,
        updated_at: now,
        version: seen.version + 1,
        ..seen.clone()
    }))
}

/// Applies `change` to the freshest row and writes the result if nobody
/// changed the row meanwhile; on a conflict, reads again and re-applies,
/// after a short random pause so that many writers spread out. Only for
/// changes that stay right whatever others did in between. `change`
/// answers `None` when there is nothing to write (then `false`).
async fn retry_on_conflict(
    db: &impl ConnectionTrait,
    id: &NetworkId,
    may_reach_private: bool,
    mut change: impl FnMut(&network::Model) -> Result<Option<ValidNetwork>, NetworkError>,
) -> Result<(network::Model, bool), NetworkError> {
    for attempt in 1..=ATTEMPTS {
        let seen = stored(db, id).await?;
        let Some(valid) = change(&seen)? else {
            return Ok((seen, false));
        };
        if let Some(row) = write_if_unchanged(db, &seen, valid, may_reach_private).await? {
            return Ok((row, true));
        }
        let pause = rand::thread_rng().gen_range(1..=(4 * attempt as u64).min(50));
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
    tracing::warn!(network_id = %id, "profile kept changing; change not written");
    Err(NetworkError::Stale)
}

/// Adds `url` (normalised) to the profile's Beacon URLs under the profile's
/// own rules, unless it is listed already (then the row and `false`). Both
/// the admin's "add existing Beacon" and a deployed Beacon joining its
/// profile come here: additions commute, so each is retried on a conflict
/// and concurrent additions all land. `may_reach_private`: whether whoever
/// added it (the admin, or whoever queued the deployment) may point Control
/// at private addresses (see [`write_if_unchanged`]).
pub async fn add_beacon(
    db: &impl ConnectionTrait,
    id: &NetworkId,
    url: &str,
    may_reach_private: bool,
) -> Result<(network::Model, bool), NetworkError> {
    if !may_reach_private && names_private_host(url) {
        return Err(NetworkError::Invalid(vec![FieldError::new(
            "url",
            Problem::PrivateAddress,
        )]));
    }
    retry_on_conflict(db, id, may_reach_private, |row| {
        let mut beacons = stored_beacons(row);
        if beacons.iter().any(|b| b == url) {
            return Ok(None);
        }
        beacons.push(url.to_string());
        let input = NetworkInput {
            id: None,
            name: row.name.clone(),
            description: Some(row.description.clone()),
            beacons,
            version: None,
        };
        input.validate().map(Some).map_err(NetworkError::Invalid)
    })
    .await
}
