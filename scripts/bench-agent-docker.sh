#!/usr/bin/env bash
# The Agent's cost per heartbeat with a real Docker engine (BENCHMARKS.md,
# "Agent with real Docker"): the release knotroute-agent against a Control on
# loopback, Docker on, 1 s interval, managing N containers of the STAND-IN
# images (1 Beacon, N-1 sidecars; scripts/standin-images.sh). For each N it
# reports the Agent's own CPU and that of the docker commands it ran, per
# heartbeat, over a measured window after a warm-up (the sidecars' .knot
# addresses are read once per container start, then cached), and the
# Agent's peak and current resident memory.
# Usage: scripts/bench-agent-docker.sh [N...]   (default: 2 20)
#   KNOTROUTE_BENCH_CONTROL=<binary>  Control to run (default: the release build)
#   KNOTROUTE_BENCH_SECONDS=<s>       measured window (default 60)
# Containers carry the label io.knotroute.bench=<pid> and are removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
counts=("$@"); [[ ${#counts[@]} -gt 0 ]] || counts=(2 20)
seconds="${KNOTROUTE_BENCH_SECONDS:-60}"
cargo build --quiet --release --locked -p knotroute-agent
target="${CARGO_TARGET_DIR:-target}/release"
control="${KNOTROUTE_BENCH_CONTROL:-$target/knotroute-control}"
[[ -x "$control" ]] || { echo "build Control first: scripts/build-release.sh" >&2; exit 1; }
tag=kr-bench
scripts/standin-images.sh "$tag" >/dev/null
work="$(mktemp -d)"
bench="io.knotroute.bench=$$"
net="kr-bench-$$"
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  ids="$(docker ps -aq --filter "label=$bench")"
  [[ -z "$ids" ]] || docker rm -f $ids >/dev/null
  docker network rm "$net" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
docker network create "$net" >/dev/null
network_id=kn_aeaqcaibaeaqcaibaeaqcaibaeaqcaibaeaqcaibaeaqcaibaeaq
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Containers labelled as the Agent's Compose files label them (no ports published).
run_component() { # kind slug image-args...
  local kind=$1 slug=$2; shift 2
  docker run -d --network "$net" --name "kr-bench-$$-$kind-$slug" --label "$bench" \
    --label io.knotroute.managed=true --label "io.knotroute.component=$kind" \
    --label "io.knotroute.component-id=$kind-$slug" --label "io.knotroute.network-id=$network_id" \
    "$@" >/dev/null
}
have=0
add_containers() { # up to total
  while (( have < $1 )); do
    if (( have == 0 )); then
      run_component beacon edge --label io.knotroute.public-url=https://beacon.example.net \
        -e KNOTROUTE_NETWORK_ID=$network_id "ghcr.io/localzet/knotroute-beacon:$tag"
    else
      run_component sidecar "web$have" --label "io.knotroute.service-name=web$have" \
        --label io.knotroute.target=app:8080 \
        -e KNOTROUTE_CONFIG_FROM_ENV=true -e KNOTROUTE_NETWORK_ID=$network_id \
        -e "KNOTROUTE_BEACONS=http://kr-bench-$$-beacon-edge:8080" \
        -e "KNOTROUTE_SERVICE_NAME=web$have" -e KNOTROUTE_SERVICE_TARGET=app:8080 \
        "ghcr.io/localzet/knotroute-sidecar:$tag"
    fi
    have=$((have + 1))
  done
}

port="$(free_port)"
KNOTROUTE_CONTROL_ADMIN_PASSWORD=bench-admin-password-0001 KNOTROUTE_CONTROL_ENROLL_TOKEN=bench-enroll-token-00001 \
  KNOTROUTE_CONTROL_LISTEN="127.0.0.1:$port" KNOTROUTE_CONTROL_DATA="$work/control" RUST_LOG=warn KNOTROUTE_CONTROL_MACHINE_RATE_LIMIT=0 \
  "$control" >/dev/null 2>&1 &
until curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; do sleep 0.05; done
curl -fs -c "$work/cookies" -H "Origin: http://127.0.0.1:$port" -H 'Content-Type: application/json' \
  -d '{"password":"bench-admin-password-0001"}' "http://127.0.0.1:$port/api/v1/session" >/dev/null
hz="$(getconf CLK_TCK)"
echo "docker $(docker version --format '{{.Server.Version}}'), $(nproc) CPUs, window ${seconds} s at 1 heartbeat/s"
for n in "${counts[@]}"; do
  add_containers "$n"
  # A fresh Agent per size, so that its peak memory belongs to this size.
  rm -rf "$work/agent"
  KNOTROUTE_CONTROL_URL="http://127.0.0.1:$port" KNOTROUTE_CONTROL_ENROLL_TOKEN=bench-enroll-token-00001 \
    KNOTROUTE_AGENT_DATA="$work/agent" KNOTROUTE_AGENT_POLL=1s KNOTROUTE_AGENT_DOCKER=true \
    KNOTROUTE_AGENT_NAME="bench-$n" RUST_LOG=warn "$target/knotroute-agent" &
  agent=$!
  sleep 10
  read -r u0 s0 cu0 cs0 < <(awk '{print $14, $15, $16, $17}' "/proc/$agent/stat")
  sleep "$seconds"
  read -r u1 s1 cu1 cs1 < <(awk '{print $14, $15, $16, $17}' "/proc/$agent/stat")
  own=$(( (u1 + s1 - u0 - s0) * 1000 / hz ))
  children=$(( (cu1 + cs1 - cu0 - cs0) * 1000 / hz ))
  hwm="$(awk '/VmHWM/ {print $2}' "/proc/$agent/status")"
  rss="$(awk '/VmRSS/ {print $2}' "/proc/$agent/status")"
  echo "$n containers: agent CPU ${own} ms ($(awk "BEGIN {printf \"%.1f\", $own / $seconds}") ms/heartbeat)," \
       "docker CLI CPU ${children} ms ($(awk "BEGIN {printf \"%.1f\", $children / $seconds}") ms/heartbeat)," \
       "VmHWM ${hwm} kB, VmRSS ${rss} kB"
  shown="$(curl -fs -b "$work/cookies" "http://127.0.0.1:$port/api/v1/agents" | python3 -c "
import json, sys
agent = next(a for a in json.load(sys.stdin) if a['name'] == 'bench-$n')
print(agent['id'])")"
  components="$(curl -fs -b "$work/cookies" "http://127.0.0.1:$port/api/v1/agents/$shown" | python3 -c "
import json, sys
print(len(json.load(sys.stdin)['components']))")"
  echo "   (Control shows $components components for bench-$n)"
  kill "$agent"; wait "$agent" 2>/dev/null || true
done
