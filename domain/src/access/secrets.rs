//! Tokens and secret comparison.

use data_encoding::{BASE64URL_NOPAD, HEXLOWER};
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A fresh 256-bit random token, URL-safe.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    BASE64URL_NOPAD.encode(&bytes)
}

/// Lowercase hex SHA-256: how tokens are stored.
pub fn token_hash(token: &str) -> String {
    HEXLOWER.encode(&Sha256::digest(token.as_bytes()))
}

/// Compares a secret in constant time. Both sides are hashed first so neither
/// the content nor the length of the expected secret leaks through timing.
pub fn secret_matches(given: &str, expected: &str) -> bool {
    let a = Sha256::digest(given.as_bytes());
    let b = Sha256::digest(expected.as_bytes());
    a.ct_eq(&b).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_unique_and_hash_to_64_hex_chars() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), 43);
        assert_eq!(token_hash(&a).len(), 64);
        assert_ne!(token_hash(&a), token_hash(&b));
    }

    #[test]
    fn secrets_match_only_exactly() {
        assert!(secret_matches(
            "correct horse battery",
            "correct horse battery"
        ));
        assert!(!secret_matches(
            "correct horse battery ",
            "correct horse battery"
        ));
        assert!(!secret_matches("", "correct horse battery"));
    }
}
