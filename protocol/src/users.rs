//! People who administer Control: their roles, the rules for the names and
//! passwords they choose (shared by the browser and the server), and what
//! the Users screen and API show of them.

use crate::validation::{FieldError, Problem};
use crate::NetworkId;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What a person (or a token) may do in Control; which actions each role
/// allows is decided in one table, `domain::access::roles`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Reads everything it can see, changes nothing.
    Viewer,
    /// Runs the network: deployments and jobs, Beacon checks, invites.
    Operator,
    /// Everything but people, single sign-on settings and the owner.
    Admin,
    /// Everything.
    Owner,
}

impl Role {
    /// Weakest first, as a role select lists them.
    pub const ALL: [Role; 4] = [Role::Viewer, Role::Operator, Role::Admin, Role::Owner];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Admin => "admin",
            Role::Operator => "operator",
            Role::Viewer => "viewer",
        }
    }

    /// A role named in a form or the API (`field` is named when refused).
    pub fn parse(field: &str, input: &str) -> Result<Self, FieldError> {
        let word = input.trim().to_ascii_lowercase();
        Self::ALL
            .into_iter()
            .find(|r| r.as_str() == word)
            .ok_or_else(|| FieldError::new(field, Problem::UnknownRole))
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The person an audit entry's actor stands for, as the audit filter takes
/// it: `owner` for the break-glass account and its tokens, `user:<name>` for
/// a person and their tokens (`token:<name> (user:<name>)`); any other actor
/// (`control`, an older `admin`) stands for itself.
pub fn audit_person(actor: &str) -> &str {
    if actor == "owner (break-glass)" {
        return "owner";
    }
    match actor
        .strip_prefix("token:")
        .and_then(|rest| rest.rsplit_once(" ("))
    {
        Some((_, owner)) => owner.strip_suffix(')').unwrap_or(actor),
        None => actor,
    }
}

/// Longest sign-in name.
pub const USER_NAME_MAX: usize = 64;
/// Shortest password a person may choose (the break-glass password has its
/// own rule in the server's configuration).
pub const PASSWORD_MIN: usize = 12;
/// Longest password: Argon2 hashes any length, but a megabyte "password"
/// would only cost the server time.
pub const PASSWORD_MAX: usize = 256;

/// A sign-in name: trimmed and lowercased, 1–64 of `a–z 0–9 . _ -`,
/// starting with a letter or digit. Kept plain so that it reads the same in
/// the audit log (`user:<name>`), in a URL and on every keyboard.
pub fn user_name(input: &str) -> Result<String, FieldError> {
    let name = input.trim().to_ascii_lowercase();
    let err = |problem| Err(FieldError::new("name", problem));
    if name.is_empty() {
        return err(Problem::Required);
    }
    if name.chars().count() > USER_NAME_MAX {
        return err(Problem::TooLong { max: USER_NAME_MAX });
    }
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c);
    let starts_well = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    if !starts_well || !name.chars().all(allowed) {
        return err(Problem::UserName);
    }
    Ok(name)
}

/// `POST /api/v1/users/invites`: a one-time link for one person.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UserInviteInput {
    /// `owner`, `admin`, `operator` or `viewer`.
    #[serde(default)]
    pub role: String,
    /// The Network IDs the person will see; empty (or left out) for every
    /// network. The owner role always sees every network.
    #[serde(default)]
    pub networks: Vec<String>,
}

impl UserInviteInput {
    /// The role and the networks (empty: all); every refused field.
    pub fn validate(&self) -> Result<(Role, Vec<NetworkId>), Vec<FieldError>> {
        let role = Role::parse("role", &self.role).map_err(|e| vec![e])?;
        let networks = network_limit(role, &self.networks).map_err(|e| vec![e])?;
        Ok((role, networks))
    }
}

/// Most networks one person can be limited to (a list, not a query).
pub const NETWORKS_MAX: usize = 500;

/// The networks a person in `role` is limited to, from what was sent: each
/// a well-formed Network ID, duplicates dropped; empty is every network,
/// which is all the owner role can have.
pub fn network_limit(role: Role, ids: &[String]) -> Result<Vec<NetworkId>, FieldError> {
    if ids.len() > NETWORKS_MAX {
        return Err(FieldError::new(
            "networks",
            Problem::TooMany { max: NETWORKS_MAX },
        ));
    }
    let mut parsed: Vec<NetworkId> = Vec::with_capacity(ids.len());
    for id in ids {
        let id = NetworkId::parse(id.trim())
            .map_err(|_| FieldError::new("networks", Problem::NetworkIdFormat))?;
        if !parsed.contains(&id) {
            parsed.push(id);
        }
    }
    if role == Role::Owner && !parsed.is_empty() {
        return Err(FieldError::new("networks", Problem::OwnerSeesAll));
    }
    Ok(parsed)
}

/// What a form's "networks" choice sends: nothing for "all networks", else
/// the chosen ones, at least one.
pub fn networks_chosen(all: bool, chosen: Vec<String>) -> Result<Vec<String>, FieldError> {
    if all {
        Ok(Vec::new())
    } else if chosen.is_empty() {
        Err(FieldError::new("networks", Problem::NoNetworkChosen))
    } else {
        Ok(chosen)
    }
}

/// The answer to an invitation: the only time its link is shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatedUserInvite {
    /// `<public URL>/welcome/<token>`, or the path alone without a public URL.
    pub link: String,
    pub role: Role,
    /// The Network IDs the person will see; empty for every network.
    #[serde(default)]
    pub networks: Vec<String>,
    /// RFC 3339; the link works once, until then.
    pub expires_at: String,
}

/// What a person sends from the welcome page to take up an invitation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WelcomeInput {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub password: String,
    /// The password typed again.
    #[serde(default)]
    pub password_again: String,
}

impl WelcomeInput {
    /// The normalised name; every refused field.
    pub fn validate(&self) -> Result<String, Vec<FieldError>> {
        let mut errors = Vec::new();
        let name = user_name(&self.name)
            .map_err(|e| errors.push(e))
            .unwrap_or_default();
        let length = self.password.chars().count();
        if length < PASSWORD_MIN {
            errors.push(FieldError::new(
                "password",
                Problem::PasswordTooShort { min: PASSWORD_MIN },
            ));
        } else if length > PASSWORD_MAX {
            errors.push(FieldError::new(
                "password",
                Problem::TooLong { max: PASSWORD_MAX },
            ));
        } else if self.password != self.password_again {
            errors.push(FieldError::new("password_again", Problem::PasswordsDiffer));
        }
        if errors.is_empty() {
            Ok(name)
        } else {
            Err(errors)
        }
    }
}

/// `PATCH /api/v1/users/{id}`: what to change; fields left out stay.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UserChange {
    #[serde(default)]
    pub role: Option<String>,
    /// True disables the person: their sessions and API tokens end at once.
    #[serde(default)]
    pub disabled: Option<bool>,
    /// The Network IDs the person sees from their next request on; empty
    /// for every network. Checked against the role they will have.
    #[serde(default)]
    pub networks: Option<Vec<String>>,
}

impl UserChange {
    /// The new role and whether disabled, when given; the networks are
    /// checked by [`network_limit`] once the role they go with is known.
    pub fn validate(&self) -> Result<(Option<Role>, Option<bool>), Vec<FieldError>> {
        let role = match &self.role {
            Some(r) => Some(Role::parse("role", r).map_err(|e| vec![e])?),
            None => None,
        };
        Ok((role, self.disabled))
    }
}

/// A person as the Users screen lists them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UserView {
    pub id: crate::UserId,
    pub name: String,
    pub role: Role,
    /// The Network IDs the person sees; empty for every network.
    #[serde(default)]
    pub networks: Vec<String>,
    pub disabled: bool,
    /// RFC 3339.
    pub created_at: String,
    pub last_sign_in_at: Option<String>,
    /// Sessions that have not expired.
    pub open_sessions: u64,
    /// When the newest of them began (RFC 3339).
    pub newest_session_at: Option<String>,
    /// Came through single sign-on with no role to give: no access until
    /// the owner chooses a role (which approves them).
    #[serde(default)]
    pub pending: bool,
    /// Signs in through the OpenID provider, not with a password.
    #[serde(default)]
    pub single_sign_on: bool,
    /// Has turned on two-step sign-in (an authenticator app).
    #[serde(default)]
    pub second_factor: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_is_well_formed_network_ids_and_never_for_the_owner() {
        let a = NetworkId::from_random_bytes([1; 32]).to_string();
        let b = NetworkId::from_random_bytes([2; 32]).to_string();
        let limit = network_limit(Role::Operator, &[a.clone(), b.clone(), a.clone()]).unwrap();
        assert_eq!(
            limit.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
            [a.clone(), b],
            "duplicates dropped, order kept"
        );
        assert!(network_limit(Role::Owner, &[]).unwrap().is_empty());
        let problem = |role, ids: &[String]| network_limit(role, ids).unwrap_err().problem;
        assert_eq!(problem(Role::Owner, &[a]), Problem::OwnerSeesAll);
        for bad in ["", "net_1", "x'; DROP TABLE users;--", "\u{0}"] {
            assert_eq!(
                problem(Role::Viewer, &[bad.to_string()]),
                Problem::NetworkIdFormat,
                "{bad}"
            );
        }
        let many = vec![NetworkId::from_random_bytes([3; 32]).to_string(); NETWORKS_MAX + 1];
        assert_eq!(
            problem(Role::Viewer, &many),
            Problem::TooMany { max: NETWORKS_MAX }
        );
        assert_eq!(
            networks_chosen(false, Vec::new()).unwrap_err().problem,
            Problem::NoNetworkChosen
        );
        assert_eq!(
            networks_chosen(true, vec!["x".into()]).unwrap(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn names_are_plain_lowercase_words() {
        assert_eq!(user_name("  Anna.Petrova ").unwrap(), "anna.petrova");
        assert_eq!(user_name("ops_2").unwrap(), "ops_2");
        for bad in [
            "-anna",
            ".x",
            "anna petrova",
            "анна",
            "a/b",
            "a\u{0}b",
            "a:b",
        ] {
            assert_eq!(
                user_name(bad).unwrap_err().problem,
                Problem::UserName,
                "{bad}"
            );
        }
        assert_eq!(user_name(" ").unwrap_err().problem, Problem::Required);
        assert!(user_name(&"a".repeat(64)).is_ok());
        assert_eq!(
            user_name(&"a".repeat(65)).unwrap_err().problem,
            Problem::TooLong { max: 64 }
        );
    }

    #[test]
    fn a_welcome_needs_a_name_and_a_long_enough_password_typed_twice() {
        let ok = WelcomeInput {
            name: "Anna".into(),
            password: "correct horse battery".into(),
            password_again: "correct horse battery".into(),
        };
        assert_eq!(ok.validate(), Ok("anna".into()));
        let fields = |input: WelcomeInput| -> Vec<(String, Problem)> {
            input
                .validate()
                .unwrap_err()
                .into_iter()
                .map(|e| (e.field, e.problem))
                .collect()
        };
        assert_eq!(
            fields(WelcomeInput {
                name: "".into(),
                password: "short".into(),
                password_again: "short".into(),
            }),
            [
                ("name".to_string(), Problem::Required),
                (
                    "password".to_string(),
                    Problem::PasswordTooShort { min: PASSWORD_MIN }
                )
            ]
        );
        assert_eq!(
            fields(WelcomeInput {
                password_again: "correct horse batterY".into(),
                ..ok.clone()
            }),
            [("password_again".to_string(), Problem::PasswordsDiffer)]
        );
        assert_eq!(
            fields(WelcomeInput {
                password: "x".repeat(257),
                password_again: "x".repeat(257),
                ..ok
            }),
            [("password".to_string(), Problem::TooLong { max: 256 })]
        );
    }

    #[test]
    fn audit_entries_are_filed_under_their_person() {
        assert_eq!(audit_person("owner (break-glass)"), "owner");
        assert_eq!(audit_person("token:ci (owner)"), "owner");
        assert_eq!(audit_person("user:anna"), "user:anna");
        assert_eq!(audit_person("token:deploy (v2) (user:anna)"), "user:anna");
        assert_eq!(audit_person("control"), "control");
        assert_eq!(audit_person("token:odd"), "token:odd");
    }

    #[test]
    fn roles_are_named_and_ordered_by_what_they_allow() {
        assert_eq!(Role::parse("role", " Operator ").unwrap(), Role::Operator);
        assert_eq!(
            Role::parse("role", "root").unwrap_err(),
            FieldError::new("role", Problem::UnknownRole)
        );
        assert!(Role::Viewer < Role::Operator && Role::Admin < Role::Owner);
        assert_eq!(
            serde_json::to_value(Role::Admin).unwrap(),
            serde_json::json!("admin")
        );
    }
}
