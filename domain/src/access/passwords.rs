//! People's passwords: Argon2id with the `argon2` crate's defaults (the
//! OWASP minimum: 19 MiB of memory, 2 passes, 1 lane; written in the
//! handbook, docs/src/people.md), stored in PHC form so that the parameters travel with each hash
//! and can be raised later without breaking old ones. Hashing is deliberately
//! slow, so it runs on tokio's blocking threads, never on the async ones.

use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::Argon2;
use std::sync::OnceLock;

/// A new PHC string for `password`, with a fresh random salt.
pub async fn hash(password: &str) -> Result<String, String> {
    let password = password.to_string();
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|h| h.to_string())
            .map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| e.to_string())?
}

/// Whether `password` matches the stored hash. With no hash (an unknown
/// name, a person without a password) a fixed dummy hash is checked
/// instead and the answer is no: every attempt costs the same, so timing
/// does not tell which names exist.
pub async fn matches(password: &str, stored: Option<String>) -> bool {
    let password = password.to_string();
    let known = stored.is_some();
    let checked = tokio::task::spawn_blocking(move || {
        let hash = stored.unwrap_or_else(|| dummy_hash().to_string());
        Argon2::default()
            .verify_password(password.as_bytes(), hash.as_str())
            .is_ok()
    })
    .await
    .unwrap_or(false);
    known && checked
}

/// A hash of a random password nobody knows, made once per process with the
/// same parameters as real ones.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        let unknowable = super::secrets::new_token();
        Argon2::default()
            .hash_password(unknowable.as_bytes())
            .map(|h| h.to_string())
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_password_matches_only_its_own_hash() {
        let stored = hash("correct horse battery").await.unwrap();
        assert!(
            stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{stored}"
        );
        assert!(matches("correct horse battery", Some(stored.clone())).await);
        assert!(!matches("correct horse batterY", Some(stored.clone())).await);
        assert_ne!(
            stored,
            hash("correct horse battery").await.unwrap(),
            "salted"
        );
        assert!(!matches("correct horse battery", None).await);
        assert!(!matches("x", Some("not a hash".into())).await);
    }
}
