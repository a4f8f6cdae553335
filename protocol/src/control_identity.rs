//! Control's own identity, an extension of PROTOCOL.md that version-1 peers
//! ignore: Control signs the answers an Agent acts on (the enroll answer, job
//! offers, heartbeat answers) with an Ed25519 key of its own, and an Agent that
//! has pinned that key refuses answers it did not sign. Shared by Control
//! (signing) and the Agent (verifying); SECURITY.md explains the threat.
//!
//! Headers on a signed answer:
//! - `X-Knot-Control-Timestamp`: Unix seconds, decimal;
//! - `X-Knot-Control-Signature`: `<public key>:<signature>`, one entry per
//!   signing key, comma-separated (two during a rotation, newest first);
//! - `X-Knot-Control-Key-Move` (during a rotation): `<old key>:<new key>:<signature
//!   by the old key>`, which moves an Agent's pin from the old key to the new.
//!
//! The signed message (lines joined by `\n`, no trailing newline) binds the
//! answer to the request it answers, so it cannot be replayed to another
//! Agent, another endpoint or another request:
//!
//! ```text
//! knotroute/control-answer/v1
//! <request path, e.g. /api/v1/agents/jobs/next>
//! <the Agent ID>
//! <the request's nonce>
//! <the timestamp, decimal>
//! <lowercase hex SHA-256 of the exact answer body bytes>
//! ```
//!
//! The body hash covers everything the Agent acts on: a job's ID, kind and
//! payload are fields of the body it hashes.

use crate::signing::{parse_timestamp, SignatureError, WireSignature, TIMESTAMP_WINDOW_SECS};
use data_encoding::{BASE64_NOPAD, HEXLOWER};
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

pub const HEADER_CONTROL_SIGNATURE: &str = "x-knot-control-signature";
pub const HEADER_CONTROL_TIMESTAMP: &str = "x-knot-control-timestamp";
pub const HEADER_CONTROL_KEY_MOVE: &str = "x-knot-control-key-move";
/// The first line of a signed answer.
pub const ANSWER_CONTEXT: &str = "knotroute/control-answer/v1";
/// The first line of a key move (the old key endorsing the new one).
pub const KEY_MOVE_CONTEXT: &str = "knotroute/control-key-move/v1";
/// More entries than this in a signature header are refused unread.
const MAX_SIGNATURES: usize = 4;

/// A Control public key on the wire: standard base64 without padding of the
/// 32 bytes, in that one spelling (pins are compared as text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControlPublicKey(VerifyingKey);

impl ControlPublicKey {
    pub fn parse(wire: &str) -> Result<Self, SignatureError> {
        let bytes: [u8; 32] = BASE64_NOPAD
            .decode(wire.as_bytes())
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or(SignatureError::MalformedPublicKey)?;
        if BASE64_NOPAD.encode(&bytes) != wire {
            return Err(SignatureError::MalformedPublicKey);
        }
        VerifyingKey::from_bytes(&bytes)
            .map(Self)
            .map_err(|_| SignatureError::MalformedPublicKey)
    }

    pub fn to_wire(&self) -> String {
        BASE64_NOPAD.encode(self.0.as_bytes())
    }

    /// `SHA256:` and base64 (no padding) of the SHA-256 of the 32 key bytes,
    /// as SSH prints host keys: what the admin compares by eye.
    pub fn fingerprint(&self) -> String {
        fingerprint_of(self.0.as_bytes())
    }

    fn verify_message(&self, message: &str, signature: &WireSignature) -> bool {
        self.0
            .verify_strict(
                message.as_bytes(),
                &Signature::from_bytes(&signature.to_bytes()),
            )
            .is_ok()
    }
}

pub(crate) fn fingerprint_of(key: &[u8]) -> String {
    format!("SHA256:{}", BASE64_NOPAD.encode(&Sha256::digest(key)))
}

/// The fingerprint of a key in its wire form, or the text itself when it is
/// not a key (for showing what an Agent reported).
pub fn fingerprint(wire_key: &str) -> String {
    ControlPublicKey::parse(wire_key)
        .map(|k| k.fingerprint())
        .unwrap_or_else(|_| wire_key.chars().take(64).collect())
}

/// Which request an answer answers.
#[derive(Clone, Copy, Debug)]
pub struct AnswerScope<'a> {
    /// The request's URL path, without query.
    pub path: &'a str,
    pub agent_id: &'a str,
    /// The `nonce` field of the request body (empty when it had none).
    pub nonce: &'a str,
}

/// The exact text that is signed (see the module header).
pub fn answer_message(scope: &AnswerScope, timestamp: &str, body: &[u8]) -> String {
    format!(
        "{ANSWER_CONTEXT}\n{}\n{}\n{}\n{timestamp}\n{}",
        scope.path,
        scope.agent_id,
        scope.nonce,
        HEXLOWER.encode(&Sha256::digest(body))
    )
}

fn key_move_message(from: &ControlPublicKey, to: &ControlPublicKey) -> String {
    format!("{KEY_MOVE_CONTEXT}\n{}\n{}", from.to_wire(), to.to_wire())
}

/// Control's signing key. Stored as base64 (no padding) of its 32-byte seed.
pub struct ControlKey(SigningKey);

impl ControlKey {
    pub fn from_seed(seed: [u8; 32]) -> Self {
        Self(SigningKey::from_bytes(&seed))
    }

    pub fn from_stored(text: &str) -> Result<Self, SignatureError> {
        let seed: [u8; 32] = BASE64_NOPAD
            .decode(text.as_bytes())
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or(SignatureError::MalformedIdentity)?;
        Ok(Self::from_seed(seed))
    }

    pub fn to_stored(&self) -> String {
        BASE64_NOPAD.encode(self.0.as_bytes())
    }

    pub fn public_key(&self) -> ControlPublicKey {
        ControlPublicKey(self.0.verifying_key())
    }

    /// One `<public key>:<signature>` entry of `X-Knot-Control-Signature`.
    pub fn sign_answer(&self, scope: &AnswerScope, timestamp: &str, body: &[u8]) -> String {
        let signature = self
            .0
            .sign(answer_message(scope, timestamp, body).as_bytes());
        format!(
            "{}:{}",
            self.public_key().to_wire(),
            BASE64_NOPAD.encode(&signature.to_bytes())
        )
    }

    /// The `X-Knot-Control-Key-Move` value that moves pins from this key to `to`.
    pub fn endorse(&self, to: &ControlPublicKey) -> String {
        let from = self.public_key();
        let signature = self.0.sign(key_move_message(&from, to).as_bytes());
        format!(
            "{}:{}:{}",
            from.to_wire(),
            to.to_wire(),
            BASE64_NOPAD.encode(&signature.to_bytes())
        )
    }
}

impl std::fmt::Debug for ControlKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControlKey")
            .field("public_key", &self.public_key().to_wire())
            .finish_non_exhaustive()
    }
}

/// Why an Agent refused an answer. `code()` is what it reports in heartbeats.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnswerRefusal {
    #[error("the answer carries no Control signature")]
    Unsigned,
    #[error("the answer's Control signature header is malformed")]
    Malformed,
    #[error("the answer is signed by {}, not by the pinned Control key {pinned}", .signed_by.join(", "))]
    OtherKey {
        pinned: String,
        signed_by: Vec<String>,
    },
    #[error("the pinned Control key's signature does not match this answer")]
    BadSignature,
    #[error("the answer's timestamp is more than 180 s from this host's clock")]
    StaleTimestamp,
}

impl AnswerRefusal {
    pub fn code(&self) -> &'static str {
        match self {
            AnswerRefusal::Unsigned => "unsigned",
            AnswerRefusal::Malformed => "malformed",
            AnswerRefusal::OtherKey { .. } => "other_key",
            AnswerRefusal::BadSignature => "bad_signature",
            AnswerRefusal::StaleTimestamp => "stale_timestamp",
        }
    }
}

/// The entries of an `X-Knot-Control-Signature` header.
pub fn parse_signatures(
    header: &str,
) -> Result<Vec<(ControlPublicKey, WireSignature)>, AnswerRefusal> {
    let entries: Vec<&str> = header.split(',').map(str::trim).collect();
    if entries.len() > MAX_SIGNATURES {
        return Err(AnswerRefusal::Malformed);
    }
    entries
        .into_iter()
        .map(|entry| {
            let (key, signature) = entry.split_once(':').ok_or(AnswerRefusal::Malformed)?;
            Ok((
                ControlPublicKey::parse(key).map_err(|_| AnswerRefusal::Malformed)?,
                WireSignature::parse(signature).map_err(|_| AnswerRefusal::Malformed)?,
            ))
        })
        .collect()
}

/// What the Agent checks before acting on an answer: the pinned key signed
/// exactly this body, for this request, within ±180 s of `now`.
pub fn verify_answer(
    pinned: &ControlPublicKey,
    signatures: Option<&str>,
    timestamp: Option<&str>,
    now: i64,
    scope: &AnswerScope,
    body: &[u8],
) -> Result<(), AnswerRefusal> {
    let (Some(signatures), Some(timestamp)) = (signatures, timestamp) else {
        return Err(AnswerRefusal::Unsigned);
    };
    let entries = parse_signatures(signatures)?;
    let ts = parse_timestamp(timestamp).map_err(|_| AnswerRefusal::Malformed)?;
    let Some((_, signature)) = entries.iter().find(|(key, _)| key == pinned) else {
        return Err(AnswerRefusal::OtherKey {
            pinned: pinned.fingerprint(),
            signed_by: entries.iter().map(|(k, _)| k.fingerprint()).collect(),
        });
    };
    if !pinned.verify_message(&answer_message(scope, timestamp, body), signature) {
        return Err(AnswerRefusal::BadSignature);
    }
    if (ts - now).abs() > TIMESTAMP_WINDOW_SECS {
        return Err(AnswerRefusal::StaleTimestamp);
    }
    Ok(())
}

/// A verified `X-Knot-Control-Key-Move`: `from` signed that pins move to `to`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyMove {
    pub from: ControlPublicKey,
    pub to: ControlPublicKey,
}

impl KeyMove {
    /// Parses and verifies the header; `None` for anything that is not a
    /// move correctly signed by its `from` key.
    pub fn verified(header: &str) -> Option<Self> {
        let mut parts = header.trim().split(':');
        let (from, to, signature) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let from = ControlPublicKey::parse(from).ok()?;
        let to = ControlPublicKey::parse(to).ok()?;
        let signature = WireSignature::parse(signature).ok()?;
        (from != to && from.verify_message(&key_move_message(&from, &to), &signature))
            .then_some(Self { from, to })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> AnswerScope<'static> {
        AnswerScope {
            path: "/api/v1/agents/jobs/next",
            agent_id: "ka_hiignqyb4ekfjzdstd5pxje2wxmfomko",
            nonce: "n1",
        }
    }

    fn header(key: &ControlKey, scope: &AnswerScope, ts: &str, body: &[u8]) -> String {
        key.sign_answer(scope, ts, body)
    }

    #[test]
    fn an_answer_verifies_only_for_its_key_request_body_and_time() {
        let key = ControlKey::from_seed([1; 32]);
        let pinned = key.public_key();
        let body = br#"{"id":"job_a","kind":"deploy_beacon"}"#;
        let sig = header(&key, &scope(), "1000", body);
        assert_eq!(
            verify_answer(&pinned, Some(&sig), Some("1000"), 1100, &scope(), body),
            Ok(())
        );
        // Another body, Agent, path, nonce or timestamp: the same signature fails.
        let other_body = br#"{"id":"job_a","kind":"deploy_sidecar"}"#;
        assert_eq!(
            verify_answer(
                &pinned,
                Some(&sig),
                Some("1000"),
                1000,
                &scope(),
                other_body
            ),
            Err(AnswerRefusal::BadSignature)
        );
        for changed in [
            AnswerScope {
                agent_id: "ka_other",
                ..scope()
            },
            AnswerScope {
                path: "/api/v1/agents/heartbeat",
                ..scope()
            },
            AnswerScope {
                nonce: "n2",
                ..scope()
            },
        ] {
            assert_eq!(
                verify_answer(&pinned, Some(&sig), Some("1000"), 1000, &changed, body),
                Err(AnswerRefusal::BadSignature),
                "{changed:?}"
            );
        }
        assert_eq!(
            verify_answer(&pinned, Some(&sig), Some("1001"), 1000, &scope(), body),
            Err(AnswerRefusal::BadSignature)
        );
        assert_eq!(
            verify_answer(&pinned, Some(&sig), Some("1000"), 1181, &scope(), body),
            Err(AnswerRefusal::StaleTimestamp)
        );
        assert_eq!(
            verify_answer(&pinned, None, Some("1000"), 1000, &scope(), body),
            Err(AnswerRefusal::Unsigned)
        );
        assert_eq!(
            verify_answer(&pinned, Some(&sig), None, 1000, &scope(), body),
            Err(AnswerRefusal::Unsigned)
        );
    }

    #[test]
    fn a_signature_by_another_key_names_both_fingerprints() {
        let pinned = ControlKey::from_seed([1; 32]).public_key();
        let impostor = ControlKey::from_seed([2; 32]);
        let body = b"{}";
        let sig = header(&impostor, &scope(), "5", body);
        let refused = verify_answer(&pinned, Some(&sig), Some("5"), 5, &scope(), body).unwrap_err();
        assert_eq!(
            refused,
            AnswerRefusal::OtherKey {
                pinned: pinned.fingerprint(),
                signed_by: vec![impostor.public_key().fingerprint()],
            }
        );
        assert_eq!(refused.code(), "other_key");
        // An impostor claiming the pinned key with its own signature fails the check.
        let forged = format!("{}:{}", pinned.to_wire(), sig.split_once(':').unwrap().1);
        assert_eq!(
            verify_answer(&pinned, Some(&forged), Some("5"), 5, &scope(), body),
            Err(AnswerRefusal::BadSignature)
        );
    }

    #[test]
    fn during_a_rotation_either_key_verifies_and_the_move_is_signed_by_the_old_one() {
        let old = ControlKey::from_seed([3; 32]);
        let new = ControlKey::from_seed([4; 32]);
        let body = b"{\"ok\":true}";
        let both = format!(
            "{}, {}",
            header(&new, &scope(), "9", body),
            header(&old, &scope(), "9", body)
        );
        for pinned in [old.public_key(), new.public_key()] {
            assert_eq!(
                verify_answer(&pinned, Some(&both), Some("9"), 9, &scope(), body),
                Ok(())
            );
        }
        let endorsement = old.endorse(&new.public_key());
        assert_eq!(
            KeyMove::verified(&endorsement),
            Some(KeyMove {
                from: old.public_key(),
                to: new.public_key()
            })
        );
        // A move signed by anyone but the old key, or to itself, is nothing.
        let impostor = ControlKey::from_seed([5; 32]);
        let (_, _, their_sig) = {
            let e = impostor.endorse(&new.public_key());
            let mut p = e
                .split(':')
                .map(String::from)
                .collect::<Vec<_>>()
                .into_iter();
            (p.next().unwrap(), p.next().unwrap(), p.next().unwrap())
        };
        let forged = format!(
            "{}:{}:{their_sig}",
            old.public_key().to_wire(),
            new.public_key().to_wire()
        );
        assert_eq!(KeyMove::verified(&forged), None);
        assert_eq!(KeyMove::verified(&old.endorse(&old.public_key())), None);
        for junk in ["", "a:b:c", &format!("{endorsement}:x"), "::"] {
            assert_eq!(KeyMove::verified(junk), None, "{junk:?}");
        }
    }

    #[test]
    fn malformed_signature_headers_are_refused_as_such() {
        let pinned = ControlKey::from_seed([1; 32]).public_key();
        let good = header(&ControlKey::from_seed([1; 32]), &scope(), "5", b"");
        let (key, sig) = good.split_once(':').unwrap();
        for bad in [
            String::new(),
            "nonsense".into(),
            key.to_string(),
            format!("{key}:"),
            format!("{key}=:{sig}"),
            format!("{key}:{sig}="),
            format!("{key}:{sig},{good},{good},{good},{good}"),
        ] {
            assert_eq!(
                verify_answer(&pinned, Some(&bad), Some("5"), 5, &scope(), b""),
                Err(AnswerRefusal::Malformed),
                "{bad:?}"
            );
        }
        assert_eq!(
            verify_answer(&pinned, Some(&good), Some("05"), 5, &scope(), b""),
            Err(AnswerRefusal::Malformed)
        );
    }

    #[test]
    fn keys_have_one_spelling_and_a_stable_fingerprint() {
        let key = ControlKey::from_seed([9; 32]);
        let wire = key.public_key().to_wire();
        assert_eq!(ControlPublicKey::parse(&wire), Ok(key.public_key()));
        for other in [
            format!("{wire}="),
            format!(" {wire}"),
            wire.replace('+', "-"),
        ] {
            if other != wire {
                assert!(ControlPublicKey::parse(&other).is_err(), "{other:?}");
            }
        }
        let fp = key.public_key().fingerprint();
        assert!(fp.starts_with("SHA256:") && fp.len() == 7 + 43, "{fp}");
        assert_eq!(fingerprint(&wire), fp);
        let back = ControlKey::from_stored(&key.to_stored()).unwrap();
        assert_eq!(back.public_key(), key.public_key());
        assert!(ControlKey::from_stored("short").is_err());
    }
}
