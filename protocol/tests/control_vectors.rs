//! The Control-signature test vectors (test-vectors/control-v1.json, made by
//! an independent implementation: test-vectors/generate_control.py) must
//! match ours byte for byte, so another Agent can verify our Control.

use protocol::control_identity::{
    answer_message, verify_answer, AnswerScope, ControlKey, ControlPublicKey, KeyMove,
};
use serde_json::Value;

fn vectors() -> Value {
    serde_json::from_str(include_str!("../test-vectors/control-v1.json")).unwrap()
}

fn seed(hex: &str) -> [u8; 32] {
    let bytes: Vec<u8> = (0..32)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    bytes.try_into().unwrap()
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap()
}

#[test]
fn the_keys_fingerprint_and_stored_form_are_the_published_ones() {
    let v = vectors();
    let key = ControlKey::from_seed(seed(s(&v, "current_seed_hex")));
    assert_eq!(key.public_key().to_wire(), s(&v, "current_public_key"));
    assert_eq!(key.public_key().fingerprint(), s(&v, "current_fingerprint"));
    assert_eq!(key.to_stored(), s(&v, "current_stored_private_key"));
    let next = ControlKey::from_seed(seed(s(&v, "next_seed_hex")));
    assert_eq!(next.public_key().to_wire(), s(&v, "next_public_key"));
}

#[test]
fn a_job_answer_has_the_published_message_and_signatures() {
    let v = vectors();
    let a = &v["answer"];
    let scope = AnswerScope {
        path: s(a, "path"),
        agent_id: s(a, "agent_id"),
        nonce: s(a, "nonce"),
    };
    let (ts, body) = (s(a, "timestamp"), s(a, "body").as_bytes());
    assert_eq!(answer_message(&scope, ts, body), s(&v, "message"));
    let current = ControlKey::from_seed(seed(s(&v, "current_seed_hex")));
    let next = ControlKey::from_seed(seed(s(&v, "next_seed_hex")));
    assert_eq!(
        current.sign_answer(&scope, ts, body),
        s(&v, "signature_header")
    );
    assert_eq!(
        format!(
            "{}, {}",
            next.sign_answer(&scope, ts, body),
            current.sign_answer(&scope, ts, body)
        ),
        s(&v, "rotation_signature_header")
    );
    let now: i64 = ts.parse().unwrap();
    let pinned = ControlPublicKey::parse(s(&v, "current_public_key")).unwrap();
    for header in ["signature_header", "rotation_signature_header"] {
        assert_eq!(
            verify_answer(&pinned, Some(s(&v, header)), Some(ts), now, &scope, body),
            Ok(()),
            "{header}"
        );
    }
}

#[test]
fn the_key_move_is_the_published_one_and_verifies() {
    let v = vectors();
    let current = ControlKey::from_seed(seed(s(&v, "current_seed_hex")));
    let next = ControlPublicKey::parse(s(&v, "next_public_key")).unwrap();
    assert_eq!(current.endorse(&next), s(&v, "key_move_header"));
    let moved = KeyMove::verified(s(&v, "key_move_header")).unwrap();
    assert_eq!(moved.from, current.public_key());
    assert_eq!(moved.to, next);
}
