//! The person a provider account is: found by issuer and subject (never by
//! e-mail or name, which another account could claim), created at its first
//! sign-in, and given the role its groups map to again at every sign-in.
//!
//! A role that came from the provider (`role_from_sso`) follows the groups:
//! when no group maps any more and there is no default role, the person is
//! back to waiting for approval, and their sessions and tokens end (their
//! networks stay, for an approval with a role alone). A role the owner chose
//! (approving a waiting person, or changing a role on the Users screen)
//! stays until the owner changes it or a group maps; the default role never
//! replaces it.

use super::super::roles::Role;
use super::super::user_networks;
use super::super::users::role_of;
use super::mapping::Grant;
use crate::entities::{network, user};
use crate::{audit, StoreError};
use chrono::Utc;
use protocol::{Id, NetworkId, UserId};
use rand::RngCore;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait,
    PaginatorTrait, QueryFilter, Set,
};

/// Who signed in, as the provider's verified ID token says.
#[derive(Clone, Debug)]
pub struct ProviderAccount {
    pub issuer: String,
    pub subject: String,
    /// What to call them if they are new (`preferred_username`, e-mail, name).
    pub suggested_name: Option<String>,
    pub groups: Vec<String>,
}

impl ProviderAccount {
    /// How the audit log names them.
    pub fn actor(&self) -> String {
        format!("sso:{}/{}", self.issuer, self.subject)
    }
}

/// Where a sign-in through the provider leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccountState {
    /// Has a role: a session may be opened.
    Active { id: UserId, name: String },
    /// Waits for the owner's approval.
    Pending { name: String },
    /// The owner disabled this person.
    Disabled,
}

/// A grant's networks as IDs. A name (compared without regard to case, as
/// names are unique) that names no profile is left out with a warning; `None`
/// when the grant named networks and none is left, so that it never turns
/// into every network.
async fn resolve(
    db: &impl ConnectionTrait,
    grant: &Grant,
) -> Result<Option<Vec<NetworkId>>, StoreError> {
    let mut ids = Vec::new();
    for reference in &grant.networks {
        let by_id = match NetworkId::parse(reference) {
            Ok(id) => network::Entity::find_by_id(id.as_str()).one(db).await?,
            Err(_) => None,
        };
        let found = match by_id {
            Some(row) => vec![row.id],
            None => crate::network_names::named(db, reference, None)
                .await?
                .into_iter()
                .map(|(id, _)| id)
                .collect(),
        };
        let [row] = found.as_slice() else {
            tracing::warn!(
                network = reference.as_str(),
                matches = found.len(),
                "single sign-on: the role map names a network that is not exactly one network profile; it is left out"
            );
            continue;
        };
        match NetworkId::parse(row) {
            Ok(id) if !ids.contains(&id) => ids.push(id),
            _ => {}
        }
    }
    if ids.is_empty() && !grant.networks.is_empty() {
        return Ok(None);
    }
    ids.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    Ok(Some(ids))
}

/// A sign-in name for a new person: the provider's suggestion in the
/// characters names allow, made unique with `-2`, `-3`, … (a local person
/// keeps theirs; accounts are never merged by name).
async fn free_name(
    db: &impl ConnectionTrait,
    suggested: Option<&str>,
) -> Result<String, StoreError> {
    let base = name_from(suggested.unwrap_or(""));
    for n in 1..100 {
        let candidate = if n == 1 {
            base.clone()
        } else {
            format!("{base}-{n}")
        };
        let taken = user::Entity::find()
            .filter(user::Column::Name.eq(candidate.as_str()))
            .count(db)
            .await?
            > 0;
        if !taken {
            return Ok(candidate);
        }
    }
    Ok(format!("{base}-{:08x}", rand::random::<u32>()))
}

/// `Anna.Smith@Example.com` → `anna.smith`: the part before `@`, lowercased,
/// other characters as `-`, starting with a letter or digit.
fn name_from(suggested: &str) -> String {
    let local = suggested.split('@').next().unwrap_or("");
    let cleaned: String = local
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    let trimmed = cleaned.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
    let mut name: String = trimmed.chars().take(50).collect();
    name = name.trim_end_matches('-').to_string();
    if name.is_empty() {
        "sso-user".into()
    } else {
        name
    }
}

/// Finds or creates the person of `account` and applies `grant` (what the
/// groups or the default role give; `None`: nothing), in one transaction.
pub(super) async fn sign_in_as(
    db: &DatabaseConnection,
    account: &ProviderAccount,
    grant: Option<Grant>,
) -> Result<AccountState, StoreError> {
    let txn = crate::begin_write(db).await?;
    // Write first: on PostgreSQL this locks the person's row, so an owner's
    // change made meanwhile is not overwritten; on SQLite it takes the write
    // lock before any read (a read-then-write transaction can fail as busy).
    user::Entity::update_many()
        .col_expr(user::Column::Role, Expr::col(user::Column::Role).into())
        .filter(user::Column::OidcIssuer.eq(account.issuer.as_str()))
        .filter(user::Column::OidcSubject.eq(account.subject.as_str()))
        .exec(&txn)
        .await?;
    let resolved = match &grant {
        Some(g) => resolve(&txn, g).await?.map(|ids| (g, ids)),
        None => None,
    };
    let actor = account.actor();
    let now = Utc::now();
    let existing = user::Entity::find()
        .filter(user::Column::OidcIssuer.eq(account.issuer.as_str()))
        .filter(user::Column::OidcSubject.eq(account.subject.as_str()))
        .one(&txn)
        .await?;
    let state = match existing {
        None => {
            let name = free_name(&txn, account.suggested_name.as_deref()).await?;
            let mut bytes = [0u8; 8];
            rand::rngs::OsRng.fill_bytes(&mut bytes);
            let id = UserId::from_random_bytes(bytes);
            let (role, pending) = match &resolved {
                Some((g, _)) => (g.role, None),
                // The weakest role as a placeholder: a waiting person has no
                // access at all, and never counts as an owner.
                None => (Role::Viewer, Some(now)),
            };
            user::ActiveModel {
                id: Set(id.to_string()),
                name: Set(name.clone()),
                role: Set(role.as_str().to_string()),
                password_hash: Set(None),
                disabled_at: Set(None),
                created_at: Set(now),
                last_sign_in_at: Set(None),
                oidc_issuer: Set(Some(account.issuer.clone())),
                oidc_subject: Set(Some(account.subject.clone())),
                pending_since: Set(pending),
                role_from_sso: Set(resolved.is_some()),
            }
            .insert(&txn)
            .await?;
            match &resolved {
                Some((g, ids)) => {
                    user_networks::replace(&txn, id.as_str(), ids).await?;
                    audit::record(
                        &txn,
                        &actor,
                        "user.joined",
                        &name,
                        &format!("through single sign-on: {}", granted(g, ids)),
                    )
                    .await;
                    AccountState::Active { id, name }
                }
                None => {
                    audit::record(
                        &txn,
                        &actor,
                        "user.pending",
                        &name,
                        &format!(
                            "through single sign-on; no role for groups [{}]: waits for the owner's approval",
                            account.groups.join(", ")
                        ),
                    )
                    .await;
                    AccountState::Pending { name }
                }
            }
        }
        Some(row) if row.disabled_at.is_some() => AccountState::Disabled,
        Some(row) => sync(&txn, row, resolved, &actor, now).await?,
    };
    txn.commit().await?;
    Ok(state)
}

/// How a grant reads in the audit log.
fn granted(grant: &Grant, ids: &[NetworkId]) -> String {
    let source = if grant.groups.is_empty() {
        "the default role".to_string()
    } else {
        format!("groups [{}]", grant.groups.join(", "))
    };
    format!(
        "role {}, {}, from {source}",
        grant.role,
        user_networks::described(&ids.iter().map(|n| n.as_str()).collect::<Vec<_>>())
    )
}

/// An existing, enabled person signs in again: their groups decide anew.
async fn sync(
    txn: &impl ConnectionTrait,
    row: user::Model,
    resolved: Option<(&Grant, Vec<NetworkId>)>,
    actor: &str,
    now: chrono::DateTime<Utc>,
) -> Result<AccountState, StoreError> {
    let id = UserId::from_stored(row.id.clone());
    let name = row.name.clone();
    match resolved {
        // The default role is for people nobody chose a role for: it never
        // undoes the owner's choice.
        Some((grant, _))
            if grant.groups.is_empty() && !row.role_from_sso && row.pending_since.is_none() =>
        {
            Ok(AccountState::Active { id, name })
        }
        Some((grant, ids)) => {
            let mut before = user_networks::ids_of(txn, id.as_str()).await?;
            before.sort();
            let after: Vec<String> = ids.iter().map(|n| n.to_string()).collect();
            let changed = role_of(&row) != grant.role
                || before != after
                || row.pending_since.is_some()
                || !row.role_from_sso;
            if changed {
                let mut active: user::ActiveModel = row.clone().into();
                active.role = Set(grant.role.as_str().to_string());
                active.pending_since = Set(None);
                active.role_from_sso = Set(true);
                active.update(txn).await?;
                user_networks::replace(txn, id.as_str(), &ids).await?;
                audit::record(
                    txn,
                    actor,
                    "user.role_synced",
                    &name,
                    &format!(
                        "was role {}, {}{}; now {}",
                        row.role,
                        user_networks::described(&before),
                        if row.pending_since.is_some() {
                            " (waiting)"
                        } else {
                            ""
                        },
                        granted(grant, &ids)
                    ),
                )
                .await;
            }
            Ok(AccountState::Active { id, name })
        }
        None if row.role_from_sso => {
            // The provider no longer grants the role it gave: it goes, and
            // with it every session and token of the person.
            let mut active: user::ActiveModel = row.clone().into();
            active.role = Set(Role::Viewer.as_str().to_string());
            active.pending_since = Set(Some(now));
            active.role_from_sso = Set(false);
            active.update(txn).await?;
            // Their networks stay: approving them again with a role alone
            // must not widen them to every network.
            super::super::users::end_access(txn, id.as_str(), now).await?;
            audit::record(
                txn,
                actor,
                "user.role_removed",
                &name,
                &format!(
                    "role {} taken away: no group maps to a role any more; waits for the owner's approval",
                    row.role
                ),
            )
            .await;
            Ok(AccountState::Pending { name })
        }
        None if row.pending_since.is_some() => Ok(AccountState::Pending { name }),
        // A role the owner chose stays.
        None => Ok(AccountState::Active { id, name }),
    }
}

#[cfg(test)]
mod tests {
    use super::name_from;

    #[test]
    fn provider_names_become_plain_sign_in_names() {
        assert_eq!(name_from("Anna.Smith@Example.com"), "anna.smith");
        assert_eq!(name_from("bob"), "bob");
        assert_eq!(name_from("Élodie Dupont"), "lodie-dupont");
        assert_eq!(name_from("__x"), "x");
        assert_eq!(name_from(""), "sso-user");
        assert_eq!(name_from("@example.com"), "sso-user");
        assert_eq!(name_from("ünïcode"), "n-code");
        assert!(name_from(&"a".repeat(200)).len() <= 50);
        for n in ["Anna.Smith@Example.com", "Élodie Dupont", "__x", "ünïcode"] {
            protocol::users::user_name(&name_from(n)).expect("a valid name");
        }
    }
}
