//! Who is acting in a request, and the capability to act. The HTTP gate
//! makes a [`Principal`] from the request's session or API token; a domain
//! method that changes something takes a [`Granted`] for its action, and the
//! only way to get one is [`Principal::may`], which asks the role table. So a
//! service cannot be called without the check, and the audit log names the
//! principal the check was made for.

use super::roles::{Action, Role};
use protocol::tokens::TokenScope;
use std::fmt;
use std::marker::PhantomData;

/// Who it is, as the audit log names them.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Actor {
    /// The account of `KNOTROUTE_CONTROL_ADMIN_PASSWORD`: always works.
    Owner,
    /// An API token; tokens belong to the owner.
    Token { name: String },
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
            },
            role: match scope {
                TokenScope::Read => Role::Viewer,
                TokenScope::Write => Role::Admin,
            },
        }
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

/// The audit log's spelling: `owner (break-glass)`, `token:<name> (owner)`.
impl fmt::Display for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.actor {
            Actor::Owner => f.write_str("owner (break-glass)"),
            Actor::Token { name } => write!(f, "token:{name} (owner)"),
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
    }
}
