//! Network names are unique, compared without regard to case: single sign-on
//! role maps (`KNOTROUTE_CONTROL_OIDC_ROLE_MAP`, `group=role:<name>`) and
//! people name networks by them, and a name two profiles shared would make
//! such a rule match both (a role map then drops the entry, which ends that
//! group's access). The database keeps a unique index on `lower(name)` as
//! well, for two replicas racing; this module's comparison is the rule
//! (full Unicode case folding, which SQLite's `lower` lacks).

use crate::entities::network;
use protocol::validation::{FieldError, Problem};
use sea_orm::{ConnectionTrait, DbErr, EntityTrait, QuerySelect};

/// `name` as names are compared: trimmed, in lowercase.
pub fn folded(name: &str) -> String {
    name.trim().to_lowercase()
}

/// The `name` field's refusal of a name another profile has.
pub fn taken() -> FieldError {
    FieldError::new("name", Problem::NetworkNameTaken)
}

/// The profiles named `name` (as compared), but `except`; read whole, as
/// names differ only in case where SQL would have to fold them.
pub async fn named(
    db: &impl ConnectionTrait,
    name: &str,
    except: Option<&str>,
) -> Result<Vec<(String, String)>, DbErr> {
    let wanted = folded(name);
    let rows: Vec<(String, String)> = network::Entity::find()
        .select_only()
        .column(network::Column::Id)
        .column(network::Column::Name)
        .into_tuple()
        .all(db)
        .await?;
    Ok(rows
        .into_iter()
        .filter(|(id, other)| Some(id.as_str()) != except && folded(other) == wanted)
        .collect())
}

/// `wanted`, or `wanted (2)`, `wanted (3)`, … : the first that none of
/// `taken` has (as compared); for imports of another Control's profiles.
pub fn unused(wanted: &str, taken: &[String]) -> String {
    let is_free = |name: &str| !taken.iter().any(|t| folded(t) == folded(name));
    if is_free(wanted) {
        return wanted.to_string();
    }
    (2..)
        .map(|n| {
            let suffix = format!(" ({n})");
            // Stays within the 80 characters a name may have.
            let keep = protocol::validation::NAME_MAX - suffix.chars().count();
            format!(
                "{}{suffix}",
                wanted.chars().take(keep).collect::<String>().trim_end()
            )
        })
        .find(|name| is_free(name))
        .expect("some number is free")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_same_whatever_their_case_in_any_script() {
        assert_eq!(folded("  Home "), folded("HOME"));
        assert_eq!(folded("Сеть Офиса"), folded("сеть офиса"));
        assert_ne!(folded("Home"), folded("Home 2"));
    }

    #[test]
    fn an_imported_name_that_is_taken_gets_a_number() {
        let taken = vec!["Office".to_string(), "office (2)".to_string()];
        assert_eq!(unused("Lab", &taken), "Lab");
        assert_eq!(unused("OFFICE", &taken), "OFFICE (3)");
        let long = "n".repeat(80);
        let numbered = unused(&long, std::slice::from_ref(&long));
        assert_eq!(numbered.chars().count(), 80);
        assert!(numbered.ends_with(" (2)"));
    }
}
