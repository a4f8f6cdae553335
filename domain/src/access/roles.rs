//! Who may do what: the roles and the actions they allow, in one table
//! ([`RoleRules::allows`]). Every change an admin can make is an [`Action`]; a
//! domain method that makes it takes a [`Granted`](super::principal::Granted)
//! for that action, which only [`Principal::may`](super::principal::Principal::may)
//! hands out after asking this table.

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

/// An action as a type, so that a method can ask for the capability to
/// take it: `fn revoke(&self, by: &Granted<ManageAgents>, …)`.
pub trait Action: Send + Sync + 'static {
    const KIND: ActionKind;
}

macro_rules! actions {
    ($($(#[$doc:meta])* $name:ident,)*) => {
        /// Every action, as a value: what [`RoleRules::allows`] decides on.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ActionKind {
            $($(#[$doc])* $name,)*
        }

        impl ActionKind {
            pub const ALL: &'static [ActionKind] = &[$(ActionKind::$name,)*];
        }

        $(
            $(#[$doc])*
            #[derive(Debug)]
            pub struct $name;

            impl Action for $name {
                const KIND: ActionKind = ActionKind::$name;
            }
        )*
    };
}

actions! {
    /// Create, change and delete network profiles, add Beacons to them.
    EditNetworks,
    /// Queue jobs (deploy, restart, remove, …), cancel, stop and retry them.
    RunJobs,
    /// Check Beacons now and run Diagnose.
    CheckBeacons,
    /// Create and revoke onboarding invites.
    ManageInvites,
    /// Enable, disable, revoke, move and delete Agents; allow revoked keys again.
    ManageAgents,
    /// Issue and revoke enrollment (install) tokens.
    ManageInstallTokens,
    /// Alert settings and the rest of Settings.
    ChangeSettings,
    /// Create and revoke one's own API tokens.
    ManageOwnApiTokens,
    /// Invite, change and remove people.
    ManageUsers,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list of roles, line by line.
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
}
