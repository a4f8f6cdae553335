//! The one rule for the name of a component Control deploys (a Beacon's or
//! a sidecar's `name`). The Agent runs `docker compose -p kr-beacon-<name>`
//! or `kr-sidecar-<name>`, and Compose refuses a project name with a dot or
//! one that starts with `-` or `_`; the sidecar announces `<name>` as its
//! service name and accepts only `^[a-z0-9][a-z0-9._-]{0,62}$`. A name that
//! passes both is `^[a-z0-9][a-z0-9_-]{0,62}$`, after trimming and turning
//! ASCII capitals into lowercase (PROTOCOL.md: slugs are lowercased).
//!
//! The version-1 wire rule for slugs ([`crate::jobs::slug`], 1–80 of
//! `A–Z a–z 0–9 - _ .`) stays what an Agent accepts and what component IDs of
//! older components are read with, so a component stored under an older name
//! can still be listed, restarted and removed; only new deployments need this.

use crate::validation::{FieldError, Problem};

/// The longest deployable name: the sidecar's limit for a service name.
pub const DEPLOY_NAME_MAX: usize = 63;

/// A name Docker Compose and the sidecar both accept, lowercased; refused
/// otherwise with [`Problem::DeployName`] on `field`.
pub fn deployable_name(field: &str, input: &str) -> Result<String, FieldError> {
    let name = input.trim().to_ascii_lowercase();
    if name.is_empty() {
        return Err(FieldError::new(field, Problem::Required));
    }
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    let rest_ok =
        chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    // Byte length equals character count here: every accepted character is ASCII.
    if first_ok && rest_ok && name.len() <= DEPLOY_NAME_MAX {
        Ok(name)
    } else {
        Err(FieldError::new(field, Problem::DeployName))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::Lang;

    #[test]
    fn names_compose_and_the_sidecar_accept_pass_lowercased() {
        for (input, expected) in [
            ("web", "web"),
            ("a", "a"),
            ("0", "0"),
            ("my-app_2", "my-app_2"),
            ("Web", "web"),
            ("  EDGE-1  ", "edge-1"),
            ("9lives", "9lives"),
            ("a-", "a-"),
            ("a_", "a_"),
        ] {
            assert_eq!(
                deployable_name("name", input).as_deref(),
                Ok(expected),
                "{input:?}"
            );
        }
        let longest = "a".repeat(63);
        assert_eq!(deployable_name("name", &longest), Ok(longest.clone()));
    }

    #[test]
    fn names_compose_or_the_sidecar_would_refuse_are_refused_with_the_rule() {
        let too_long = "a".repeat(64);
        for input in [
            "-web",
            "_web",
            ".web",
            "my.app",
            "web.",
            too_long.as_str(),
            "wéb",
            "сервис",
            "web\u{212A}",
            "my app",
            "web\nimage: evil",
            "a/b",
            "../etc",
            "web$",
            "${HOME}",
            "web:1",
            "\u{0}",
        ] {
            assert_eq!(
                deployable_name("name", input),
                Err(FieldError::new("name", Problem::DeployName)),
                "{input:?}"
            );
        }
        for blank in ["", "   "] {
            assert_eq!(
                deployable_name("name", blank),
                Err(FieldError::new("name", Problem::Required))
            );
        }
        let problem = Problem::DeployName;
        assert_eq!(problem.code(), "invalid_deploy_name");
        let hint = problem.hint(Lang::En).unwrap();
        assert!(hint.contains("1–63 characters"), "{hint}");
        assert!(problem.message(Lang::En).contains("1–63"));
        assert!(problem.hint(Lang::Ru).unwrap().contains("1–63"));
    }
}
