//! Onboarding invites: public links to one network profile for end users.
//! The token (256 random bits) is shown once; only its SHA-256 is stored. An
//! invite carries the profile's connection metadata only, never a secret.

use crate::access::principal::Granted;
use crate::access::roles::ManageInvites;
use crate::access::scope::NetworkScope;
use crate::access::secrets::{new_token, secret_matches, token_hash};
use crate::entities::{invite, invite_open, network};
use crate::networks::{NetworkError, Networks};
use crate::rfc3339;
use crate::{audit, split_page, StoreError};
use chrono::{DateTime, Duration, Utc};
use protocol::api::NetworkProfile;
use protocol::onboarding::{CreatedInvite, InviteView, NewInvite};
use protocol::{FieldError, NetworkId, Problem};
use protocol::{Id, InviteId};
use rand::RngCore;
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, DatabaseConnection, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};
use std::collections::HashMap;

/// Where invite pages live under Control's public URL.
pub const JOIN_PATH: &str = "/join/";

#[derive(Debug, thiserror::Error)]
pub enum InviteError {
    #[error("invalid invite request")]
    Invalid(Vec<FieldError>),
    #[error("no such invite")]
    NotFound,
    /// The `after` cursor names no invite.
    #[error("unknown page cursor")]
    UnknownCursor,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why an invite page cannot be shown; the visitor is told which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InviteRefusal {
    /// No invite has this token: 404.
    Unknown,
    Expired,
    Revoked,
    UsedUp,
}

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("invite refused: {0:?}")]
    Refused(InviteRefusal),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An invite that may be shown, with the profile it leads to.
pub struct OpenedInvite {
    pub invite: invite::Model,
    pub profile: NetworkProfile,
    /// Set when this visit was counted: the cookie value that marks the
    /// browser as counted from now on.
    pub counted_mark: Option<String>,
}

/// A person opening an invite page.
pub struct Visit<'a> {
    /// The browser's counted mark (cookie), if it sent one.
    pub mark: Option<&'a str>,
    /// The platform the page told from the browser, if it could: a counted
    /// open records it, for the setup checklist.
    pub platform: Option<protocol::onboarding::Platform>,
}

/// What a preview of an invite (a chat app's robot drawing the link, a HEAD
/// request) is shown: its name, nothing to join the network with. A preview
/// uses up no open, so it must not carry what an open would.
pub struct InvitePreview {
    pub name: String,
}

pub use protocol::InviteState;

/// What an invite can still do at `now`.
pub fn state(row: &invite::Model, now: DateTime<Utc>) -> InviteState {
    if row.revoked_at.is_some() {
        InviteState::Revoked
    } else if row.expires_at.is_some_and(|t| t <= now) {
        InviteState::Expired
    } else if row.max_opens.is_some_and(|max| row.opens >= max) {
        InviteState::UsedUp
    } else {
        InviteState::Active
    }
}

fn view(row: &invite::Model, network_name: &str, now: DateTime<Utc>) -> InviteView {
    InviteView {
        id: InviteId::from_stored(row.id.clone()),
        network_id: NetworkId::from_stored(row.network_id.clone()),
        network_name: network_name.to_string(),
        name: row.name.clone(),
        state: state(row, now),
        opens: row.opens.max(0) as u32,
        max_opens: row.max_opens.map(|m| m.max(0) as u32),
        created_at: rfc3339(row.created_at),
        expires_at: row.expires_at.map(rfc3339),
        last_opened_at: row.last_opened_at.map(rfc3339),
    }
}

#[derive(Clone)]
pub struct Invites {
    db: DatabaseConnection,
    networks: Networks,
    public_url: Option<url::Url>,
}

impl Invites {
    pub fn new(db: DatabaseConnection, networks: Networks, public_url: Option<url::Url>) -> Self {
        Self {
            db,
            networks,
            public_url,
        }
    }

    /// The public link for a token: absolute under PUBLIC_URL, else a path
    /// with a warning that says how to fix it.
    fn link(&self, token: &str) -> (String, Option<String>) {
        match &self.public_url {
            Some(base) => (
                format!("{}{JOIN_PATH}{token}", base.as_str().trim_end_matches('/')),
                None,
            ),
            None => (
                format!("{JOIN_PATH}{token}"),
                Some("KNOTROUTE_CONTROL_PUBLIC_URL is not set, so this link has no address in front: put Control's public HTTPS address before it, or set PUBLIC_URL.".to_string()),
            ),
        }
    }

    pub async fn create(
        &self,
        by: &Granted<ManageInvites>,
        input: &NewInvite,
    ) -> Result<CreatedInvite, InviteError> {
        let valid = input.validate().map_err(InviteError::Invalid)?;
        let profile = self
            .networks
            .get(by.scope(), &valid.network_id)
            .await
            .map_err(|e| match e {
                NetworkError::Store(e) => InviteError::Store(e),
                // Only "not found" is left: the profile was deleted or never existed.
                _ => InviteError::Invalid(vec![FieldError::new("network_id", Problem::InvalidId)]),
            })?;
        let now = Utc::now();
        let token = new_token();
        let mut id_bytes = [0u8; 8];
        rand::rngs::OsRng.fill_bytes(&mut id_bytes);
        let name = if valid.name.is_empty() {
            profile.name.clone()
        } else {
            valid.name
        };
        let row = invite::ActiveModel {
            id: Set(format!("inv_{}", data_encoding::HEXLOWER.encode(&id_bytes))),
            token_hash: Set(token_hash(&token)),
            visitor_key: Set(new_token()),
            network_id: Set(profile.id.to_string()),
            name: Set(name),
            created_at: Set(now),
            expires_at: Set(valid
                .expires_in_hours
                .map(|h| now + Duration::hours(h.into()))),
            max_opens: Set(valid.max_opens.map(|m| m as i32)),
            opens: Set(0),
            last_opened_at: Set(None),
            revoked_at: Set(None),
        }
        .insert(&self.db)
        .await?;
        audit::record_in(
            &self.db,
            Some(&row.network_id),
            &by.actor(),
            "invite.created",
            &row.id,
            &format!("network {}", row.network_id),
        )
        .await;
        let (url, warning) = self.link(&token);
        Ok(CreatedInvite {
            view: view(&row, &profile.name, now),
            url,
            warning,
        })
    }

    /// Invites of the networks `scope` sees, newest first, optionally of one
    /// network; `after` is the last ID of the previous page.
    pub async fn list(
        &self,
        scope: &NetworkScope,
        network: Option<&NetworkId>,
        after: Option<&str>,
        limit: u64,
    ) -> Result<(Vec<InviteView>, Option<String>), InviteError> {
        let limit = limit.clamp(1, 500);
        let in_scope = scope.condition(invite::Column::NetworkId);
        let mut query = invite::Entity::find()
            .filter(in_scope.clone())
            .order_by_desc(invite::Column::CreatedAt)
            .order_by_desc(invite::Column::Id)
            .limit(limit + 1);
        if let Some(network) = network {
            query = query.filter(invite::Column::NetworkId.eq(network.as_str()));
        }
        if let Some(after) = after {
            let anchor = invite::Entity::find_by_id(after)
                .filter(in_scope)
                .one(&self.db)
                .await?
                .ok_or(InviteError::UnknownCursor)?;
            query = query.filter(crate::older_than(
                invite::Column::CreatedAt,
                invite::Column::Id,
                anchor.created_at,
                anchor.id,
            ));
        }
        let mut rows = query.all(&self.db).await?;
        let next = split_page(&mut rows, limit, |r| r.id.clone());
        let ids: Vec<String> = rows.iter().map(|r| r.network_id.clone()).collect();
        let names: HashMap<String, String> = network::Entity::find()
            .filter(network::Column::Id.is_in(ids))
            .all(&self.db)
            .await?
            .into_iter()
            .map(|n| (n.id, n.name))
            .collect();
        let now = Utc::now();
        let views = rows
            .iter()
            .map(|r| view(r, names.get(&r.network_id).map_or("", String::as_str), now))
            .collect();
        Ok((views, next))
    }

    /// Revokes an invite; revoking twice is harmless. One of a network the
    /// person does not see is not found, and stays as it is.
    pub async fn revoke(
        &self,
        by: &Granted<ManageInvites>,
        id: &InviteId,
    ) -> Result<InviteView, InviteError> {
        let id = id.as_str();
        let now = Utc::now();
        let seen = invite::Entity::find_by_id(id)
            .filter(by.scope().condition(invite::Column::NetworkId))
            .one(&self.db)
            .await?;
        if seen.is_none() {
            return Err(InviteError::NotFound);
        }
        let done = invite::Entity::update_many()
            .col_expr(invite::Column::RevokedAt, Some(now).into())
            .filter(invite::Column::Id.eq(id))
            .filter(invite::Column::RevokedAt.is_null())
            .exec(&self.db)
            .await?;
        let row = invite::Entity::find_by_id(id)
            .one(&self.db)
            .await?
            .ok_or(InviteError::NotFound)?;
        if done.rows_affected == 1 {
            let network = Some(row.network_id.as_str());
            audit::record_in(&self.db, network, &by.actor(), "invite.revoked", id, "").await;
        }
        let name = network::Entity::find_by_id(row.network_id.as_str())
            .one(&self.db)
            .await?
            .map(|n| n.name)
            .unwrap_or_default();
        Ok(view(&row, &name, now))
    }

    /// Opens an invite page for a person. A new visitor is counted atomically
    /// against the limit, so two visitors cannot both take the last open; a
    /// browser carrying this invite's counted mark comes back without being
    /// counted again, even once the limit is reached. The mark is a random
    /// value per invite that only Control hands out, so it cannot be forged
    /// from the link.
    pub async fn open(&self, token: &str, visit: Visit<'_>) -> Result<OpenedInvite, OpenError> {
        let (row, profile, returning) = self.showable(token, visit.mark).await?;
        let now = Utc::now();
        let mut counted_mark = None;
        if !returning {
            let counted = invite::Entity::update_many()
                .col_expr(
                    invite::Column::Opens,
                    Expr::col(invite::Column::Opens).add(1),
                )
                .col_expr(invite::Column::LastOpenedAt, Some(now).into())
                .filter(invite::Column::Id.eq(row.id.as_str()))
                .filter(invite::Column::Opens.lt(i32::MAX))
                .filter(
                    Condition::any()
                        .add(invite::Column::MaxOpens.is_null())
                        .add(
                            Expr::col(invite::Column::Opens)
                                .lt(Expr::col(invite::Column::MaxOpens)),
                        ),
                )
                .exec(&self.db)
                .await?;
            if counted.rows_affected == 0 {
                return Err(OpenError::Refused(InviteRefusal::UsedUp));
            }
            counted_mark = Some(row.visitor_key.clone());
            if let Some(platform) = visit.platform {
                let opened_on = invite_open::ActiveModel {
                    invite_id: Set(row.id.clone()),
                    platform: Set(platform.slug().to_string()),
                    first_at: Set(now),
                };
                let recorded = invite_open::Entity::insert(opened_on)
                    .on_conflict(
                        OnConflict::columns([
                            invite_open::Column::InviteId,
                            invite_open::Column::Platform,
                        ])
                        .do_nothing()
                        .to_owned(),
                    )
                    .exec_without_returning(&self.db)
                    .await;
                // Only information for the checklist: the open is counted,
                // and failing here must not cost the visitor their open.
                if let Err(e) = recorded {
                    tracing::warn!(error = %e, "recording an invite's platform failed");
                }
            }
        }
        Ok(OpenedInvite {
            invite: row,
            profile,
            counted_mark,
        })
    }

    /// A preview of an invite: refused exactly as an open would be (unknown,
    /// expired, revoked, used up), counted never, and without the profile.
    pub async fn preview(&self, token: &str) -> Result<InvitePreview, OpenError> {
        let (row, _, _) = self.showable(token, None).await?;
        Ok(InvitePreview { name: row.name })
    }

    /// The invite of `token` with its profile, if it may be shown to a
    /// visitor carrying `mark`, and whether that mark is this invite's.
    async fn showable(
        &self,
        token: &str,
        mark: Option<&str>,
    ) -> Result<(invite::Model, NetworkProfile, bool), OpenError> {
        let refused = |r| Err(OpenError::Refused(r));
        let Some(row) = invite::Entity::find()
            .filter(invite::Column::TokenHash.eq(token_hash(token)))
            .one(&self.db)
            .await?
        else {
            return refused(InviteRefusal::Unknown);
        };
        let now = Utc::now();
        let returning = mark.is_some_and(|mark| secret_matches(mark, &row.visitor_key));
        match state(&row, now) {
            InviteState::Revoked => return refused(InviteRefusal::Revoked),
            InviteState::Expired => return refused(InviteRefusal::Expired),
            InviteState::UsedUp if !returning => return refused(InviteRefusal::UsedUp),
            _ => {}
        }
        let Ok(network_id) = NetworkId::parse(&row.network_id) else {
            return refused(InviteRefusal::Unknown);
        };
        // The public page: whoever holds the link sees its network.
        let profile = match self.networks.get(&NetworkScope::all(), &network_id).await {
            Ok(p) => p,
            Err(NetworkError::Store(e)) => return Err(OpenError::Store(e)),
            Err(_) => return refused(InviteRefusal::Unknown),
        };
        Ok((row, profile, returning))
    }
}
