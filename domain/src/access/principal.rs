//! Who is acting in a request, and the capability to act. The HTTP gate
//! makes a [`Principal`] from the request's session or API token; a domain
//! method that changes something takes a [`Granted`] for its action, and the
//! only way to get one is [`Principal::may`], which asks the role table. So a
//! service cannot be called without the check, and the audit log names the
//! principal the check was made for.

use super::roles::{fleet_wide, Action, ActionKind, Role, RoleRules};
use super::scope::NetworkScope;
use protocol::tokens::TokenScope;
use protocol::UserId;
use std::fmt;
use std::marker::PhantomData;

/// Who it is, as the audit log names them.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Actor {
    /// The account of `KNOTROUTE_CONTROL_ADMIN_PASSWORD`: always works.
    Owner,
    /// A person with an account of their own; `sso` is `<issuer>/<subject>`
    /// for one who signs in through the OpenID provider.
    User {
        id: UserId,
        name: String,
        sso: Option<String>,
    },
    /// An API token, of the owner (`user: None`) or of a person (with the
    /// person as the audit log names them: `user:<name>`, `sso:<…>`).
    Token {
        name: String,
        user: Option<(UserId, String)>,
    },
}

/// A person or token acting in one request, with the role it acts in and
/// the networks it sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    actor: Actor,
    role: Role,
    networks: NetworkScope,
}

impl Principal {
    /// The break-glass owner, signed in with the admin password.
    pub fn owner() -> Self {
        Self {
            actor: Actor::Owner,
            role: Role::Owner,
            networks: NetworkScope::all(),
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
            networks: NetworkScope::all(),
        }
    }

    /// A person, in the role and with the networks their account has now.
    /// The owner role sees every network, whatever `networks` says.
    pub fn user(id: UserId, name: &str, role: Role, networks: NetworkScope) -> Self {
        Self {
            actor: Actor::User {
                id,
                name: name.to_string(),
                sso: None,
            },
            role,
            networks: owner_sees_all(role, networks),
        }
    }

    /// A person's API token: never more than its scope, nor than its person
    /// can do now (`role` and `networks` are read from the person's account
    /// at each request).
    pub fn user_token(
        name: &str,
        scope: TokenScope,
        user: (UserId, String),
        role: Role,
        networks: NetworkScope,
    ) -> Self {
        Self {
            actor: Actor::Token {
                name: name.to_string(),
                user: Some((user.0, format!("user:{}", user.1))),
            },
            role: role.min(scope_role(scope)),
            networks: owner_sees_all(role, networks),
        }
    }

    /// The same principal, for a person who signs in through the OpenID
    /// provider `issuer` as `subject`: the audit log names them
    /// `sso:<issuer>/<subject>`, and their tokens `token:<name> (sso:…)`.
    pub fn through_sso(mut self, issuer: &str, subject: &str) -> Self {
        let link = format!("{issuer}/{subject}");
        match &mut self.actor {
            Actor::User { sso, .. } => *sso = Some(link),
            Actor::Token {
                user: Some((_, person)),
                ..
            } => *person = format!("sso:{link}"),
            Actor::Owner | Actor::Token { user: None, .. } => {}
        }
        self
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

    /// The person acting in person (a session of theirs), not through a
    /// token: what may change the person's own sign-in, such as the second
    /// factor, which a token must never turn off.
    pub fn person_in_session(&self) -> Option<&UserId> {
        match &self.actor {
            Actor::User { id, .. } => Some(id),
            Actor::Owner | Actor::Token { .. } => None,
        }
    }

    pub fn role(&self) -> Role {
        self.role
    }

    /// The networks this principal sees.
    pub fn networks(&self) -> &NetworkScope {
        &self.networks
    }

    /// Whether this principal may take action `kind`: its role allows it,
    /// and a fleet-wide action only with every network in sight.
    pub fn allows(&self, kind: ActionKind) -> bool {
        self.role.allows(kind) && (self.networks.is_all() || !fleet_wide(kind))
    }

    /// The capability to take action `A`, when this principal may. A refusal
    /// never depends on an ID, so it tells nothing about what exists.
    pub fn may<A: Action>(&self) -> Result<Granted<A>, NotAllowed> {
        if self.allows(A::KIND) {
            Ok(Granted {
                by: self.clone(),
                action: PhantomData,
            })
        } else {
            Err(NotAllowed {
                role: self.role,
                action: A::KIND,
                limited: self.role.allows(A::KIND),
            })
        }
    }
}

/// The owner role is everything, every network included.
fn owner_sees_all(role: Role, networks: NetworkScope) -> NetworkScope {
    if role == Role::Owner {
        NetworkScope::all()
    } else {
        networks
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
/// `sso:<issuer>/<subject>`, `token:<name> (owner)`, `token:<name> (user:<name>)`,
/// `token:<name> (sso:<issuer>/<subject>)`.
impl fmt::Display for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.actor {
            Actor::Owner => f.write_str("owner (break-glass)"),
            Actor::User {
                sso: Some(link), ..
            } => write!(f, "sso:{link}"),
            Actor::User {
                name, sso: None, ..
            } => write!(f, "user:{name}"),
            Actor::Token { name, user: None } => write!(f, "token:{name} (owner)"),
            Actor::Token {
                name,
                user: Some((_, person)),
            } => write!(f, "token:{name} ({person})"),
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

    /// The networks the one acting sees: what the action may touch.
    pub fn scope(&self) -> &NetworkScope {
        self.by.networks()
    }

    /// Whether the one acting may also take action `kind`: for a rule of
    /// this action that depends on another's right (only someone who may
    /// change Control-wide settings points Control at a private address).
    pub fn may_also(&self, kind: ActionKind) -> bool {
        self.by.allows(kind)
    }
}

/// The principal may not take the action: its role does not allow it, or
/// (`limited`) the role does but the action concerns every network and the
/// principal sees only some.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the {role} role does not allow {action:?} (limited to some networks: {limited})")]
pub struct NotAllowed {
    pub role: Role,
    pub action: ActionKind,
    pub limited: bool,
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
                action: ManageUsers::KIND,
                limited: false,
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
            Principal::user(anna.clone(), "anna", Role::Operator, NetworkScope::all()).to_string(),
            "user:anna"
        );
        let token = Principal::user_token(
            "ci",
            TokenScope::Write,
            (anna.clone(), "anna".into()),
            Role::Admin,
            NetworkScope::all(),
        );
        assert_eq!(token.to_string(), "token:ci (user:anna)");
        let issuer = "https://id.example/realms/knot";
        assert_eq!(
            Principal::user(anna, "anna", Role::Viewer, NetworkScope::all())
                .through_sso(issuer, "f3a9")
                .to_string(),
            "sso:https://id.example/realms/knot/f3a9"
        );
        let sso_token = token.through_sso(issuer, "f3a9").to_string();
        assert_eq!(
            sso_token,
            "token:ci (sso:https://id.example/realms/knot/f3a9)"
        );
        assert_eq!(
            protocol::users::audit_person(&sso_token),
            "sso:https://id.example/realms/knot/f3a9",
            "the audit filter files a token's entries under its person"
        );
        assert_eq!(
            Principal::owner().through_sso(issuer, "x").to_string(),
            "owner (break-glass)"
        );
    }

    #[test]
    fn a_persons_token_never_does_more_than_its_person() {
        let anna = (UserId::from_random_bytes([1; 8]), "anna".to_string());
        let operator_write = Principal::user_token(
            "ci",
            TokenScope::Write,
            anna.clone(),
            Role::Operator,
            NetworkScope::all(),
        );
        assert!(operator_write.may::<RunJobs>().is_ok());
        assert_eq!(operator_write.role(), Role::Operator);
        assert!(operator_write.may::<ChangeSettings>().is_err());
        let owner_read = Principal::user_token(
            "ci",
            TokenScope::Read,
            anna.clone(),
            Role::Owner,
            NetworkScope::all(),
        );
        assert_eq!(owner_read.role(), Role::Viewer);
        let owner_write = Principal::user_token(
            "ci",
            TokenScope::Write,
            anna.clone(),
            Role::Owner,
            NetworkScope::all(),
        );
        assert!(
            owner_write.may::<ManageUsers>().is_err(),
            "tokens never manage people"
        );
        assert_eq!(owner_write.user_id(), Some(&anna.0));
        assert_eq!(Principal::owner().user_id(), None);
    }

    #[test]
    fn a_person_limited_to_some_networks_takes_no_fleet_wide_action() {
        use crate::access::roles::{EditNetworks, ManageAgents, ManageInstallTokens};
        let anna = UserId::from_random_bytes([2; 8]);
        let only_a = || NetworkScope::of_rows(["net_a".to_string()]);
        let admin = Principal::user(anna.clone(), "anna", Role::Admin, only_a());
        assert!(admin.may::<RunJobs>().is_ok());
        assert!(admin.may::<EditNetworks>().is_ok());
        for refused in [
            admin.may::<ManageAgents>().map(|_| ()),
            admin.may::<ManageInstallTokens>().map(|_| ()),
            admin.may::<ChangeSettings>().map(|_| ()),
        ] {
            assert!(refused.is_err_and(|e| e.limited && e.role == Role::Admin));
        }
        // What the role never allowed is refused for the role, not the scope.
        let viewer = Principal::user(anna.clone(), "anna", Role::Viewer, only_a());
        assert!(!viewer.may::<ManageAgents>().unwrap_err().limited);
        // The owner role is not limited, and a token shares its person's scope.
        let owner = Principal::user(anna.clone(), "anna", Role::Owner, only_a());
        assert!(owner.networks().is_all());
        let token = Principal::user_token(
            "ci",
            TokenScope::Write,
            (anna, "anna".into()),
            Role::Admin,
            only_a(),
        );
        assert_eq!(token.networks(), &only_a());
        assert_eq!(
            token.may::<RunJobs>().unwrap().scope(),
            &only_a(),
            "a change carries the scope it may touch"
        );
    }
}
