#!/usr/bin/env bash
# Provides the base images the Dockerfile names (debian:bookworm-slim,
# debian:trixie-slim) on a machine that cannot reach an image registry: each is
# a minimal Debian made with debootstrap from Debian's own mirror and imported
# into the local engine. They stand in for the registry images of the same
# name, carry the label io.knotroute.local-base=true, and are kept in the
# engine's store, so only the first run pays for them (~1 minute each).
#
# Usage: scripts/base-images.sh            # both, when missing
#        scripts/base-images.sh --rebuild  # replace them
# Needs root (debootstrap) and an engine that answers (scripts/docker-engine.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
MIRROR="${KNOTROUTE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
log() { echo "[base-images] $*" >&2; }
rebuild=false
[[ "${1:-}" == "--rebuild" ]] && rebuild=true

ensure_base() {
  local suite="$1" image="debian:$1-slim"
  if ! $rebuild && docker image inspect "$image" >/dev/null 2>&1; then
    return
  fi
  if docker image inspect "$image" --format '{{index .Config.Labels "io.knotroute.local-base"}}' 2>/dev/null | grep -qv true; then
    # Never replace an image that came from a registry.
    log "$image exists and is not one of ours; leaving it"
    return
  fi
  command -v debootstrap >/dev/null || {
    log "installing Debian's debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  }
  local root
  root="$(mktemp -d)"
  log "building $image with debootstrap from $MIRROR"
  debootstrap --variant=minbase "$suite" "$root" "$MIRROR" >"$root.log" 2>&1 || {
    tail -5 "$root.log" >&2
    exit 1
  }
  # What the registry's -slim images leave out: documentation, manuals,
  # locales and package caches (dpkg is told to keep leaving them out).
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/* "$root"/var/log/*
  mkdir -p "$root/etc/dpkg/dpkg.cfg.d"
  printf 'path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\npath-exclude /usr/share/locale/*\n' \
    >"$root/etc/dpkg/dpkg.cfg.d/slim"
  tar -C "$root" -c . | docker import \
    --change 'CMD ["bash"]' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'LABEL io.knotroute.local-base=true' \
    - "$image" >/dev/null
  rm -rf "$root" "$root.log"
  log "$image: $(docker image inspect "$image" --format '{{.Size}}') bytes"
}

ensure_base bookworm
ensure_base trixie

# The registry image compose.postgres.yaml names, as a stand-in built here.
if $rebuild || ! docker image inspect postgres:17 >/dev/null 2>&1; then
  log "building the stand-in postgres:17 (docker/postgres-standin)"
  docker build -q -t postgres:17 docker/postgres-standin >/dev/null
fi
