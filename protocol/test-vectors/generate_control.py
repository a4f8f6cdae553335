#!/usr/bin/env python3
"""Regenerates control-v1.json with an implementation independent of ours:
Python's `cryptography` (Ed25519) and hashlib, following the message layout in
protocol/src/control_identity.rs (an extension of PROTOCOL.md). The seeds are
RFC 8032's tests 2 and 3 (the current and the next Control key)."""
import base64, hashlib, json, pathlib
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

b64 = lambda b: base64.b64encode(b).decode().rstrip("=")

def key(seed_hex):
    k = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed_hex))
    pub = k.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return k, pub

current_seed = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"
next_seed = "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7"
current, current_pub = key(current_seed)
nxt, next_pub = key(next_seed)
fingerprint = "SHA256:" + b64(hashlib.sha256(current_pub).digest())

# A job offer, exactly as the bytes Control sends.
body = (b'{"id":"job_aaaaaaaaaaaaaaaaaaaaaaaaaa","agent_id":"ka_hiignqyb4ekfjzdstd5pxje2wxmfomko",'
        b'"kind":"restart_component","payload":{"component_id":"sidecar-web"},"status":"running",'
        b'"created_at":"2026-01-01T00:00:00Z","started_at":"2026-01-01T00:00:01Z"}')
scope = {"path": "/api/v1/agents/jobs/next", "agent_id": "ka_hiignqyb4ekfjzdstd5pxje2wxmfomko",
         "nonce": "5f0c6a4e9d1b2c3a4f5e6d7c8b9a0f1e"}
timestamp = "1767225600"
message = "\n".join(["knotroute/control-answer/v1", scope["path"], scope["agent_id"], scope["nonce"],
                     timestamp, hashlib.sha256(body).hexdigest()])
key_move = "\n".join(["knotroute/control-key-move/v1", b64(current_pub), b64(next_pub)])
vectors = {
    "description": "Generated independently with Python's cryptography package (Ed25519) and hashlib; seeds are RFC 8032 tests 2 and 3.",
    "current_seed_hex": current_seed,
    "current_public_key": b64(current_pub),
    "current_fingerprint": fingerprint,
    "current_stored_private_key": b64(bytes.fromhex(current_seed)),
    "next_seed_hex": next_seed,
    "next_public_key": b64(next_pub),
    "answer": {**scope, "timestamp": timestamp, "body": body.decode()},
    "message": message,
    "signature_header": b64(current_pub) + ":" + b64(current.sign(message.encode())),
    "rotation_signature_header": ", ".join([
        b64(next_pub) + ":" + b64(nxt.sign(message.encode())),
        b64(current_pub) + ":" + b64(current.sign(message.encode())),
    ]),
    "key_move_message": key_move,
    "key_move_header": b64(current_pub) + ":" + b64(next_pub) + ":" + b64(current.sign(key_move.encode())),
}
out = pathlib.Path(__file__).with_name("control-v1.json")
out.write_text(json.dumps(vectors, indent=2) + "\n")
print(f"wrote {out}")
