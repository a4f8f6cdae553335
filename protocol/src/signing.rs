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

    /// Checks a request's signature. The timestamp window is checked separately
    /// (see [`check_timestamp`]) so callers can tell the two apart in their logs.
    pub fn verify(
        &self,
        method: &str,
        path: &str,
        timestamp: &str,
        body: &[u8],
        signature: &str,
    ) -> Result<(), SignatureError> {
        let sig_bytes: [u8; 64] = decode_base64(signature)
            .and_then(|b| b.try_into().ok())
            .ok_or(SignatureError::MalformedSignature)?;
        let message = signing_message(method, path, timestamp, body);
        // verify_strict also refuses the malleable and small-order edge cases.
        self.0
            .verify_strict(message.as_bytes(), &Signature::from_bytes(&sig_bytes))
            .map_err(|_| SignatureError::BadSignature)
    }
}

/// Parses the timestamp header and checks it is within ±180 s of `now` (Unix seconds).
pub fn check_timestamp(timestamp: &str, now: i64) -> Result<i64, SignatureError> {
    let ts: i64 = timestamp
        .trim()
        .parse()
        .map_err(|_| SignatureError::MalformedTimestamp)?;
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
        assert_eq!(
            check_timestamp("12a", 1180),
            Err(SignatureError::MalformedTimestamp)
        );
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
