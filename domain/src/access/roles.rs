//! Who may do what: the roles and the actions they allow, in one table
//! ([`RoleRules::allows`]). Every change an admin can make is an [`Action`]; a
//! domain method that makes it takes a [`Granted`](super::principal::Granted)
//! for that action, which only [`Principal::may`](super::principal::Principal::may)
//! hands out after asking this table.

pub use protocol::actions::{ActionKind, Allowed};
pub use protocol::users::Role;

/// The one table of who may do what. A trait only because [`Role`] is
/// named in `protocol` (the browser shows it) and the rules live here.
pub trait RoleRules {
    fn allows(self, action: ActionKind) -> bool;
}

impl RoleRules for Role {
    fn allows(self, action: ActionKind) -> bool {
        use ActionKind::*;
        match action {
            ManageUsers => self == Role::Owner,
            EditNetworks | ManageAgents | ManageInstallTokens | ChangeSettings => {
                self >= Role::Admin
            }
            RunJobs | CheckBeacons | ManageInvites | ManageOwnApiTokens => self >= Role::Operator,
        }
    }
}

/// Whether `action` acts on what belongs to no network (an Agent's key,
/// which may run several networks' components, install tokens, settings,
/// people): only a principal that sees every network may take it.
pub fn fleet_wide(action: ActionKind) -> bool {
    use ActionKind::*;
    match action {
        ManageAgents | ManageInstallTokens | ChangeSettings | ManageUsers => true,
        EditNetworks | RunJobs | CheckBeacons | ManageInvites | ManageOwnApiTokens => false,
    }
}

/// An action as a type, so that a method can ask for the capability to
/// take it: `fn revoke(&self, by: &Granted<ManageAgents>, …)`.
pub trait Action: Send + Sync + 'static {
    const KIND: ActionKind;
}

macro_rules! actions {
    ($($name:ident,)*) => {
        $(
            #[doc = concat!("The capability type of [`ActionKind::", stringify!($name), "`].")]
            #[derive(Debug)]
            pub struct $name;

            impl Action for $name {
                const KIND: ActionKind = ActionKind::$name;
            }
        )*

        /// Every kind has its type, or no method could ask for it.
        #[cfg(test)]
        const TYPED: &[ActionKind] = &[$(ActionKind::$name,)*];
    };
}

actions! {
    EditNetworks,
    RunJobs,
    CheckBeacons,
    ManageInvites,
    ManageAgents,
    ManageInstallTokens,
    ChangeSettings,
    ManageOwnApiTokens,
    ManageUsers,
}

/// What `principal` may do, as the browser is told it to leave out the
/// controls it would only be refused.
pub fn allowed_for(principal: &super::principal::Principal) -> Allowed {
    Allowed::new(
        ActionKind::ALL
            .iter()
            .copied()
            .filter(|action| principal.allows(*action)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list of roles (docs/src/people.md, "Roles"), line by line.
    #[test]
    fn each_role_allows_what_its_description_says() {
        use ActionKind::*;
        let expect = |role: Role, allowed: &[ActionKind]| {
            for action in ActionKind::ALL {
                assert_eq!(
                    role.allows(*action),
                    allowed.contains(action),
                    "{role} and {action:?}"
                );
            }
        };
        expect(Role::Owner, ActionKind::ALL);
        // "Everything except users, SSO settings and the owner."
        let all_but_people: Vec<ActionKind> = ActionKind::ALL
            .iter()
            .copied()
            .filter(|a| *a != ManageUsers)
            .collect();
        expect(Role::Admin, &all_but_people);
        expect(
            Role::Operator,
            &[RunJobs, CheckBeacons, ManageInvites, ManageOwnApiTokens],
        );
        expect(Role::Viewer, &[]);
    }

    #[test]
    fn every_action_kind_has_a_capability_type() {
        assert_eq!(TYPED, ActionKind::ALL);
    }

    #[test]
    fn the_browser_is_told_what_the_table_says() {
        use crate::access::principal::Principal;
        use crate::access::scope::NetworkScope;
        let someone = protocol::UserId::from_random_bytes([3; 8]);
        for role in Role::ALL {
            let everywhere = Principal::user(someone.clone(), "x", role, NetworkScope::all());
            let limited = NetworkScope::of_rows(["net_a".to_string()]);
            let in_a = Principal::user(someone.clone(), "x", role, limited);
            for action in ActionKind::ALL {
                let told = allowed_for(&everywhere);
                assert_eq!(told.may(*action), role.allows(*action), "{role} {action:?}");
                let told = allowed_for(&in_a);
                let expected =
                    role.allows(*action) && (role == Role::Owner || !fleet_wide(*action));
                assert_eq!(told.may(*action), expected, "{role} {action:?} in net_a");
            }
        }
    }
}
