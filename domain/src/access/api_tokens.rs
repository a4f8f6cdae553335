//! Personal API tokens: scripts call /api/v1 with `Authorization: Bearer
//! krt_…` instead of holding a password. Only a SHA-256 of each token is
//! stored; it is shown once, when created. A token belongs to whoever made
//! it (a person, or the break-glass owner account), each sees and revokes
//! only their own, and a token never does more than its person can now.

use crate::access::principal::{Granted, Principal};
use crate::access::roles::ManageOwnApiTokens;
use crate::access::secrets::{new_token, token_hash};
use crate::access::users::Users;
use crate::entities::api_token;
use crate::rfc3339;
use crate::{audit, StoreError};
use chrono::{Duration, Utc};
use protocol::tokens::{CreatedToken, TokenInput, TokenScope, TokenView};
use protocol::FieldError;
use protocol::{ApiTokenId, Id};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};

/// What every token starts with, so secret scanners and people recognise it.
pub const TOKEN_PREFIX: &str = "krt_";
/// Characters of the token kept in clear to tell tokens apart in the list.
const SHOWN_PREFIX: usize = 12;
/// Tokens listed (revoked ones included).
const LIST_LIMIT: u64 = 200;
/// `last_used_at` is written at most this often per token, not on every call.
const USE_RESOLUTION: Duration = Duration::minutes(1);

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("invalid input")]
    Invalid(Vec<FieldError>),
    #[error("no such token")]
    NotFound,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Clone)]
pub struct ApiTokens {
    db: DatabaseConnection,
    users: Users,
}

fn view(row: api_token::Model) -> TokenView {
    TokenView {
        scope: TokenScope::parse(&row.scope).unwrap_or(TokenScope::Read),
        id: ApiTokenId::from_stored(row.id),
        name: row.name,
        prefix: row.prefix,
        created_at: rfc3339(row.created_at),
        last_used_at: row.last_used_at.map(rfc3339),
        revoked_at: row.revoked_at.map(rfc3339),
    }
}

impl ApiTokens {
    pub fn new(db: DatabaseConnection, users: Users) -> Self {
        Self { db, users }
    }

    pub async fn create(
        &self,
        by: &Granted<ManageOwnApiTokens>,
        input: &TokenInput,
    ) -> Result<CreatedToken, TokenError> {
        let (name, scope) = input.validate().map_err(TokenError::Invalid)?;
        let token = format!("{TOKEN_PREFIX}{}", new_token());
        let row = api_token::ActiveModel {
            id: Set(format!("tok_{}", &new_token()[..16])),
            name: Set(name),
            token_hash: Set(token_hash(&token)),
            prefix: Set(token[..SHOWN_PREFIX].to_string()),
            scope: Set(scope.as_str().to_string()),
            created_at: Set(Utc::now()),
            last_used_at: Set(None),
            revoked_at: Set(None),
            user_id: Set(by.user_id().map(|id| id.to_string())),
        }
        .insert(&self.db)
        .await?;
        audit::record(
            &self.db,
            &by.actor(),
            "token.created",
            &row.id,
            &format!("{} ({})", row.name, row.scope),
        )
        .await;
        Ok(CreatedToken {
            token,
            view: view(row),
        })
    }

    /// The caller's own tokens, newest first.
    pub async fn list(
        &self,
        by: &Granted<ManageOwnApiTokens>,
    ) -> Result<Vec<TokenView>, StoreError> {
        Ok(own(by)
            .order_by_desc(api_token::Column::CreatedAt)
            .order_by_desc(api_token::Column::Id)
            .limit(LIST_LIMIT)
            .all(&self.db)
            .await?
            .into_iter()
            .map(view)
            .collect())
    }

    /// Stops the token at once; revoking it again changes nothing.
    pub async fn revoke(
        &self,
        by: &Granted<ManageOwnApiTokens>,
        id: &ApiTokenId,
    ) -> Result<TokenView, TokenError> {
        let id = id.as_str();
        let row = own(by)
            .filter(api_token::Column::Id.eq(id))
            .one(&self.db)
            .await?
            .ok_or(TokenError::NotFound)?;
        if row.revoked_at.is_some() {
            return Ok(view(row));
        }
        let mut active: api_token::ActiveModel = row.into();
        active.revoked_at = Set(Some(Utc::now()));
        let row = active.update(&self.db).await?;
        audit::record(&self.db, &by.actor(), "token.revoked", &row.id, &row.name).await;
        Ok(view(row))
    }

    /// Who a presented token acts as, and its scope; `None` when it is
    /// unknown or revoked, or its person is disabled or deleted. The lookup
    /// is by the token's SHA-256: the database compares digests, which tell
    /// an attacker nothing about any stored token.
    pub async fn authenticate(
        &self,
        presented: &str,
    ) -> Result<Option<(Principal, TokenScope)>, StoreError> {
        if !presented.starts_with(TOKEN_PREFIX) {
            return Ok(None);
        }
        let Some(row) = api_token::Entity::find()
            .filter(api_token::Column::TokenHash.eq(token_hash(presented)))
            .one(&self.db)
            .await?
        else {
            return Ok(None);
        };
        if row.revoked_at.is_some() {
            return Ok(None);
        }
        let now = Utc::now();
        if row.last_used_at.is_none_or(|t| now - t >= USE_RESOLUTION) {
            api_token::Entity::update_many()
                .col_expr(
                    api_token::Column::LastUsedAt,
                    sea_orm::sea_query::Expr::value(now),
                )
                .filter(api_token::Column::Id.eq(row.id.as_str()))
                .exec(&self.db)
                .await?;
        }
        let Some(scope) = TokenScope::parse(&row.scope) else {
            return Ok(None);
        };
        let principal = match &row.user_id {
            None => Some(Principal::api_token(&row.name, scope)),
            Some(user) => self.users.token_principal(user, &row.name, scope).await?,
        };
        Ok(principal.map(|p| (p, scope)))
    }
}

/// The tokens of whoever acts: a person's, or the owner account's.
fn own<A: crate::access::roles::Action>(by: &Granted<A>) -> sea_orm::Select<api_token::Entity> {
    let find = api_token::Entity::find();
    match by.user_id() {
        Some(id) => find.filter(api_token::Column::UserId.eq(id.as_str())),
        None => find.filter(api_token::Column::UserId.is_null()),
    }
}
