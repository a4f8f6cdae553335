//! The operations policy of an installation: what the
//! guide's step 10 asks an operator to write down. Control fills in what it
//! knows (who has access, where backups are kept, the release channel, who
//! receives alerts); the admin writes the rest, starting from a template.

use crate::validation::{FieldError, Problem};
use serde::{Deserialize, Serialize};

/// At most this many characters per written part.
pub const POLICY_TEXT_MAX: usize = 4000;

/// `PUT /api/v1/policy`: the parts Control cannot know.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PolicyInput {
    /// How relays are added.
    pub relays: String,
    /// How a compromised host is revoked.
    pub revocation: String,
}

impl PolicyInput {
    /// Both parts trimmed, each within [`POLICY_TEXT_MAX`]; every problem at once.
    pub fn validate(&self) -> Result<PolicyInput, Vec<FieldError>> {
        let mut problems = Vec::new();
        let mut part = |field: &str, text: &str| {
            let text = text.trim().replace("\r\n", "\n");
            if text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t')
            {
                problems.push(FieldError::new(field, Problem::ControlCharacters));
            } else if text.chars().count() > POLICY_TEXT_MAX {
                problems.push(FieldError::new(
                    field,
                    Problem::TooLong {
                        max: POLICY_TEXT_MAX,
                    },
                ));
            }
            text
        };
        let valid = PolicyInput {
            relays: part("relays", &self.relays),
            revocation: part("revocation", &self.revocation),
        };
        if problems.is_empty() {
            Ok(valid)
        } else {
            Err(problems)
        }
    }

    /// Both parts are written.
    pub fn filled_in(&self) -> bool {
        !self.relays.trim().is_empty() && !self.revocation.trim().is_empty()
    }
}

/// One person with access to Control.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PolicyPerson {
    pub name: String,
    pub role: crate::users::Role,
    /// Empty: every network.
    pub networks: Vec<String>,
    pub disabled: bool,
}

/// A part Control fills in: what it says, and a caution when it sees one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct KnownPart {
    pub text: String,
    pub warning: Option<String>,
}

/// `GET /api/v1/policy`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OperationsPolicy {
    /// The people with access, by name. The break-glass owner (the admin
    /// password) is always there and is said so in `access`.
    pub people: Vec<PolicyPerson>,
    pub access: KnownPart,
    pub backups: KnownPart,
    pub release_channel: KnownPart,
    pub alerts: KnownPart,
    /// What the admin wrote.
    pub written: PolicyInput,
    /// What to start from when a part is empty.
    pub template: PolicyInput,
    pub filled_in: bool,
    /// RFC 3339 UTC; absent until first saved.
    pub updated_at: Option<String>,
    pub updated_by: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_trimmed_and_bounded_and_both_must_be_written() {
        let valid = PolicyInput {
            relays: "  add one \r\n".into(),
            revocation: "revoke".into(),
        }
        .validate()
        .unwrap();
        assert_eq!(valid.relays, "add one");
        assert!(valid.filled_in());
        assert!(!PolicyInput {
            relays: " ".into(),
            revocation: "x".into()
        }
        .filled_in());
        let long = "я".repeat(POLICY_TEXT_MAX + 1);
        let problems = PolicyInput {
            relays: long.clone(),
            revocation: long,
        }
        .validate()
        .unwrap_err();
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(fields, ["relays", "revocation"]);
        let problems = PolicyInput {
            relays: "a\u{0}b".into(),
            revocation: "line\n\tindented".into(),
        }
        .validate()
        .unwrap_err();
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].problem, Problem::ControlCharacters);
        assert!(PolicyInput {
            relays: "я".repeat(POLICY_TEXT_MAX),
            revocation: String::new()
        }
        .validate()
        .is_ok());
    }
}
