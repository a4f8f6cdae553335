//! Who is acting in a request, and the capability to act. The HTTP gate
//! makes a [`Principal`] from the request's session or API token; a domain
//! method that changes something takes a [`Granted`] for its action, and the
//! only way to get one is [`Principal::may`], which asks the role table. So a
//! service cannot be called without the check, and the audit log names the
//! principal the check was made for.

use super::roles::{Action, Role, RoleRules};
use protocol::tokens::TokenScope;
use protocol::UserId;
use std::fmt;
use std::marker::PhantomData;

/// Who it is, as the audit log names them.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Actor {
    /// The account of `KNOTROUTE_CONTROL_ADMIN_PASSWORD`: always works.
    Owner,
    /// A person with an account of their own.
    User { id: UserId, name: String },
    /// An API token, of the owner (`user: None`) or of a person.
    Token {
        name: String,
        user: Option<(UserId, String)>,
    },
}

/// A person or token acting in one request, with the role it acts in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    actor: Actor,
    role: Role,
}

impl Principal {
    /// The break-glass owner, signed in with the admin password.
    pub fn owner() -> Self {
        Self {
            actor: Actor::Owner,
            role: Role::Owner,
        }
    }

    /// An API token of the owner. It never does more than its scope: a read
    /// token acts as a viewer, a write token as an admin (tokens manage
    /// neither people nor tokens).
    pub fn api_token(name: &str, scope: TokenScope) -> Self {
        Self {
            actor: Actor::Token {
                name: name.to_string(),
                user: None,
            },
            role: scope_role(scope),
        }
    }

    /// A person, in the role their account has now.
    pub fn user(id: UserId, name: &str, role: Role) -> Self {
        Self {
            actor: Actor::User {
                id,
                name: name.to_string(),
            },
            role,
        }
    }

    /// A person's API token: never more than its scope, nor than its person
    /// can do now (`role` is read from the person's account at each request).
    pub fn user_token(name: &str, scope: TokenScope, user: (UserId, String), role: Role) -> Self {
        Self {
            actor: Actor::Token {
                name: name.to_string(),
                user: Some(user),
            },
            role: role.min(scope_role(scope)),
        }
    }

    /// The person acting, directly or through their token; `None` for the
    /// break-glass owner and the owner's tokens.
    pub fn user_id(&self) -> Option<&UserId> {
        match &self.actor {
            Actor::Owner | Actor::Token { user: None, .. } => None,
            Actor::User { id, .. }
            | Actor::Token {
                user: Some((id, _)),
                ..
            } => Some(id),
        }
    }

    pub fn role(&self) -> Role {
        self.role
    }

    /// The capability to take action `A`, when this principal's role allows it.
    pub fn may<A: Action>(&self) -> Result<Granted<A>, NotAllowed> {
        if self.role.allows(A::KIND) {
            Ok(Granted {
                by: self.clone(),
                action: PhantomData,
            })
        } else {
            Err(NotAllowed {
                role: self.role,
                action: A::KIND,
            })
        }
    }
}

/// A token's own limit: a read token acts as a viewer, a write token as an
/// admin (tokens manage neither people nor tokens).
fn scope_role(scope: TokenScope) -> Role {
    match scope {
        TokenScope::Read => Role::Viewer,
        TokenScope::Write => Role::Admin,
    }
}

/// The audit log's spelling: `owner (break-glass)`, `user:<name>`,
/// `token:<name> (owner)`, `token:<name> (user:<name>)`.
impl fmt::Display for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.actor {
            Actor::Owner => f.write_str("owner (break-glass)"),
            Actor::User { name, .. } => write!(f, "user:{name}"),
            Actor::Token { name, user: None } => write!(f, "token:{name} (owner)"),
            Actor::Token {
                name,
                user: Some((_, user)),
            } => write!(f, "token:{name} (user:{user})"),
        }
    }
}

/// Proof that a principal was allowed action `A`. It has no public
/// constructor: [`Principal::may`] is the only way to one.
#[derive(Debug)]
pub struct Granted<A: Action> {
    by: Principal,
    action: PhantomData<A>,
}

impl<A: Action> Granted<A> {
    /// Who acts, as the audit log writes it.
    pub fn actor(&self) -> String {
        self.by.to_string()
    }

    /// The person acting, if not the owner account (what they create is theirs).
    pub fn user_id(&self) -> Option<&UserId> {
        self.by.user_id()
    }
}

/// The principal's role does not allow the action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the {role} role does not allow {action:?}")]
pub struct NotAllowed {
    pub role: Role,
    pub action: super::roles::ActionKind,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::roles::{ChangeSettings, ManageUsers, RunJobs};

    #[test]
    fn a_token_never_does_more_than_its_scope() {
        let read = Principal::api_token("ci", TokenScope::Read);
        assert!(read.may::<RunJobs>().is_err());
        let write = Principal::api_token("ci", TokenScope::Write);
        assert!(write.may::<ChangeSettings>().is_ok());
        assert_eq!(
            write.may::<ManageUsers>().unwrap_err(),
            NotAllowed {
                role: Role::Admin,
                action: ManageUsers::KIND
            }
        );
        assert!(Principal::owner().may::<ManageUsers>().is_ok());
    }

    #[test]
    fn the_audit_log_names_who_acted() {
        assert_eq!(
            Principal::owner().may::<RunJobs>().unwrap().actor(),
            "owner (break-glass)"
        );
        assert_eq!(
            Principal::api_token("deploy-bot", TokenScope::Write).to_string(),
            "token:deploy-bot (owner)"
        );
        let anna = UserId::from_random_bytes([7; 8]);
        assert_eq!(
            Principal::user(anna.clone(), "anna", Role::Operator).to_string(),
            "user:anna"
        );
        assert_eq!(
            Principal::user_token("ci", TokenScope::Write, (anna, "anna".into()), Role::Admin)
                .to_string(),
            "token:ci (user:anna)"
        );
    }

    #[test]
    fn a_persons_token_never_does_more_than_its_person() {
        let anna = (UserId::from_random_bytes([1; 8]), "anna".to_string());
        let operator_write =
            Principal::user_token("ci", TokenScope::Write, anna.clone(), Role::Operator);
        assert!(operator_write.may::<RunJobs>().is_ok());
        assert_eq!(operator_write.role(), Role::Operator);
        assert!(operator_write.may::<ChangeSettings>().is_err());
        let owner_read = Principal::user_token("ci", TokenScope::Read, anna.clone(), Role::Owner);
        assert_eq!(owner_read.role(), Role::Viewer);
        let owner_write = Principal::user_token("ci", TokenScope::Write, anna.clone(), Role::Owner);
        assert!(
            owner_write.may::<ManageUsers>().is_err(),
            "tokens never manage people"
        );
        assert_eq!(owner_write.user_id(), Some(&anna.0));
        assert_eq!(Principal::owner().user_id(), None);
    }
}
