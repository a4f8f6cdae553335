#!/usr/bin/env bash
# Builds the STAND-IN Beacon, sidecar and node images locally, for tests: the real
# KnotRoute images come from a registry that tests cannot reach. Each image is
# a scratch rootfs holding one program of the `test-kit` crate
# (standin-beacon / standin-sidecar / standin-node) and the shared libraries
# `ldd` lists, tagged under the name the Agent deploys:
#   ghcr.io/localzet/knotroute-beacon:<tag>   ghcr.io/localzet/knotroute-sidecar:<tag>
#   ghcr.io/localzet/knotroute:<tag> (the node the end-to-end probe runs)
# and labelled io.knotroute.standin=true, so nobody mistakes them for the
# real ones. An image is rebuilt only when its content changed: the hash of the
# binary, its libraries and this recipe is kept as the label
# io.knotroute.standin.hash, so calling this on every test run is cheap.
#
# Usage: scripts/standin-images.sh <tag>
#   STANDIN_BIN_DIR=<dir>  use standin-beacon/standin-sidecar from <dir>
#                          instead of building them with cargo (debug profile).
# Prints the three image names on stdout.
set -euo pipefail
tag="${1:?usage: scripts/standin-images.sh <tag>}"
if [[ ! "$tag" =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]]; then
  echo "standin-images: $tag is not a Docker image tag" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
log() { echo "[standin-images] $*" >&2; }
# Bump when the image recipe below changes, so old images are rebuilt.
recipe=1

if [[ -n "${STANDIN_BIN_DIR:-}" ]]; then
  bin_dir="$STANDIN_BIN_DIR"
else
  (cd "$root" && "${CARGO:-cargo}" build --quiet --locked -p knotroute-test-kit --bins) >&2
  bin_dir="${CARGO_TARGET_DIR:-$root/target}/debug"
fi

# Tests running side by side build the same tags: one at a time.
exec 9>"${TMPDIR:-/tmp}/knotroute-standin-images.lock"
flock 9

for kind in beacon sidecar node; do
  binary="$bin_dir/standin-$kind"
  # The node is the plain `knotroute` image, as the registry names it.
  if [[ "$kind" == node ]]; then
    image="ghcr.io/localzet/knotroute:$tag"
  else
    image="ghcr.io/localzet/knotroute-$kind:$tag"
  fi
  [[ -x "$binary" ]] || { log "$binary is missing"; exit 1; }
  mapfile -t libs < <(ldd "$binary" | grep -o '/[^ ]*' | sort -u)
  hash="$({ sha256sum "$binary" "${libs[@]}" | cut -d' ' -f1; echo "recipe $recipe"; } | sha256sum | cut -d' ' -f1)"
  have="$(docker image inspect --format '{{ index .Config.Labels "io.knotroute.standin.hash" }}' "$image" 2>/dev/null || true)"
  if [[ "$have" == "$hash" ]]; then
    log "$image is up to date"
    echo "$image"
    continue
  fi
  context="$(mktemp -d)"
  mkdir -p "$context/rootfs"
  cp "$binary" "$context/rootfs/standin-$kind"
  for lib in "${libs[@]}"; do
    # -L: the loader is a symlink on the host; the image needs the file itself.
    cp -L --parents "$lib" "$context/rootfs/"
  done
  cat >"$context/Dockerfile" <<DOCKERFILE
FROM scratch
COPY rootfs/ /
LABEL io.knotroute.standin="true" \\
      io.knotroute.standin.hash="$hash" \\
      org.opencontainers.image.title="KnotRoute $kind STAND-IN (tests only, not the real image)" \\
      org.opencontainers.image.version="$tag"
ENTRYPOINT ["/standin-$kind"]
DOCKERFILE
  log "building $image (stand-in, content hash ${hash:0:12})"
  # Its output only when it fails (the legacy builder warns on every build).
  if ! docker build --quiet --tag "$image" "$context" >"$context/build.log" 2>&1; then
    log "docker build of $image failed:"
    cat "$context/build.log" >&2
    rm -rf "$context"
    exit 1
  fi
  rm -rf "$context"
  echo "$image"
done
