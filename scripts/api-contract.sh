#!/usr/bin/env bash
# Checks the running server against its own OpenAPI description with
# schemathesis (PyPI): every operation of /api/v1/openapi.json is called with
# generated valid and invalid input; no answer may be a 5xx, and every answer
# must match the schema and content type the description gives.
#   scripts/api-contract.sh [path/to/knotroute-control]
# Uses an empty SQLite data directory; signs in, creates a write token and
# a network, then lets schemathesis loose with the token.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bin="${1:-${CARGO_TARGET_DIR:-$PWD/target}/release/knotroute-control}"
st="$KNOTROUTE_TOOLS/schemathesis/bin/schemathesis"
[[ -x "$st" ]] || { echo "schemathesis missing: run scripts/install-tools.sh" >&2; exit 1; }
work="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"
password="contract-admin-password-01"
# Generated load comes from one address by design; beacon checks stay on this machine.
KNOTROUTE_CONTROL_ADMIN_PASSWORD="$password" KNOTROUTE_CONTROL_ENROLL_TOKEN=contract-enroll-token-0001 \
  KNOTROUTE_CONTROL_LISTEN="127.0.0.1:$port" KNOTROUTE_CONTROL_DATA="$work/data" \
  KNOTROUTE_CONTROL_MACHINE_RATE_LIMIT=0 KNOTROUTE_CONTROL_BEACON_CHECK_INTERVAL=0 RUST_LOG=warn \
  "$bin" > "$work/control.log" 2>&1 &
control=$!
trap 'kill $control 2>/dev/null || true; wait $control 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 200); do curl -fs "$base/readyz" >/dev/null 2>&1 && break; sleep 0.05; done
jar="$work/cookies"
curl -fs -c "$jar" -H "Origin: $base" -H 'content-type: application/json' \
  -d "{\"password\":\"$password\"}" "$base/api/v1/session" >/dev/null
token="$(curl -fs -b "$jar" -H "Origin: $base" -H 'content-type: application/json' \
  -d '{"name":"contract check","scope":"write"}' "$base/api/v1/tokens" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"
curl -fs -H "Authorization: Bearer $token" -H 'content-type: application/json' \
  -d '{"name":"Contract","beacons":["http://127.0.0.1:9"]}' "$base/api/v1/networks" >/dev/null
status=0
"$st" run "$base/api/v1/openapi.json" \
  --checks not_a_server_error,response_schema_conformance,content_type_conformance \
  --header "Authorization: Bearer $token" \
  --max-examples "${KNOTROUTE_CONTRACT_EXAMPLES:-25}" --seed 1 --workers 1 \
  --request-timeout 30 --generation-database none --no-color \
  --phases examples,coverage,fuzzing || status=$?
if (( status != 0 )); then
  echo "--- Control's log ---"; tail -50 "$work/control.log"
fi
exit $status
