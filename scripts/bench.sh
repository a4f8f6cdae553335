#!/usr/bin/env bash
# Measures what BENCHMARKS.md records, on the release build in target/:
#  - the front end's WebAssembly size, raw and gzip -9;
#  - cold start of Control to a 200 from /readyz on a new SQLite data dir (median of 10);
#  - latency of the server-rendered /networks page with 500 profiles (p50/p90 of 300 requests).
# Run `scripts/build-release.sh` first (scripts/run.sh or scripts/test.sh do).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${CARGO_TARGET_DIR:-target}/release/knotroute-control"
site="$PWD/target/site"
# The main module, under its content-hashed name (or the plain one of an unhashed build).
wasm="$(ls "$site"/pkg/knotroute.*wasm 2>/dev/null | grep -v "\.br$\|\.gz$" | head -1)"
[[ -x "$bin" && -n "$wasm" && -f "$wasm" ]] || { echo "build first: scripts/build-release.sh" >&2; exit 1; }
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"
export KNOTROUTE_CONTROL_ADMIN_PASSWORD=bench-admin-password-0001 KNOTROUTE_CONTROL_ENROLL_TOKEN=bench-enroll-token-00001
# The load comes from one loopback address by design.
export KNOTROUTE_CONTROL_MACHINE_RATE_LIMIT=0
export KNOTROUTE_CONTROL_LISTEN="127.0.0.1:$port" KNOTROUTE_CONTROL_SITE_ROOT="$site" RUST_LOG=warn

echo "wasm raw bytes:  $(stat -c %s "$wasm")"
echo "wasm gzip bytes: $(gzip -9 -c "$wasm" | wc -c)"

now_ms() { date +%s%3N; }
starts=()
for _ in $(seq 10); do
  data="$(mktemp -d)"
  t0=$(now_ms)
  KNOTROUTE_CONTROL_DATA="$data" "$bin" >/dev/null 2>&1 &
  pid=$!
  until curl -fs "$base/readyz" >/dev/null 2>&1; do sleep 0.005; done
  starts+=($(( $(now_ms) - t0 )))
  kill "$pid"; wait "$pid" 2>/dev/null || true
  rm -rf "$data"
done
printf 'cold start to /readyz (ms), sorted: %s\n' "$(printf '%s\n' "${starts[@]}" | sort -n | tr '\n' ' ')"
echo "cold start median ms: $(printf '%s\n' "${starts[@]}" | sort -n | sed -n 5,6p | awk '{s+=$1} END {print s/2}')"

data="$(mktemp -d)"
KNOTROUTE_CONTROL_DATA="$data" "$bin" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$data"' EXIT
until curl -fs "$base/readyz" >/dev/null 2>&1; do sleep 0.01; done
jar="$data/cookies"
curl -fs -c "$jar" -H "Origin: $base" -H 'Content-Type: application/json' \
  -d "{\"password\":\"$KNOTROUTE_CONTROL_ADMIN_PASSWORD\"}" "$base/api/v1/session" >/dev/null
for i in $(seq -w 1 500); do
  printf '{"name":"bench network %s","beacons":["https://beacon-%s.example.net"]}' "$i" "$i"
  echo
done | while read -r body; do
  curl -fs -b "$jar" -H "Origin: $base" -H 'Content-Type: application/json' -d "$body" "$base/api/v1/networks" >/dev/null
done
echo "profiles: $(curl -fs -b "$jar" "$base/api/v1/networks" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"
for _ in $(seq 20); do curl -fs -b "$jar" -o /dev/null "$base/networks"; done
curl -s -b "$jar" -o /dev/null -w '%{time_total}\n' "$base/networks?[1-300]" > "$data/times" 2>/dev/null || true
if [[ "$(wc -l < "$data/times")" -lt 300 ]]; then
  : > "$data/times"
  for _ in $(seq 300); do curl -s -b "$jar" -o /dev/null -w '%{time_total}\n' "$base/networks" >> "$data/times"; done
fi
sort -n "$data/times" | awk '{a[NR]=$1*1000} END {printf "GET /networks (500 profiles, first page of 50): p50 %.2f ms, p90 %.2f ms, n=%d\n", a[int(NR*0.5)], a[int(NR*0.9)], NR}'
echo "bytes of that page: $(curl -s -b "$jar" "$base/networks" | wc -c)"
