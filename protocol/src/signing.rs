//! Request signing as PROTOCOL.md defines it: every Agent request after
//! enrollment carries `X-Knot-Agent`, `X-Knot-Timestamp` and `X-Knot-Signature`,
//! an Ed25519 signature over a fixed five-line message. Shared by Control
//! (verification) and the Agent (signing).

use crate::ids::AgentId;
use data_encoding::{BASE64, BASE64_NOPAD, HEXLOWER};
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

pub const HEADER_AGENT: &str = "x-knot-agent";
pub const HEADER_TIMESTAMP: &str = "x-knot-timestamp";
pub const HEADER_SIGNATURE: &str = "x-knot-signature";
/// The first line of every signed message.
pub const MESSAGE_CONTEXT: &str = "knotroute/ops-request/v1";
/// How far a request's timestamp may be from Control's clock, in seconds.
pub const TIMESTAMP_WINDOW_SECS: i64 = 180;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the public key is not 32 bytes of base64 without padding")]
    MalformedPublicKey,
    #[error("the signature is not 64 bytes of base64 without padding")]
    MalformedSignature,
    #[error("the timestamp is not decimal Unix seconds")]
    MalformedTimestamp,
    #[error("the timestamp is more than 180 s from Control's clock")]
    StaleTimestamp,
    #[error("the signature does not match")]
    BadSignature,
    #[error("the identity file is not a 64-byte Ed25519 keypair")]
    MalformedIdentity,
    #[error("the Agent ID is not in its canonical form")]
    MalformedAgentId,
}

/// The exact bytes that are signed: five lines joined by `\n`, no trailing newline.
pub fn signing_message(method: &str, path: &str, timestamp: &str, body: &[u8]) -> String {
    let body_hash = HEXLOWER.encode(&Sha256::digest(body));
    format!(
        "{MESSAGE_CONTEXT}\n{}\n{path}\n{timestamp}\n{body_hash}",
        method.to_ascii_uppercase()
    )
}

/// Standard base64; padding is optional on input, never produced on output.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let trimmed = text.trim();
    BASE64_NOPAD
        .decode(trimmed.as_bytes())
        .ok()
        .or_else(|| BASE64.decode(trimmed.as_bytes()).ok())
}

/// A signature exactly as the protocol spells it: standard base64 without
/// padding of the 64 bytes (86 characters). Every other spelling of the same
/// bytes (padding, whitespace, the URL-safe alphabet, non-zero trailing bits)
/// is refused, so text and bytes are one-to-one and a re-encoded copy of a
/// request cannot pass for a new one.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct WireSignature([u8; 64]);

impl WireSignature {
    pub fn parse(text: &str) -> Result<Self, SignatureError> {
        let bytes: [u8; 64] = BASE64_NOPAD
            .decode(text.as_bytes())
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or(SignatureError::MalformedSignature)?;
        // The round trip states the rule outright rather than relying on the
        // decoder's trailing-bit check.
        if BASE64_NOPAD.encode(&bytes) != text {
            return Err(SignatureError::MalformedSignature);
        }
        Ok(Self(bytes))
    }

    pub fn to_bytes(&self) -> [u8; 64] {
        self.0
    }

    /// The one spelling the protocol allows.
    pub fn to_wire(&self) -> String {
        BASE64_NOPAD.encode(&self.0)
    }
}

impl std::fmt::Debug for WireSignature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WireSignature({})", self.to_wire())
    }
}

/// The `X-Knot-Agent` header: the Agent ID exactly as Control issued it
/// (lowercase, no surrounding space).
pub fn parse_agent_header(text: &str) -> Result<AgentId, SignatureError> {
    AgentId::parse(text)
        .ok()
        .filter(|id| id.as_str() == text)
        .ok_or(SignatureError::MalformedAgentId)
}

/// The `X-Knot-Timestamp` header: decimal Unix seconds in their one spelling
/// (ASCII digits, no sign, no leading zero, no space), since the text itself
/// is what is signed.
pub fn parse_timestamp(text: &str) -> Result<i64, SignatureError> {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    if !canonical {
        return Err(SignatureError::MalformedTimestamp);
    }
    text.parse().map_err(|_| SignatureError::MalformedTimestamp)
}

/// A pinned Agent public key, as it travels on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentPublicKey(VerifyingKey);

impl AgentPublicKey {
    pub fn parse(wire: &str) -> Result<Self, SignatureError> {
        let bytes: [u8; 32] = decode_base64(wire)
            .and_then(|b| b.try_into().ok())
            .ok_or(SignatureError::MalformedPublicKey)?;
        VerifyingKey::from_bytes(&bytes)
            .map(Self)
            .map_err(|_| SignatureError::MalformedPublicKey)
    }

    /// Base64 without padding, as stored and sent.
    pub fn to_wire(&self) -> String {
        BASE64_NOPAD.encode(self.0.as_bytes())
    }

    pub fn agent_id(&self) -> AgentId {
        AgentId::derive(self.0.as_bytes())
    }

    /// `SHA256:` and base64 (no padding) of the SHA-256 of the key's 32
    /// bytes, as Control's own key is shown: what an admin compares with
    /// the Agent's log before approving it.
    pub fn fingerprint(&self) -> String {
        crate::control_identity::fingerprint_of(self.0.as_bytes())
    }

    /// Checks a request's signature, given in its wire form. The timestamp
    /// window is checked separately (see [`check_timestamp`]) so callers can
    /// tell the two apart in their logs.
    pub fn verify(
        &self,
        method: &str,
        path: &str,
        timestamp: &str,
        body: &[u8],
        signature: &str,
    ) -> Result<(), SignatureError> {
        self.verify_parsed(
            method,
            path,
            timestamp,
            body,
            &WireSignature::parse(signature)?,
        )
    }

    /// [`Self::verify`] for a signature already parsed.
    pub fn verify_parsed(
        &self,
        method: &str,
        path: &str,
        timestamp: &str,
        body: &[u8],
        signature: &WireSignature,
    ) -> Result<(), SignatureError> {
        let message = signing_message(method, path, timestamp, body);
        // verify_strict also refuses the malleable and small-order edge cases.
        self.0
            .verify_strict(message.as_bytes(), &Signature::from_bytes(&signature.0))
            .map_err(|_| SignatureError::BadSignature)
    }
}

/// Parses the timestamp header (see [`parse_timestamp`]) and checks it is
/// within ±180 s of `now` (Unix seconds).
pub fn check_timestamp(timestamp: &str, now: i64) -> Result<i64, SignatureError> {
    let ts = parse_timestamp(timestamp)?;
    if (ts - now).abs() > TIMESTAMP_WINDOW_SECS {
        return Err(SignatureError::StaleTimestamp);
    }
    Ok(ts)
}

/// An Agent's keypair. The identity file stores it as base64 (no padding) of
/// the 32-byte seed followed by the 32-byte public key.
pub struct AgentKey(SigningKey);

impl AgentKey {
    pub fn from_seed(seed: [u8; 32]) -> Self {
        Self(SigningKey::from_bytes(&seed))
    }

    /// Reads the `private_key` field of `agent-identity.json`; the embedded public
    /// key must match the seed.
    pub fn from_identity(private_key: &str) -> Result<Self, SignatureError> {
        let bytes: [u8; 64] = decode_base64(private_key)
            .and_then(|b| b.try_into().ok())
            .ok_or(SignatureError::MalformedIdentity)?;
        SigningKey::from_keypair_bytes(&bytes)
            .map(Self)
            .map_err(|_| SignatureError::MalformedIdentity)
    }

    pub fn to_identity(&self) -> String {
        BASE64_NOPAD.encode(&self.0.to_keypair_bytes())
    }

    pub fn public_key(&self) -> AgentPublicKey {
        AgentPublicKey(self.0.verifying_key())
    }

    /// The `X-Knot-Signature` value for a request.
    pub fn sign(&self, method: &str, path: &str, timestamp: &str, body: &[u8]) -> String {
        let message = signing_message(method, path, timestamp, body);
        BASE64_NOPAD.encode(&self.0.sign(message.as_bytes()).to_bytes())
    }
}

impl std::fmt::Debug for AgentKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentKey")
            .field("public_key", &self.public_key().to_wire())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_only_for_the_same_method_path_time_and_body() {
        let key = AgentKey::from_seed([5u8; 32]);
        let public = key.public_key();
        let sig = key.sign("post", "/api/v1/agents/heartbeat", "100", b"{}");
        assert!(public
            .verify("POST", "/api/v1/agents/heartbeat", "100", b"{}", &sig)
            .is_ok());
        for (m, p, t, b) in [
            ("GET", "/api/v1/agents/heartbeat", "100", &b"{}"[..]),
            ("POST", "/api/v1/agents/jobs/next", "100", b"{}"),
            ("POST", "/api/v1/agents/heartbeat", "101", b"{}"),
            ("POST", "/api/v1/agents/heartbeat", "100", b"{ }"),
        ] {
            assert_eq!(
                public.verify(m, p, t, b, &sig),
                Err(SignatureError::BadSignature),
                "{m} {p} {t}"
            );
        }
        let other = AgentKey::from_seed([6u8; 32]).public_key();
        assert_eq!(
            other.verify("POST", "/api/v1/agents/heartbeat", "100", b"{}", &sig),
            Err(SignatureError::BadSignature)
        );
        assert_eq!(
            public.verify("POST", "/x", "1", b"", "not base64!"),
            Err(SignatureError::MalformedSignature)
        );
    }

    #[test]
    fn timestamps_are_accepted_within_180_seconds_either_way() {
        assert_eq!(check_timestamp("1000", 1180), Ok(1000));
        assert_eq!(check_timestamp("1360", 1180), Ok(1360));
        assert_eq!(
            check_timestamp("999", 1180),
            Err(SignatureError::StaleTimestamp)
        );
        assert_eq!(
            check_timestamp("1361", 1180),
            Err(SignatureError::StaleTimestamp)
        );
        for other_spelling in [
            "12a", "+1000", "01000", " 1000", "1000 ", "-1000", "", "1e3",
        ] {
            assert_eq!(
                check_timestamp(other_spelling, 1180),
                Err(SignatureError::MalformedTimestamp),
                "{other_spelling:?}"
            );
        }
    }

    #[test]
    fn the_agent_header_must_be_the_id_as_issued() {
        let id = AgentKey::from_seed([8u8; 32]).public_key().agent_id();
        assert_eq!(parse_agent_header(id.as_str()), Ok(id.clone()));
        for other in [
            id.as_str().to_ascii_uppercase(),
            format!(" {id}"),
            format!("{id} "),
            format!("KA_{}", &id.as_str()[3..]),
        ] {
            assert_eq!(
                parse_agent_header(&other),
                Err(SignatureError::MalformedAgentId),
                "{other:?}"
            );
        }
    }

    #[test]
    fn the_identity_round_trips_and_refuses_a_mismatched_public_half() {
        let key = AgentKey::from_seed([7u8; 32]);
        let stored = key.to_identity();
        let back = AgentKey::from_identity(&stored).unwrap();
        assert_eq!(back.public_key(), key.public_key());
        let mut bytes = BASE64_NOPAD.decode(stored.as_bytes()).unwrap();
        bytes[63] ^= 1;
        assert!(AgentKey::from_identity(&BASE64_NOPAD.encode(&bytes)).is_err());
    }
}
