#!/usr/bin/env bash
# The release build of Control and its front end, as scripts/test.sh,
# scripts/run.sh and the Dockerfile make it, by `cargo xtask site` (xtask/):
#   islands        only the page's interactive parts hydrate (app/src/islands.rs);
#   split          each island's code is its own WebAssembly chunk, and the
#                  forms opened on demand theirs;
#   precompressed  brotli and gzip beside every asset, sent as they are (http::assets),
#                  and each island's chunk batch (http::chunk_batch);
#   hashed names   content-hashed names listed in the site's hash.txt, cached for good.
#
# Skips the build when nothing it reads has changed since the last one, so a
# second `scripts/run.sh` starts at once: the fingerprint covers every file git
# tracks or sees as new, the toolchain, the build tools and the build settings.
# Outside a git checkout (the Dockerfile's build stage) it always builds.
# wasm-opt runs through scripts/cached-tools/wasm-opt, which keeps the output
# of each chunk by content: a rebuild re-optimises only the chunks that changed.
#
# `--check`: only says, by its exit status, whether the build is up to date.
# `--finish`: the steps after `cargo xtask site`, for scripts/run.sh, which
# runs the xtask's two halves itself (the server first).
#
# `--full`: the full build of the front end instead, which hydrates the whole
# page and routes in the browser (each screen its own split module), into
# target/site-full. The same server binary serves either site
# (KNOTROUTE_CONTROL_SITE_ROOT).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
site=target/site
flags=()
mode=build
case "${1:-}" in
  --full) site=target/site-full flags=(--full) ;;
  --check) mode=check ;;
  --finish) mode=finish ;;
esac
stamp="$site/.build-fingerprint"
# What the build in progress was started from: it becomes the stamp once the
# build is done, so that a file edited meanwhile still counts as changed.
pending="$site/.build-fingerprint-pending"

fingerprint() {
  {
    rustc -vV
    wasm-opt --version
    esbuild --version
    lightningcss --version
    echo "$target"
    env | grep -E '^(RUSTFLAGS|CARGO_PROFILE_|CARGO_BUILD_|CARGO_ENCODED_RUSTFLAGS|LEPTOS_)' | sort || true
    # Deleted but still tracked files make sha256sum complain: they count as changed.
    git ls-files -z --cached --others --exclude-standard | xargs -0 sha256sum 2>/dev/null || true
  } | sha256sum | cut -d' ' -f1
}

finish() {
  # Each island's chunk batch at brotli's best quality (server/src/http/chunk_batch.rs).
  KNOTROUTE_CONTROL_SITE_ROOT="$site" "$target/release/knotroute-control" precompress-batches
  scripts/split-data-check.py "$target/front/wasm32-unknown-unknown/wasm-release/knotroute_frontend.wasm" "$site/pkg"
  find "${XDG_CACHE_HOME:-$HOME/.cache}/knotroute-tools/wasm-opt-cache" -name '*.wasm' -mtime +30 -delete 2>/dev/null || true
  if [[ -f "$pending" ]]; then mv "$pending" "$stamp"; fi
}
if [[ "$mode" == finish ]]; then
  finish
  exit 0
fi

rm -f "$pending"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  now="$(fingerprint)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$now" && -x "$target/release/knotroute-control" && -f "$site/hash.txt" ]]; then
    [[ "$mode" == check ]] || echo "release build is up to date (nothing changed since the last one): not rebuilding"
    exit 0
  fi
  mkdir -p "$site"
  echo "$now" > "$pending"
fi
[[ "$mode" == check ]] && exit 1

# (hash.txt beside the binary is where cargo-leptos put it: no longer ours.)
rm -f "$stamp" "$target/release/hash.txt"
# wasm-opt through its cache: chunks that did not change are not optimised again.
PATH="$PWD/scripts/cached-tools:$PATH" cargo xtask site "${flags[@]}"
finish
