#!/usr/bin/env python3
"""Regenerates agent-v1.json with an implementation independent of ours:
Python's `cryptography` (Ed25519) and hashlib, following PROTOCOL.md.
The seed is RFC 8032's test 1, so the public key can be checked against the RFC too."""
import base64, hashlib, json, pathlib
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

seed = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
key = Ed25519PrivateKey.from_private_bytes(seed)
pub = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
b64 = lambda b: base64.b64encode(b).decode().rstrip("=")
digest = hashlib.sha256(b"knotroute/agent/v1|" + pub).digest()[:20]
agent_id = "ka_" + base64.b32encode(digest).decode().lower().rstrip("=")
body = b'{"name":"prod-01","nonce":"test-vector-1"}'
timestamp = "1767225600"
message = "\n".join(["knotroute/ops-request/v1", "POST", "/api/v1/agents/heartbeat", timestamp,
                     hashlib.sha256(body).hexdigest()])
vectors = {
    "description": "Generated independently with Python's cryptography package (Ed25519) and hashlib; seed is RFC 8032 test 1.",
    "seed_hex": seed.hex(),
    "public_key": b64(pub),
    "agent_id": agent_id,
    "identity_private_key": b64(seed + pub),
    "request": {"method": "POST", "path": "/api/v1/agents/heartbeat", "timestamp": timestamp, "body": body.decode()},
    "message": message,
    "signature": b64(key.sign(message.encode())),
}
out = pathlib.Path(__file__).with_name("agent-v1.json")
out.write_text(json.dumps(vectors, indent=2) + "\n")
print(f"wrote {out}")
