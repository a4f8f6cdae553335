#!/usr/bin/env bash
# Builds the Control and Agent images (knotroute-control:local,
# knotroute-agent:local) from the project's Dockerfile, taking the binaries the
# host already built (the `prebuilt` path of the Dockerfile; its runtime stages
# are the ones a registry build uses). Base images come from
# scripts/base-images.sh when no registry is reachable.
#
# Needs: the release build (`scripts/build-release.sh` for Control
# and its site, `cargo build --release -p knotroute-agent`) in CARGO_TARGET_DIR
# or ./target, and an engine (scripts/docker-engine.sh).
# Prints each image's size. BuildKit's layer cache makes a re-run with the same
# binaries take seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "[images] $*" >&2; }
release="${CARGO_TARGET_DIR:-$PWD/target}/release"
for bin in knotroute-control knotroute-agent; do
  [[ -x "$release/$bin" ]] || { log "missing $release/$bin: build it first (see this script's header)"; exit 1; }
done
[[ -d target/site/pkg ]] || { log "missing target/site: run scripts/build-release.sh"; exit 1; }

scripts/base-images.sh
prebuilt=target/prebuilt
rm -rf "$prebuilt"
mkdir -p "$prebuilt"
# Stripped, as the Dockerfile's build stage strips them.
strip -o "$prebuilt/knotroute-control" "$release/knotroute-control"
strip -o "$prebuilt/knotroute-agent" "$release/knotroute-agent"
cp -r target/site "$prebuilt/site"
COMPOSE_BAKE=false KNOTROUTE_BINARIES=prebuilt docker compose -f scripts/images.compose.yaml build --quiet
for image in "${KNOTROUTE_CONTROL_IMAGE:-knotroute-control:local}" "${KNOTROUTE_AGENT_IMAGE:-knotroute-agent:local}"; do
  log "$image: $(docker image inspect "$image" --format '{{.Size}}') bytes"
done
