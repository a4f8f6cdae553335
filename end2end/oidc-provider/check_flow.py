#!/usr/bin/env python3
"""End-to-end auth-code + PKCE check against the local test provider, no browser.
Usage: check_flow.py USER PASSWORD [--expect-fail]"""
import base64, hashlib, json, os, re, secrets, sys
from urllib.parse import urlencode, urljoin, urlparse, parse_qs
import requests

ISSUER = os.environ.get("OIDC_ISSUER", "http://127.0.0.1:9400")
CLIENT_ID = os.environ.get("OIDC_CLIENT_ID", "knotroute")
CLIENT_SECRET = os.environ.get("OIDC_CLIENT_SECRET", "knotroute-secret")
REDIRECT_URI = os.environ.get("OIDC_REDIRECT_URI", "http://127.0.0.1:8080/auth/oidc/callback")
user, password = sys.argv[1], sys.argv[2]
expect_fail = "--expect-fail" in sys.argv

def b64url(b): return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
def b64url_decode(s): return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))

disc = requests.get(f"{ISSUER}/.well-known/openid-configuration", timeout=5).json()
assert disc["issuer"] == ISSUER, disc["issuer"]
state, nonce = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
verifier = b64url(secrets.token_bytes(32))
challenge = b64url(hashlib.sha256(verifier.encode()).digest())
auth_url = disc["authorization_endpoint"] + "?" + urlencode({
    "response_type": "code", "client_id": CLIENT_ID, "redirect_uri": REDIRECT_URI,
    "scope": "openid profile email groups", "state": state, "nonce": nonce,
    "code_challenge": challenge, "code_challenge_method": "S256"})

s = requests.Session()  # keeps the _interaction / _session cookies like a browser

def follow(resp):
    """Follow redirects by hand; stop at the redirect_uri (nothing listens there)."""
    while resp.is_redirect:
        loc = urljoin(resp.url, resp.headers["Location"])
        if loc.startswith(REDIRECT_URI):
            return loc, resp
        resp = s.get(loc, allow_redirects=False, timeout=5)
    return None, resp

callback, page = follow(s.get(auth_url, allow_redirects=False, timeout=5))
assert callback is None and "name=\"login\"" in page.text, page.text[:300]
action = re.search(r'<form method="post" action="([^"]+)"', page.text).group(1)
print("login page:", page.url, "-> form action", action)
callback, page = follow(s.post(urljoin(page.url, action), allow_redirects=False, timeout=5,
                               data={"login": user, "password": password}))
if callback is None:
    err = re.search(r'id="error"[^>]*>([^<]*)', page.text)
    print("no redirect; login page says:", err and err.group(1))
    sys.exit(0 if expect_fail else 1)
assert not expect_fail, "login unexpectedly succeeded"
q = parse_qs(urlparse(callback).query)
print("callback params:", sorted(q))
assert q["state"][0] == state and q["iss"][0] == ISSUER

tok = requests.post(disc["token_endpoint"], auth=(CLIENT_ID, CLIENT_SECRET), timeout=5, data={
    "grant_type": "authorization_code", "code": q["code"][0],
    "redirect_uri": REDIRECT_URI, "code_verifier": verifier})
tok.raise_for_status()
tok = tok.json()
print("token response keys:", sorted(tok), "scope:", tok.get("scope"))
header = json.loads(b64url_decode(tok["id_token"].split(".")[0]))
claims = json.loads(b64url_decode(tok["id_token"].split(".")[1]))
assert claims["nonce"] == nonce
print("id_token header:", header)
for k in ("iss", "aud", "nonce", "sub", "name", "email", "groups", "https://knotroute.example/claims"):
    print(f"  {k}: {json.dumps(claims.get(k))}")
me = requests.get(disc["userinfo_endpoint"], timeout=5,
                  headers={"Authorization": f"Bearer {tok['access_token']}"}).json()
print("userinfo groups:", me.get("groups"))
# replaying the code must fail (single use)
replay = requests.post(disc["token_endpoint"], auth=(CLIENT_ID, CLIENT_SECRET), timeout=5, data={
    "grant_type": "authorization_code", "code": q["code"][0],
    "redirect_uri": REDIRECT_URI, "code_verifier": verifier})
print("code replay:", replay.status_code, replay.json().get("error"))
