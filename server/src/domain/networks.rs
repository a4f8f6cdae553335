//! Network profiles: the rules for creating, editing and deleting them.

use super::{audit, is_unique_violation, split_page, StoreError};
use crate::entities::network;
use chrono::{DateTime, SecondsFormat, Utc};
use protocol::api::{NetworkInput, NetworkProfile};
use protocol::validation::{FieldError, Problem};
use protocol::NetworkId;
use rand::RngCore;
use sea_orm::sea_query::Condition;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};

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
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for NetworkError {
    fn from(e: sea_orm::DbErr) -> Self {
        NetworkError::Store(StoreError(e))
    }
}

/// One page of profiles, ordered by name then ID.
#[derive(Debug, Clone)]
pub struct NetworkPage {
    pub items: Vec<NetworkProfile>,
    /// Pass back as `after` to get the next page; `None` on the last page.
    pub next: Option<String>,
}

#[derive(Clone)]
pub struct NetworkService {
    db: DatabaseConnection,
}

pub const PAGE_MAX: u64 = 500;

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Rows are written only through this service; a row edited by hand into an
/// invalid ID is skipped (and logged) rather than breaking the whole list.
fn to_profile(row: network::Model) -> Option<NetworkProfile> {
    let Ok(id) = NetworkId::parse(&row.id) else {
        tracing::warn!(id = %row.id, "skipping network row with a malformed ID");
        return None;
    };
    Some(NetworkProfile {
        id,
        name: row.name,
        description: row.description,
        beacons: serde_json::from_str(&row.beacons).unwrap_or_default(),
        created_at: rfc3339(row.created_at),
        updated_at: rfc3339(row.updated_at),
    })
}

impl NetworkService {
    pub fn new(db: DatabaseConnection) -> Self {
        Self { db }
    }

    /// Every profile, by name, read a page at a time.
    pub async fn all(&self) -> Result<Vec<NetworkProfile>, NetworkError> {
        let mut profiles = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = self.list(after.as_deref(), None, PAGE_MAX).await?;
            profiles.extend(page.items);
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(profiles),
            }
        }
    }

    /// One page in name order, of the profiles whose name contains `search`
    /// when one is given (what the forms' choice lists narrow by). The cursor
    /// is the last row's ID; its current name is looked up, so the cursor
    /// stays short and opaque.
    pub async fn list(
        &self,
        after: Option<&str>,
        search: Option<&str>,
        limit: u64,
    ) -> Result<NetworkPage, NetworkError> {
        let limit = limit.clamp(1, PAGE_MAX);
        let mut query = network::Entity::find()
            .order_by_asc(network::Column::Name)
            .order_by_asc(network::Column::Id)
            .limit(limit + 1);
        if let Some(search) = search.filter(|s| !s.trim().is_empty()) {
            query = query.filter(super::name_contains(
                sea_orm::ConnectionTrait::get_database_backend(&self.db),
                network::Column::Name,
                search,
            ));
        }
        if let Some(after_id) = after {
            // Restarting silently from the top would hand a paging script repeats.
            let anchor = network::Entity::find_by_id(after_id.to_string())
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

    pub async fn get(&self, id: &NetworkId) -> Result<NetworkProfile, NetworkError> {
        network::Entity::find_by_id(id.as_str())
            .one(&self.db)
            .await?
            .and_then(to_profile)
            .ok_or(NetworkError::NotFound)
    }

    /// Creates a profile; a blank ID generates a new one, a pasted ID must be
    /// well-formed and not yet used.
    pub async fn create(&self, input: NetworkInput) -> Result<NetworkProfile, NetworkError> {
        let valid = input.validate().map_err(NetworkError::Invalid)?;
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
            created_at: Set(now),
            updated_at: Set(now),
        };
        // A concurrent create of the same pasted ID loses on the primary key.
        match row.insert(&self.db).await {
            Ok(row) => {
                tracing::info!(network_id = %row.id, "network profile created");
                audit::record(
                    &self.db,
                    audit::ADMIN,
                    "network.created",
                    &row.id,
                    &row.name,
                )
                .await;
                to_profile(row).ok_or(NetworkError::NotFound)
            }
            Err(e) if is_unique_violation(&e) => Err(NetworkError::Invalid(vec![FieldError::new(
                "id",
                Problem::NetworkIdTaken,
            )])),
            Err(e) => Err(e.into()),
        }
    }

    /// Replaces name, description and Beacon URLs. The ID never changes.
    pub async fn update(
        &self,
        id: &NetworkId,
        input: NetworkInput,
    ) -> Result<NetworkProfile, NetworkError> {
        let valid = input.validate().map_err(NetworkError::Invalid)?;
        if valid.id.as_ref().is_some_and(|given| given != id) {
            return Err(NetworkError::Invalid(vec![FieldError::new(
                "id",
                Problem::NetworkIdImmutable,
            )]));
        }
        let row = network::Entity::find_by_id(id.as_str())
            .one(&self.db)
            .await?
            .ok_or(NetworkError::NotFound)?;
        let mut row: network::ActiveModel = row.into();
        row.name = Set(valid.name);
        row.description = Set(valid.description);
        row.beacons = Set(serde_json::to_string(&valid.beacons).expect("strings serialise"));
        row.updated_at = Set(Utc::now());
        let row = row.update(&self.db).await?;
        tracing::info!(network_id = %row.id, "network profile updated");
        audit::record(
            &self.db,
            audit::ADMIN,
            "network.updated",
            &row.id,
            &row.name,
        )
        .await;
        to_profile(row).ok_or(NetworkError::NotFound)
    }

    pub async fn delete(&self, id: &NetworkId) -> Result<(), NetworkError> {
        let result = network::Entity::delete_by_id(id.as_str())
            .exec(&self.db)
            .await?;
        if result.rows_affected == 0 {
            return Err(NetworkError::NotFound);
        }
        tracing::info!(network_id = %id, "network profile deleted");
        audit::record(&self.db, audit::ADMIN, "network.deleted", id.as_str(), "").await;
        Ok(())
    }
}
