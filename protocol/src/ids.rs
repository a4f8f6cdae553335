//! Typed identifiers, parsed once at the edge.

use crate::validation::{FieldError, Problem};
use data_encoding::BASE32_NOPAD;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A Network ID: `kn_` + lowercase base32 (no padding) of 32 random bytes.
///
/// Input is accepted case-insensitively and trimmed; the stored form is lowercase.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(try_from = "String", into = "String")]
pub struct NetworkId(String);

impl NetworkId {
    pub const PREFIX: &'static str = "kn_";
    /// Characters after the prefix: ceil(256 / 5).
    pub const ENCODED_LEN: usize = 52;

    /// Builds an ID from 32 random bytes; the caller owns the randomness so this
    /// crate stays free of I/O.
    pub fn from_random_bytes(bytes: [u8; 32]) -> Self {
        Self(format!(
            "{}{}",
            Self::PREFIX,
            BASE32_NOPAD.encode(&bytes).to_ascii_lowercase()
        ))
    }

    /// Parses user or wire input under the rules of PROTOCOL.md.
    pub fn parse(input: &str) -> Result<Self, FieldError> {
        let err = |problem| FieldError::new("id", problem);
        let trimmed = input.trim();
        if trimmed.is_empty() {
            return Err(err(Problem::Required));
        }
        let lower = trimmed.to_ascii_lowercase();
        let Some(encoded) = lower.strip_prefix(Self::PREFIX) else {
            return Err(err(Problem::NetworkIdFormat));
        };
        if encoded.len() != Self::ENCODED_LEN {
            return Err(err(Problem::NetworkIdFormat));
        }
        if is_strict_base32(encoded, 32) {
            Ok(Self(lower))
        } else {
            Err(err(Problem::NetworkIdFormat))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An Agent ID: `ka_` + lowercase base32 of the first 20 bytes of
/// `SHA-256("knotroute/agent/v1|" ‖ public key)`. Derived, never chosen.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(try_from = "String", into = "String")]
pub struct AgentId(String);

impl AgentId {
    pub const PREFIX: &'static str = "ka_";
    /// ceil(160 / 5) characters after the prefix.
    pub const ENCODED_LEN: usize = 32;

    pub fn derive(public_key: &[u8; 32]) -> Self {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        hasher.update(b"knotroute/agent/v1|");
        hasher.update(public_key);
        let digest = hasher.finalize();
        Self(format!(
            "{}{}",
            Self::PREFIX,
            BASE32_NOPAD.encode(&digest[..20]).to_ascii_lowercase()
        ))
    }

    /// Parses an ID as it arrives in a header or a URL.
    pub fn parse(input: &str) -> Result<Self, FieldError> {
        parse_prefixed(input, Self::PREFIX, Self::ENCODED_LEN, 20, "agent_id").map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A Job ID: `job_` + lowercase base32 of 16 random bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(try_from = "String", into = "String")]
pub struct JobId(String);

impl JobId {
    pub const PREFIX: &'static str = "job_";
    /// ceil(128 / 5) characters after the prefix.
    pub const ENCODED_LEN: usize = 26;

    pub fn from_random_bytes(bytes: [u8; 16]) -> Self {
        Self(format!(
            "{}{}",
            Self::PREFIX,
            BASE32_NOPAD.encode(&bytes).to_ascii_lowercase()
        ))
    }

    pub fn parse(input: &str) -> Result<Self, FieldError> {
        parse_prefixed(input, Self::PREFIX, Self::ENCODED_LEN, 16, "job_id").map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Trimmed, case-insensitive `<prefix><base32>` of exactly `bytes` bytes, in canonical lowercase.
fn parse_prefixed(
    input: &str,
    prefix: &str,
    len: usize,
    bytes: usize,
    field: &str,
) -> Result<String, FieldError> {
    let lower = input.trim().to_ascii_lowercase();
    let valid = lower
        .strip_prefix(prefix)
        .is_some_and(|encoded| encoded.len() == len && is_strict_base32(encoded, bytes));
    if valid {
        Ok(lower)
    } else {
        Err(FieldError::new(field, Problem::InvalidId))
    }
}

/// Whether `encoded` (lowercase) is the unpadded RFC 4648 base32 of exactly
/// `bytes` bytes, as a strict decoder judges it: the length those bytes take,
/// only `a`–`z` and `2`–`7`, and the bits past the last byte zero, so that
/// each value has one spelling. Checked here rather than by decoding because
/// IDs are checked in the browser too, and the generic decoder is 22 KB of
/// its WebAssembly; the test below holds this to data-encoding's strict
/// decoder.
fn is_strict_base32(encoded: &str, bytes: usize) -> bool {
    let bits = bytes * 8;
    if encoded.len() != bits.div_ceil(5) {
        return false;
    }
    let value = |c: u8| match c {
        b'a'..=b'z' => Some(c - b'a'),
        b'2'..=b'7' => Some(c - b'2' + 26),
        _ => None,
    };
    let mut last = 0;
    for c in encoded.bytes() {
        match value(c) {
            Some(v) => last = v,
            None => return false,
        }
    }
    let unused_bits = encoded.len() * 5 - bits;
    last & ((1 << unused_bits) - 1) == 0
}

/// What every typed ID offers: parsing at the edge, and its text.
pub trait Id: Sized + Clone + fmt::Display {
    /// Parses an ID as it arrives in a URL, a form or a message.
    fn parse_id(input: &str) -> Result<Self, FieldError>;
    fn as_str(&self) -> &str;
    /// An ID read back from Control's own database, which only ever stores
    /// IDs that were parsed or generated: not checked again.
    fn from_stored(stored: impl Into<String>) -> Self;
}

macro_rules! string_id_conversions {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl TryFrom<String> for $t {
            type Error = FieldError;
            fn try_from(value: String) -> Result<Self, Self::Error> {
                Self::parse(&value)
            }
        }
        impl From<$t> for String {
            fn from(id: $t) -> Self {
                id.0
            }
        }
        impl Id for $t {
            fn parse_id(input: &str) -> Result<Self, FieldError> {
                Self::parse(input)
            }
            fn as_str(&self) -> &str {
                &self.0
            }
            fn from_stored(stored: impl Into<String>) -> Self {
                Self(stored.into())
            }
        }
        impl std::str::FromStr for $t {
            type Err = FieldError;
            fn from_str(input: &str) -> Result<Self, Self::Err> {
                Self::parse(input)
            }
        }
    )*};
}
string_id_conversions!(
    NetworkId,
    AgentId,
    JobId,
    InviteId,
    InstallTokenId,
    ApiTokenId,
    UserId
);

/// `<prefix>` + `hex_len` lowercase hex digits, case-insensitive on input.
fn parse_hex(input: &str, prefix: &str, hex_len: usize, field: &str) -> Result<String, FieldError> {
    let lower = input.trim().to_ascii_lowercase();
    let valid = lower
        .strip_prefix(prefix)
        .is_some_and(|hex| hex.len() == hex_len && hex.bytes().all(|b| b.is_ascii_hexdigit()));
    if valid {
        Ok(lower)
    } else {
        Err(FieldError::new(field, Problem::InvalidId))
    }
}

/// An ID of a fixed prefix and 16 lowercase hex digits (8 random bytes).
macro_rules! hex_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            pub const PREFIX: &'static str = $prefix;

            pub fn from_random_bytes(bytes: [u8; 8]) -> Self {
                Self(format!(
                    "{}{}",
                    Self::PREFIX,
                    data_encoding::HEXLOWER.encode(&bytes)
                ))
            }

            pub fn parse(input: &str) -> Result<Self, FieldError> {
                parse_hex(input, Self::PREFIX, 16, "id").map(Self)
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }
    };
}

hex_id!(
    /// An invite's ID (not its secret link): `inv_` + 16 hex digits.
    InviteId,
    "inv_"
);
hex_id!(
    /// An install token's ID (not the token): `it_` + 16 hex digits.
    InstallTokenId,
    "it_"
);
hex_id!(
    /// A person's ID (a local or single sign-on user): `usr_` + 16 hex digits.
    UserId,
    "usr_"
);

/// A personal API token's ID (not the token): `tok_` + 16 base64url
/// characters. Unlike the other IDs it is case-sensitive.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(try_from = "String", into = "String")]
pub struct ApiTokenId(String);

impl ApiTokenId {
    pub const PREFIX: &'static str = "tok_";

    /// From the first 16 characters of a new token's random part.
    pub fn from_token_chars(chars: &str) -> Self {
        Self(format!("{}{}", Self::PREFIX, &chars[..16]))
    }

    pub fn parse(input: &str) -> Result<Self, FieldError> {
        let trimmed = input.trim();
        let valid = trimmed.strip_prefix(Self::PREFIX).is_some_and(|rest| {
            rest.len() == 16
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
        if valid {
            Ok(Self(trimmed.to_string()))
        } else {
            Err(FieldError::new("id", Problem::InvalidId))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The hand check and data-encoding's strict decoder agree on every
        /// text of the lengths IDs have, valid or not.
        #[test]
        fn the_base32_check_agrees_with_a_strict_decoder(
            bytes in prop::sample::select(vec![16usize, 20, 32]),
            text in "[a-z2-7]{20,60}|[a-z0-9=A-Z]{20,60}",
            tail in "[a-z2-7]{0,60}",
        ) {
            let len = (bytes * 8).div_ceil(5);
            // Texts of exactly the ID's length, so most reach the bit checks.
            let candidate: String = text.chars().chain(tail.chars()).cycle().take(len).collect();
            let strict = BASE32_NOPAD
                .decode(candidate.to_ascii_uppercase().as_bytes())
                .is_ok_and(|d| d.len() == bytes)
                && !candidate.bytes().any(|c| c.is_ascii_uppercase());
            prop_assert_eq!(is_strict_base32(&candidate, bytes), strict, "{}", candidate);
        }
    }

    #[test]
    fn the_base32_check_refuses_set_padding_bits_and_wrong_lengths() {
        let id = BASE32_NOPAD.encode(&[0xffu8; 32]).to_ascii_lowercase();
        assert!(is_strict_base32(&id, 32));
        // 256 bits in 52 characters leave 4 bits that must be zero.
        let mut set = id.clone();
        set.replace_range(51.., "7");
        assert!(!is_strict_base32(&set, 32));
        assert!(!is_strict_base32(&id[..51], 32));
        assert!(!is_strict_base32(&format!("{id}a"), 32));
        assert!(!is_strict_base32(&id.replace('7', "1"), 32));
    }

    #[test]
    fn agent_ids_are_derived_from_the_key_and_parse_back() {
        let id = AgentId::derive(&[9u8; 32]);
        assert!(id.as_str().starts_with("ka_"));
        assert_eq!(id.as_str().len(), 3 + 32);
        assert_eq!(AgentId::parse(&id.as_str().to_uppercase()).unwrap(), id);
        assert_ne!(AgentId::derive(&[8u8; 32]), id);
        assert!(AgentId::parse("ka_short").is_err());
        assert!(AgentId::parse(&id.as_str().replace("ka_", "kn_")).is_err());
    }

    #[test]
    fn short_ids_parse_back_and_refuse_other_shapes() {
        let invite = InviteId::from_random_bytes([0xab; 8]);
        assert_eq!(invite.as_str(), "inv_abababababababab");
        assert_eq!(InviteId::parse("INV_ABABABABABABABAB").unwrap(), invite);
        assert!(
            InviteId::parse("inv_abab").is_err() && InviteId::parse("it_abababababababab").is_err()
        );
        let token = InstallTokenId::from_random_bytes([1; 8]);
        assert_eq!(InstallTokenId::parse(token.as_str()).unwrap(), token);
        let api = ApiTokenId::from_token_chars("Ab-_0123456789xyzMORE");
        assert_eq!(api.as_str(), "tok_Ab-_0123456789xy");
        assert_eq!(ApiTokenId::parse(api.as_str()).unwrap(), api);
        assert!(ApiTokenId::parse("tok_Ab-_0123456789x!").is_err());
    }

    #[test]
    fn job_ids_have_26_base32_characters() {
        let id = JobId::from_random_bytes([3u8; 16]);
        assert_eq!(id.as_str().len(), 4 + 26);
        assert_eq!(JobId::parse(id.as_str()).unwrap(), id);
        assert_eq!(JobId::parse("job_x").unwrap_err().field, "job_id");
    }

    #[test]
    fn generated_id_has_prefix_and_52_lowercase_chars_and_parses_back() {
        let id = NetworkId::from_random_bytes([7u8; 32]);
        assert!(id.as_str().starts_with("kn_"));
        assert_eq!(id.as_str().len(), 3 + 52);
        assert_eq!(id.as_str(), id.as_str().to_ascii_lowercase());
        assert_eq!(NetworkId::parse(id.as_str()).unwrap(), id);
    }

    #[test]
    fn pasted_id_is_trimmed_and_lowercased() {
        let id = NetworkId::from_random_bytes([200u8; 32]);
        let pasted = format!("  {}\n", id.as_str().to_ascii_uppercase());
        assert_eq!(NetworkId::parse(&pasted).unwrap(), id);
    }

    #[test]
    fn malformed_ids_are_refused_with_a_field_error() {
        let good = NetworkId::from_random_bytes([1u8; 32]).to_string();
        let cases = [
            "".to_string(),
            "kn_".to_string(),
            good.replace("kn_", "kx_"),
            good[..good.len() - 1].to_string(),
            format!("{good}a"),
            good.replacen('a', "1", 1).replacen('b', "1", 1),
            // Non-zero trailing bits: same length, not a canonical encoding.
            format!("{}7", &good[..good.len() - 1]),
        ];
        for case in cases {
            if case == good {
                continue;
            }
            let err = NetworkId::parse(&case).expect_err(&case);
            assert_eq!(err.field, "id", "{case}");
        }
    }
}
