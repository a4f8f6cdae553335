#!/usr/bin/env bash
# The Agent's figures in BENCHMARKS.md: release binary size (as built, and
# stripped), idle resident memory, and CPU per heartbeat, measured against a
# release Control on loopback (SQLite) with a 1 s interval for 60 s.
# Needs target/release/knotroute-control (scripts/test.sh or run.sh builds it),
# or another Control binary in KNOTROUTE_BENCH_CONTROL (the Agent's own cost
# does not depend on how Control was built).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
cargo build --release -p knotroute-agent
target="${CARGO_TARGET_DIR:-target}/release"
control="${KNOTROUTE_BENCH_CONTROL:-$target/knotroute-control}"
[[ -x "$control" ]] || { echo "build Control first: scripts/build-release.sh" >&2; exit 1; }
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
echo "agent binary bytes: $(stat -c %s "$target/knotroute-agent")"
strip -o "$work/agent-stripped" "$target/knotroute-agent"
echo "agent binary bytes, stripped: $(stat -c %s "$work/agent-stripped")"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
KNOTROUTE_CONTROL_ADMIN_PASSWORD=bench-admin-password-0001 KNOTROUTE_CONTROL_ENROLL_TOKEN=bench-enroll-token-00001 \
  KNOTROUTE_CONTROL_LISTEN="127.0.0.1:$port" KNOTROUTE_CONTROL_DATA="$work/control" RUST_LOG=warn KNOTROUTE_CONTROL_MACHINE_RATE_LIMIT=0 \
  "$control" >/dev/null 2>&1 &
until curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; do sleep 0.05; done
# KNOTROUTE_BENCH_DOCKER=standin: Docker enabled, through the recording
# stand-in docker CLI with two managed containers (no engine here), to see
# what listing components costs the Agent itself.
if [[ "${KNOTROUTE_BENCH_DOCKER:-}" == standin ]]; then
  mkdir -p "$work/standin/containers"
  : > "$work/standin/containers/sidecar-web"; : > "$work/standin/containers/beacon-edge"
  export PATH="$PWD/agent/tests/standin:$PATH" STANDIN_DIR="$work/standin" STANDIN_SECRET=x KNOTROUTE_AGENT_DOCKER=true
fi
KNOTROUTE_CONTROL_URL="http://127.0.0.1:$port" KNOTROUTE_CONTROL_ENROLL_TOKEN=bench-enroll-token-00001 \
  KNOTROUTE_AGENT_DATA="$work/agent" KNOTROUTE_AGENT_POLL=1s RUST_LOG=warn "$target/knotroute-agent" &
agent=$!
sleep 5
ticks() { awk '{print $14 + $15}' "/proc/$agent/stat"; }
child_ticks() { awk '{print $16 + $17}' "/proc/$agent/stat"; }
start="$(ticks)"; child_start="$(child_ticks)"
sleep 60
end="$(ticks)"; child_end="$(child_ticks)"
hz="$(getconf CLK_TCK)"
echo "agent RSS after 65 s: $(awk '/VmRSS/ {print $2, $3}' "/proc/$agent/status")"
echo "agent CPU over 60 heartbeats (and 60 job polls): $(( (end - start) * 1000 / hz )) ms"
echo "CPU of the commands it ran (docker CLI), same 60 s: $(( (child_end - child_start) * 1000 / hz )) ms"
