//! The things an administrator can do, named so that the browser can ask
//! whether to show a control. Which role allows which action is decided in
//! one table on the server (`domain::access::roles`); the browser only hears
//! the outcome for the person signed in, as an [`Allowed`] set.

macro_rules! action_kinds {
    ($($(#[$doc:meta])* $name:ident = $word:literal,)*) => {
        /// Every action an administrator can take, as a value.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ActionKind {
            $($(#[$doc])* $name,)*
        }

        impl ActionKind {
            pub const ALL: &'static [ActionKind] = &[$(ActionKind::$name,)*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(ActionKind::$name => $word,)*
                }
            }
        }
    };
}

action_kinds! {
    /// Create, change and delete network profiles, add Beacons to them.
    EditNetworks = "edit_networks",
    /// Queue jobs (deploy, restart, remove, …), cancel, stop and retry them.
    RunJobs = "run_jobs",
    /// Check Beacons now and run Diagnose.
    CheckBeacons = "check_beacons",
    /// Create and revoke onboarding invites.
    ManageInvites = "manage_invites",
    /// Enable, disable, revoke, move and delete Agents; allow revoked keys again.
    ManageAgents = "manage_agents",
    /// Issue and revoke enrollment (install) tokens.
    ManageInstallTokens = "manage_install_tokens",
    /// Alert settings and the rest of Settings.
    ChangeSettings = "change_settings",
    /// Create and revoke one's own API tokens.
    ManageOwnApiTokens = "manage_own_api_tokens",
    /// Invite, change and remove people.
    ManageUsers = "manage_users",
}

/// What the signed-in person may do: the server works it out from their
/// role and writes it into the page (`Allowed::to_words`), the browser reads
/// it back to leave out controls that would only be refused. Hiding is a
/// courtesy; the server checks every request all the same.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allowed(Vec<ActionKind>);

impl Allowed {
    pub fn new(actions: impl IntoIterator<Item = ActionKind>) -> Self {
        Self(actions.into_iter().collect())
    }

    pub fn may(&self, action: ActionKind) -> bool {
        self.0.contains(&action)
    }

    /// Space-separated words, as a `<meta content>` carries them.
    pub fn to_words(&self) -> String {
        self.0
            .iter()
            .map(|a| a.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Unknown words (from a newer server) are left out, so a control is
    /// hidden rather than shown by mistake.
    pub fn from_words(words: &str) -> Self {
        Self::new(
            words
                .split_ascii_whitespace()
                .filter_map(|w| ActionKind::ALL.iter().copied().find(|a| a.as_str() == w)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_read_back_as_the_same_set() {
        let some = Allowed::new([ActionKind::RunJobs, ActionKind::ManageUsers]);
        assert_eq!(Allowed::from_words(&some.to_words()), some);
        let all = Allowed::new(ActionKind::ALL.iter().copied());
        assert_eq!(Allowed::from_words(&all.to_words()), all);
        assert!(!Allowed::from_words("").may(ActionKind::RunJobs));
    }

    #[test]
    fn an_unknown_word_allows_nothing() {
        let read = Allowed::from_words("run_jobs fly_to_the_moon RUN_JOBS");
        assert_eq!(read, Allowed::new([ActionKind::RunJobs]));
    }

    #[test]
    fn each_action_has_its_own_word() {
        let mut words: Vec<_> = ActionKind::ALL.iter().map(|a| a.as_str()).collect();
        words.sort();
        words.dedup();
        assert_eq!(words.len(), ActionKind::ALL.len());
    }
}
