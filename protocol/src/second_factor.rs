//! The optional second factor of a password sign-in: a time-based one-time
//! code from an authenticator app (RFC 6238: SHA-1, 6 digits, 30 seconds,
//! what every app reads from an `otpauth://` QR code), or one of ten
//! single-use recovery codes. The rules for what a typed code may look like
//! live here, so the browser and the server read it alike.

use crate::validation::{FieldError, Problem};
use serde::{Deserialize, Serialize};

/// The form and JSON field a code travels in.
pub const CODE_FIELD: &str = "code";
/// Digits of an authenticator code.
pub const CODE_DIGITS: usize = 6;
/// Recovery codes handed out at once; each works once.
pub const RECOVERY_CODES: usize = 10;
/// Characters of a recovery code (without its dash): Crockford's base-32
/// alphabet, lower case, so 50 random bits, read aloud without 0/o or 1/l doubt.
pub const RECOVERY_CODE_LEN: usize = 10;
const RECOVERY_ALPHABET: &[u8] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// A code as typed, read: spaces and dashes people copy along are dropped.
#[derive(Clone, PartialEq, Eq)]
pub enum Code {
    /// Six digits from the authenticator app.
    Authenticator(String),
    /// A recovery code, normalised (lower case, no dash, `o`→`0`, `i`/`l`→`1`).
    Recovery(String),
}

impl Code {
    /// Reads what was typed into the `code` field.
    pub fn parse(raw: &str) -> Result<Code, FieldError> {
        let bad = |problem| FieldError::new(CODE_FIELD, problem);
        let kept: String = raw
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .collect();
        if kept.is_empty() {
            return Err(bad(Problem::Required));
        }
        if kept.len() == CODE_DIGITS && kept.chars().all(|c| c.is_ascii_digit()) {
            return Ok(Code::Authenticator(kept));
        }
        if kept.chars().count() == RECOVERY_CODE_LEN {
            let normal: Option<String> = kept
                .chars()
                .map(|c| match c.to_ascii_lowercase() {
                    'o' => Some('0'),
                    'i' | 'l' => Some('1'),
                    c if c.is_ascii() && RECOVERY_ALPHABET.contains(&(c as u8)) => Some(c),
                    _ => None,
                })
                .collect();
            if let Some(normal) = normal {
                return Ok(Code::Recovery(normal));
            }
        }
        Err(bad(Problem::CodeFormat))
    }
}

/// A recovery code from 50 random bits (`bytes`' low 5 bits each), written
/// as people are shown it: `xxxxx-xxxxx`.
pub fn recovery_code(bytes: [u8; RECOVERY_CODE_LEN]) -> String {
    let chars: String = bytes
        .iter()
        .map(|b| RECOVERY_ALPHABET[(b & 31) as usize] as char)
        .collect();
    format!("{}-{}", &chars[..5], &chars[5..])
}

/// What a person needs to add Control to an authenticator app.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Enrollment {
    /// The secret in base 32, in groups of four, for typing it in by hand.
    pub secret: String,
    /// `otpauth://totp/…`, what the QR code holds.
    pub otpauth_uri: String,
    /// The QR code as an inline SVG element.
    pub qr_svg: String,
}

/// A one-time link with which a person sets up the second factor the owner
/// requires (`POST /api/v1/users/{id}/second-factor/setup-link`): shown
/// once, to be handed over as an invitation is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SetupLink {
    /// `<public URL>/two-step-setup/<token>`.
    pub link: String,
    /// RFC 3339.
    pub expires_at: String,
}

/// A person's own second factor, for the Settings screen.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecondFactorStatus {
    /// The signed-in one has a password of their own (not the break-glass
    /// owner, not single sign-on), so a second factor applies.
    pub applies: bool,
    /// Turned on: every password sign-in asks for a code.
    pub enabled: bool,
    /// The owner requires one of everyone who signs in with a password.
    pub required: bool,
    /// Unused recovery codes.
    pub recovery_codes_left: u32,
}

/// `GET`/`PUT /api/v1/users/second-factor`: whether the owner requires a
/// second factor of everyone who signs in with a password.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SecondFactorPolicy {
    /// When it becomes true, those without one set it up at their next
    /// sign-in; sessions already open stay open.
    pub required: bool,
}

/// A second factor just turned on, or recovery codes renewed: the codes are
/// shown this once and never again (only their hashes are kept).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveryCodes {
    pub codes: Vec<String>,
}

// By hand, so that no code or secret reaches a log through `{:?}` (an error
// that carries an enrollment, say).
impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Code::Authenticator(_) => "Code::Authenticator(<redacted>)",
            Code::Recovery(_) => "Code::Recovery(<redacted>)",
        })
    }
}

impl std::fmt::Debug for Enrollment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Enrollment(<redacted>)")
    }
}

impl std::fmt::Debug for RecoveryCodes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RecoveryCodes({} redacted)", self.codes.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_code_is_read_as_people_copy_it() {
        assert_eq!(
            Code::parse(" 123 456 "),
            Ok(Code::Authenticator("123456".into()))
        );
        assert_eq!(
            Code::parse("ABCDE-FGHJK"),
            Ok(Code::Recovery("abcdefghjk".into()))
        );
        // Letters that look like digits are the digits.
        assert_eq!(
            Code::parse("o1l1i-00000"),
            Ok(Code::Recovery("0111100000".into())),
        );
        let problem = |raw: &str| Code::parse(raw).unwrap_err().problem;
        assert_eq!(problem(""), Problem::Required);
        assert_eq!(problem(" - "), Problem::Required);
        assert_eq!(problem("12345"), Problem::CodeFormat);
        assert_eq!(problem("1234567"), Problem::CodeFormat);
        assert_eq!(
            problem("abcde-fghju"),
            Problem::CodeFormat,
            "u is not in the alphabet"
        );
        assert_eq!(
            problem("１２３４５６"),
            Problem::CodeFormat,
            "full-width digits"
        );
        assert_eq!(problem("abcdé-fghjk"), Problem::CodeFormat);
        assert_eq!(Code::parse("12345").unwrap_err().field, CODE_FIELD);
    }

    #[test]
    fn nothing_secret_shows_in_debug_output() {
        let enrollment = Enrollment {
            secret: "JBSW Y3DP".into(),
            otpauth_uri: "otpauth://totp/x:anna?secret=JBSWY3DP".into(),
            qr_svg: "<svg/>".into(),
        };
        let codes = RecoveryCodes {
            codes: vec!["abcde-12345".into()],
        };
        let printed = format!(
            "{enrollment:?} {codes:?} {:?}",
            Code::parse("123456").unwrap()
        );
        for secret in ["JBSW", "abcde", "123456"] {
            assert!(!printed.contains(secret), "{printed}");
        }
    }

    #[test]
    fn recovery_codes_read_back_as_themselves() {
        let code = recovery_code([0, 1, 2, 3, 31, 32, 63, 200, 7, 9]);
        assert_eq!(code, "0123z-0z879");
        assert_eq!(
            Code::parse(&code),
            Ok(Code::Recovery(code.replace('-', "")))
        );
    }
}
