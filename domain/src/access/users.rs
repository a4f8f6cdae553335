//! People with accounts of their own: invited by the owner with a one-time
//! link, each with a role and an Argon2id password (`passwords`).
//!
//! The break-glass owner account (`KNOTROUTE_CONTROL_ADMIN_PASSWORD`) is not
//! one of them and always works. The last-owner guard is about people: a
//! change that would leave no enabled person with the owner role is refused
//! ([`UserError::LastOwner`]), so the team never depends on the break-glass
//! password for everyday work once it has an owner of its own. With no
//! person in the owner role yet, nothing is guarded.
//!
//! Who a session or token acts as is read from the person's row on every
//! request ([`Users::principal`]), so a role change or a disable takes effect
//! at the next request on every replica; disabling and deleting also delete
//! the person's sessions and revoke their tokens in the same transaction.

use super::passwords;
use super::principal::{Granted, Principal};
use super::roles::{ManageUsers, Role};
use super::scope::NetworkScope;
use super::second_factor;
use super::secrets::{new_token, token_hash};
use super::user_networks;
use crate::entities::{admin_session, api_token, user, user_invite};
use crate::rfc3339;
use crate::{audit, StoreError};
use chrono::{DateTime, Duration, Utc};
use protocol::users::{
    network_limit, CreatedUserInvite, UserChange, UserInviteInput, UserView, WelcomeInput,
};
use protocol::{FieldError, Id, Problem, UserId};
use rand::RngCore;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait,
    PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, Set,
};
use std::collections::HashMap;

/// How long an invitation link works (once).
pub const INVITE_LIFETIME: Duration = Duration::days(3);
/// Where an invitation link leads; public, one path segment after it.
pub const WELCOME_PATH: &str = "/welcome/";
/// People listed on the Users screen.
const LIST_LIMIT: u64 = 500;

#[derive(Debug, thiserror::Error)]
pub enum UserError {
    #[error("invalid input")]
    Invalid(Vec<FieldError>),
    #[error("no such user")]
    NotFound,
    #[error("the last owner cannot be demoted, disabled or deleted")]
    LastOwner,
    #[error("the invitation link is unknown, used or expired")]
    InviteUnusable,
    #[error("password hashing failed: {0}")]
    Hashing(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub(super) fn role_of(row: &user::Model) -> Role {
    // Only `Role::as_str` values are ever written; an unreadable one gives
    // the least power rather than an error on every request.
    Role::parse("role", &row.role).unwrap_or(Role::Viewer)
}

#[derive(Clone)]
pub struct Users {
    db: DatabaseConnection,
    public_url: Option<url::Url>,
}

impl Users {
    pub fn new(db: DatabaseConnection, public_url: Option<url::Url>) -> Self {
        Self { db, public_url }
    }

    /// A one-time link for one person, in `input.role`, valid for
    /// [`INVITE_LIFETIME`]. Only the SHA-256 of its token is kept.
    pub async fn invite(
        &self,
        by: &Granted<ManageUsers>,
        input: &UserInviteInput,
    ) -> Result<CreatedUserInvite, UserError> {
        let (role, networks) = input.validate().map_err(UserError::Invalid)?;
        if !user_networks::all_exist(&self.db, &networks).await? {
            return Err(unknown_network());
        }
        let networks: Vec<String> = networks.iter().map(|n| n.to_string()).collect();
        let token = new_token();
        let now = Utc::now();
        let expires_at = now + INVITE_LIFETIME;
        user_invite::ActiveModel {
            token_hash: Set(token_hash(&token)),
            role: Set(role.as_str().to_string()),
            created_by: Set(by.actor()),
            created_at: Set(now),
            expires_at: Set(expires_at),
            networks: Set(serde_json::to_string(&networks).expect("strings serialise")),
            used_at: Set(None),
        }
        .insert(&self.db)
        .await?;
        audit::record(
            &self.db,
            &by.actor(),
            "user.invited",
            &token_hash(&token)[..12],
            &format!(
                "role {role}, {}, expires {}",
                user_networks::described(&networks),
                rfc3339(expires_at)
            ),
        )
        .await;
        let path = format!("{WELCOME_PATH}{token}");
        let link = match &self.public_url {
            Some(base) => format!("{}{path}", base.as_str().trim_end_matches('/')),
            None => path,
        };
        Ok(CreatedUserInvite {
            link,
            role,
            networks,
            expires_at: rfc3339(expires_at),
        })
    }

    /// The role an invitation link offers, while it can still be used.
    pub async fn invite_role(&self, token: &str) -> Result<Option<Role>, StoreError> {
        Ok(usable_invite(token)
            .one(&self.db)
            .await?
            .and_then(|row| Role::parse("role", &row.role).ok()))
    }

    /// Takes up an invitation: the person chooses a name and a password and
    /// gets the link's role. The link is used up in the same transaction
    /// that creates the person, so it works once even across replicas, and
    /// a refused name leaves it usable.
    pub async fn accept_invite(
        &self,
        token: &str,
        input: &WelcomeInput,
    ) -> Result<(UserId, String), UserError> {
        let name = input.validate().map_err(UserError::Invalid)?;
        // Checked before the slow hashing, so that posting to made-up links
        // costs the server a lookup, not Argon2 work.
        if usable_invite(token).one(&self.db).await?.is_none() {
            return Err(UserError::InviteUnusable);
        }
        // Hashed before the transaction: it is the slow part.
        let hash = passwords::hash(&input.password)
            .await
            .map_err(UserError::Hashing)?;
        let now = Utc::now();
        let txn = crate::begin_write(&self.db).await?;
        let Some(invite) = usable_invite(token).one(&txn).await? else {
            return Err(UserError::InviteUnusable);
        };
        // Unreadable, the link is refused rather than taken as "every network".
        let networks = invited_networks(&invite).ok_or(UserError::InviteUnusable)?;
        let used = user_invite::Entity::update_many()
            .col_expr(user_invite::Column::UsedAt, Expr::value(now))
            .filter(user_invite::Column::TokenHash.eq(invite.token_hash.as_str()))
            .filter(user_invite::Column::UsedAt.is_null())
            .exec(&txn)
            .await?;
        if used.rows_affected != 1 {
            return Err(UserError::InviteUnusable);
        }
        let taken = user::Entity::find()
            .filter(user::Column::Name.eq(name.as_str()))
            .count(&txn)
            .await?
            > 0;
        if taken {
            return Err(UserError::Invalid(vec![FieldError::new(
                "name",
                Problem::UserNameTaken,
            )]));
        }
        let mut bytes = [0u8; 8];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let id = UserId::from_random_bytes(bytes);
        user::ActiveModel {
            id: Set(id.to_string()),
            name: Set(name.clone()),
            role: Set(invite.role.clone()),
            password_hash: Set(Some(hash)),
            disabled_at: Set(None),
            created_at: Set(now),
            last_sign_in_at: Set(None),
            oidc_issuer: Set(None),
            oidc_subject: Set(None),
            pending_since: Set(None),
            role_from_sso: Set(false),
        }
        .insert(&txn)
        .await
        // Two people choosing one name at once: the unique index decides.
        .map_err(|e| match e.sql_err() {
            Some(sea_orm::SqlErr::UniqueConstraintViolation(_)) => {
                UserError::Invalid(vec![FieldError::new("name", Problem::UserNameTaken)])
            }
            _ => e.into(),
        })?;
        user_networks::replace(&txn, id.as_str(), &networks).await?;
        audit::record(
            &txn,
            &format!("user:{name}"),
            "user.joined",
            id.as_str(),
            &format!(
                "role {}, {}, invited by {}",
                invite.role,
                user_networks::described(&networks.iter().map(|n| n.as_str()).collect::<Vec<_>>()),
                invite.created_by
            ),
        )
        .await;
        txn.commit().await?;
        Ok((id, name))
    }

    /// The person a name and password belong to, when they match and the
    /// person is enabled. An unknown name costs the same Argon2 work as a
    /// known one (`passwords::matches`).
    pub(crate) async fn check_password(
        &self,
        name: &str,
        password: &str,
    ) -> Result<Option<user::Model>, StoreError> {
        let name = name.trim().to_ascii_lowercase();
        let row = user::Entity::find()
            .filter(user::Column::Name.eq(name))
            .one(&self.db)
            .await?;
        let stored = row.as_ref().and_then(|r| r.password_hash.clone());
        if !passwords::matches(password, stored).await {
            return Ok(None);
        }
        Ok(row.filter(|r| r.disabled_at.is_none()))
    }

    /// Notes a sign-in for the Users screen.
    pub(crate) async fn signed_in(&self, id: &str, at: DateTime<Utc>) -> Result<(), StoreError> {
        user::Entity::update_many()
            .col_expr(user::Column::LastSignInAt, Expr::value(at))
            .filter(user::Column::Id.eq(id))
            .exec(&self.db)
            .await?;
        Ok(())
    }

    /// Who a session or token of person `id` acts as now: `None` when the
    /// person was deleted or is disabled.
    pub async fn principal(&self, id: &str) -> Result<Option<Principal>, StoreError> {
        let Some(row) = self.enabled(id).await? else {
            return Ok(None);
        };
        let networks = self.networks_of(id).await?;
        let role = role_of(&row);
        let principal = Principal::user(
            UserId::from_stored(row.id.clone()),
            &row.name,
            role,
            networks,
        );
        Ok(Some(through_sso(principal, &row)))
    }

    /// Who a token of person `id` acts as now (`Principal::user_token`).
    pub(crate) async fn token_principal(
        &self,
        id: &str,
        token: &str,
        scope: protocol::tokens::TokenScope,
    ) -> Result<Option<Principal>, StoreError> {
        let Some(row) = self.enabled(id).await? else {
            return Ok(None);
        };
        let networks = self.networks_of(id).await?;
        let role = role_of(&row);
        let person = (UserId::from_stored(row.id.clone()), row.name.clone());
        let principal = Principal::user_token(token, scope, person, role, networks);
        Ok(Some(through_sso(principal, &row)))
    }

    /// The networks person `id` sees, read at each request so that a change
    /// takes effect at their next one.
    async fn networks_of(&self, id: &str) -> Result<NetworkScope, StoreError> {
        user_networks::of_person(&self.db, id).await
    }

    /// An enabled person's row; one waiting for approval is not enabled yet.
    pub(crate) async fn enabled(&self, id: &str) -> Result<Option<user::Model>, StoreError> {
        Ok(user::Entity::find_by_id(id)
            .filter(user::Column::DisabledAt.is_null())
            .filter(user::Column::PendingSince.is_null())
            .one(&self.db)
            .await?)
    }

    /// Everyone, by name, with their open sessions.
    pub async fn list(&self, _by: &Granted<ManageUsers>) -> Result<Vec<UserView>, StoreError> {
        let rows = user::Entity::find()
            .order_by_asc(user::Column::Name)
            .limit(LIST_LIMIT)
            .all(&self.db)
            .await?;
        let sessions = open_sessions(&self.db, None).await?;
        let mut networks = user_networks::of_everyone(&self.db).await?;
        let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
        let second_factors = second_factor::enabled_among(&self.db, &ids).await?;
        let mut people: Vec<UserView> = rows
            .into_iter()
            .map(|row| {
                let open = sessions.get(&row.id).copied();
                let networks = networks.remove(&row.id).unwrap_or_default();
                let two_step = second_factors.contains(&row.id);
                view(row, networks, open, two_step)
            })
            .collect();
        // Those waiting for approval first: they are what the owner came for.
        people.sort_by_key(|p| !p.pending);
        Ok(people)
    }

    /// Changes a person's role, networks, and/or disables or enables them.
    /// Disabling ends their sessions and tokens at once; new networks apply
    /// from their next request. The owner role sees every network, so
    /// becoming owner lifts a limit.
    pub async fn change(
        &self,
        by: &Granted<ManageUsers>,
        id: &UserId,
        change: &UserChange,
    ) -> Result<UserView, UserError> {
        let (role, disabled) = change.validate().map_err(UserError::Invalid)?;
        let txn = crate::begin_write(&self.db).await?;
        lock_owners(&txn).await?;
        let row = find(&txn, id).await?;
        let now = Utc::now();
        let stays_owner = role.unwrap_or(role_of(&row)) == Role::Owner
            && !disabled.unwrap_or(row.disabled_at.is_some());
        if !stays_owner {
            guard_last_owner(&txn, &row).await?;
        }
        let mut active: user::ActiveModel = row.clone().into();
        let mut said = Vec::new();
        let new_role = role.unwrap_or(role_of(&row));
        let networks = match &change.networks {
            Some(ids) => {
                Some(network_limit(new_role, ids).map_err(|e| UserError::Invalid(vec![e]))?)
            }
            None if new_role == Role::Owner => Some(Vec::new()),
            None => None,
        };
        if let Some(networks) = networks {
            if !user_networks::all_exist(&txn, &networks).await? {
                return Err(unknown_network());
            }
            let before = user_networks::ids_of(&txn, id.as_str()).await?;
            let mut after: Vec<String> = networks.iter().map(|n| n.to_string()).collect();
            after.sort();
            if before != after {
                user_networks::replace(&txn, id.as_str(), &networks).await?;
                said.push(format!(
                    "networks {} → {}",
                    user_networks::described(&before),
                    user_networks::described(&after)
                ));
            }
        }
        match role {
            // Choosing a role for a person waiting is approving them.
            Some(role) if row.pending_since.is_some() => {
                active.role = Set(role.as_str().to_string());
                active.pending_since = Set(None);
                said.push(format!("approved as {role}"));
            }
            Some(role) if role != role_of(&row) => {
                active.role = Set(role.as_str().to_string());
                said.push(format!("role {} → {role}", row.role));
            }
            _ => {}
        }
        if row.role_from_sso && (role.is_some() || change.networks.is_some()) {
            // The owner's choice now, kept when no group maps any more.
            active.role_from_sso = Set(false);
        }
        match disabled {
            Some(true) if row.disabled_at.is_none() => {
                active.disabled_at = Set(Some(now));
                end_access(&txn, id.as_str(), now).await?;
                said.push("disabled; sessions and tokens ended".into());
            }
            Some(false) if row.disabled_at.is_some() => {
                active.disabled_at = Set(None);
                said.push("enabled".into());
            }
            _ => {}
        }
        let row = active.update(&txn).await?;
        if !said.is_empty() {
            audit::record(
                &txn,
                &by.actor(),
                "user.changed",
                &row.name,
                &said.join("; "),
            )
            .await;
        }
        txn.commit().await?;
        let open = open_sessions(&self.db, Some(id.as_str())).await?;
        let networks = user_networks::ids_of(&self.db, id.as_str()).await?;
        let two_step = has_second_factor(&self.db, &row.id).await?;
        Ok(view(
            row.clone(),
            networks,
            open.get(&row.id).copied(),
            two_step,
        ))
    }

    /// Ends every session of a person (they must sign in again).
    pub async fn end_sessions(
        &self,
        by: &Granted<ManageUsers>,
        id: &UserId,
    ) -> Result<UserView, UserError> {
        let row = find(&self.db, id).await?;
        let ended = admin_session::Entity::delete_many()
            .filter(admin_session::Column::UserId.eq(id.as_str()))
            .exec(&self.db)
            .await?;
        audit::record(
            &self.db,
            &by.actor(),
            "user.sessions_ended",
            &row.name,
            &format!("{} session(s)", ended.rows_affected),
        )
        .await;
        let networks = user_networks::ids_of(&self.db, id.as_str()).await?;
        let two_step = has_second_factor(&self.db, &row.id).await?;
        Ok(view(row, networks, None, two_step))
    }

    /// Removes a person: their sessions end and their tokens are revoked
    /// (kept, revoked, so the token list still explains old audit entries).
    pub async fn delete(&self, by: &Granted<ManageUsers>, id: &UserId) -> Result<(), UserError> {
        let txn = crate::begin_write(&self.db).await?;
        lock_owners(&txn).await?;
        let row = find(&txn, id).await?;
        guard_last_owner(&txn, &row).await?;
        end_access(&txn, id.as_str(), Utc::now()).await?;
        second_factor::forget(&txn, id.as_str()).await?;
        // Not left to the foreign key: SQLite enforces it only when asked.
        user_networks::replace(&txn, id.as_str(), &[]).await?;
        user::Entity::delete_by_id(id.as_str()).exec(&txn).await?;
        audit::record(&txn, &by.actor(), "user.deleted", &row.name, &row.role).await;
        txn.commit().await?;
        Ok(())
    }
}

async fn has_second_factor(db: &impl ConnectionTrait, id: &str) -> Result<bool, StoreError> {
    Ok(second_factor::enabled_among(db, &[id.to_string()])
        .await?
        .contains(id))
}

fn usable_invite(token: &str) -> sea_orm::Select<user_invite::Entity> {
    user_invite::Entity::find_by_id(token_hash(token))
        .filter(user_invite::Column::UsedAt.is_null())
        .filter(user_invite::Column::ExpiresAt.gt(Utc::now()))
}

async fn find(db: &impl ConnectionTrait, id: &UserId) -> Result<user::Model, UserError> {
    user::Entity::find_by_id(id.as_str())
        .one(db)
        .await?
        .ok_or(UserError::NotFound)
}

/// Serialises changes that could remove the last owner: a no-op write on
/// every enabled owner's row takes those rows' locks on PostgreSQL (a
/// concurrent change waits, then counts again) and the write lock on SQLite.
async fn lock_owners(txn: &impl ConnectionTrait) -> Result<(), StoreError> {
    user::Entity::update_many()
        .col_expr(user::Column::Role, Expr::col(user::Column::Role).into())
        .filter(user::Column::Role.eq(Role::Owner.as_str()))
        .filter(user::Column::DisabledAt.is_null())
        .exec(txn)
        .await?;
    Ok(())
}

/// Refuses when `row` is the only enabled person with the owner role.
async fn guard_last_owner(txn: &impl ConnectionTrait, row: &user::Model) -> Result<(), UserError> {
    if role_of(row) != Role::Owner || row.disabled_at.is_some() {
        return Ok(());
    }
    let other_owners = user::Entity::find()
        .filter(user::Column::Role.eq(Role::Owner.as_str()))
        .filter(user::Column::DisabledAt.is_null())
        .filter(user::Column::Id.ne(row.id.as_str()))
        .count(txn)
        .await?;
    if other_owners == 0 {
        return Err(UserError::LastOwner);
    }
    Ok(())
}

/// Deletes a person's sessions and revokes their tokens.
pub(super) async fn end_access(
    txn: &impl ConnectionTrait,
    id: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    admin_session::Entity::delete_many()
        .filter(admin_session::Column::UserId.eq(id))
        .exec(txn)
        .await?;
    api_token::Entity::update_many()
        .col_expr(api_token::Column::RevokedAt, Expr::value(now))
        .filter(api_token::Column::UserId.eq(id))
        .filter(api_token::Column::RevokedAt.is_null())
        .exec(txn)
        .await?;
    Ok(())
}

/// Per person (or only `only`): how many sessions are open, and the newest's start.
async fn open_sessions(
    db: &impl ConnectionTrait,
    only: Option<&str>,
) -> Result<HashMap<String, (u64, DateTime<Utc>)>, StoreError> {
    let mut query = admin_session::Entity::find()
        .filter(admin_session::Column::UserId.is_not_null())
        .filter(admin_session::Column::ExpiresAt.gt(Utc::now()));
    if let Some(id) = only {
        query = query.filter(admin_session::Column::UserId.eq(id));
    }
    let mut by_user: HashMap<String, (u64, DateTime<Utc>)> = HashMap::new();
    for session in query.all(db).await? {
        let Some(user) = session.user_id else {
            continue;
        };
        let entry = by_user.entry(user).or_insert((0, session.created_at));
        entry.0 += 1;
        entry.1 = entry.1.max(session.created_at);
    }
    Ok(by_user)
}

/// The networks an invitation gives, or `None` when its column is unreadable.
fn invited_networks(invite: &user_invite::Model) -> Option<Vec<protocol::NetworkId>> {
    let ids: Vec<String> = serde_json::from_str(&invite.networks).ok()?;
    ids.iter()
        .map(|id| protocol::NetworkId::parse(id).ok())
        .collect()
}

fn unknown_network() -> UserError {
    UserError::Invalid(vec![FieldError::new("networks", Problem::UnknownNetwork)])
}

fn view(
    row: user::Model,
    networks: Vec<String>,
    open: Option<(u64, DateTime<Utc>)>,
    second_factor: bool,
) -> UserView {
    UserView {
        second_factor,
        networks,
        role: role_of(&row),
        id: UserId::from_stored(row.id),
        name: row.name,
        disabled: row.disabled_at.is_some(),
        created_at: rfc3339(row.created_at),
        last_sign_in_at: row.last_sign_in_at.map(rfc3339),
        open_sessions: open.map_or(0, |(n, _)| n),
        newest_session_at: open.map(|(_, at)| rfc3339(at)),
        pending: row.pending_since.is_some(),
        single_sign_on: row.oidc_subject.is_some(),
    }
}

/// A person who signs in through the OpenID provider is named by their
/// provider account in the audit log.
fn through_sso(principal: Principal, row: &user::Model) -> Principal {
    match (&row.oidc_issuer, &row.oidc_subject) {
        (Some(issuer), Some(subject)) => principal.through_sso(issuer, subject),
        _ => principal,
    }
}
