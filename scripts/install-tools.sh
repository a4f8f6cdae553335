#!/usr/bin/env bash
# Installs the build and test tools that are not part of the repository, into a
# cache folder outside it so that later runs (and CI on the same machine) skip them.
# Only crates.io, the npm registry, PyPI and Debian's packages are used.
#
# Usage: scripts/install-tools.sh [--browser]
#   --browser  also install Chromium and the Playwright driver (needed by end2end/)
#              and schemathesis (scripts/api-contract.sh)
#
# Prints nothing but progress; callers source scripts/env.sh afterwards.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=scripts/env.sh
source "$here/env.sh"

want_browser=false
[[ "${1:-}" == "--browser" ]] && want_browser=true

CARGO_LEPTOS_VERSION=0.3.10
BINARYEN_VERSION=132.0.0
PLAYWRIGHT_VERSION=1.64.0
SCHEMATHESIS_VERSION=4.32.5
# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly.
WASM_BINDGEN_VERSION="$(sed -n '/^name = "wasm-bindgen"$/{n;s/^version = "\(.*\)"$/\1/p;q}' "$here/../Cargo.lock")"

log() { echo "[tools] $*" >&2; }

apt_updated=false
apt_install() {
  if ! $apt_updated; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    apt_updated=true
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# Building tools with a cheap release profile (no LTO, opt-level 1, many codegen
# units) cuts their install time sharply; their own speed does not matter to us.
tool_build_env=(CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_TARGET_DIR="$KNOTROUTE_TOOLS/build")

if [[ "$(cargo-leptos --version 2>/dev/null || true)" != *"$CARGO_LEPTOS_VERSION"* ]]; then
  log "installing cargo-leptos $CARGO_LEPTOS_VERSION (first time only, ~20 min on 2 cores)"
  env "${tool_build_env[@]}" cargo install cargo-leptos --version "$CARGO_LEPTOS_VERSION" \
    --locked --features no_downloads --root "$KNOTROUTE_TOOLS" --quiet
fi

if [[ "$(wasm-bindgen --version 2>/dev/null || true)" != *"$WASM_BINDGEN_VERSION"* ]]; then
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (first time only, ~8 min)"
  # Without --locked: its lock file pins a version that the registry no longer serves.
  env "${tool_build_env[@]}" cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" \
    --root "$KNOTROUTE_TOOLS" --quiet --force
fi

npm_pkgs=()
[[ -x "$KNOTROUTE_TOOLS/npm/node_modules/.bin/wasm-opt" ]] || npm_pkgs+=("binaryen@$BINARYEN_VERSION")
if $want_browser && [[ ! -d "$KNOTROUTE_TOOLS/npm/node_modules/playwright-core" ]]; then
  npm_pkgs+=("playwright-core@$PLAYWRIGHT_VERSION")
fi
if ((${#npm_pkgs[@]})); then
  command -v npm >/dev/null || apt_install nodejs npm
  log "installing ${npm_pkgs[*]} from npm"
  mkdir -p "$KNOTROUTE_TOOLS/npm"
  # Keep what is already there: --no-save would prune packages not named now.
  existing=()
  [[ -d "$KNOTROUTE_TOOLS/npm/node_modules/binaryen" ]] && existing+=("binaryen@$BINARYEN_VERSION")
  [[ -d "$KNOTROUTE_TOOLS/npm/node_modules/playwright-core" ]] && existing+=("playwright-core@$PLAYWRIGHT_VERSION")
  npm install --silent --no-save --no-audit --no-fund --prefix "$KNOTROUTE_TOOLS/npm" "${existing[@]}" "${npm_pkgs[@]}" >/dev/null
fi

# The real OpenID provider the single sign-on tests run (end2end/oidc-provider),
# installed from its lock file into the cache and linked where its script looks.
oidc_dir="$KNOTROUTE_TOOLS/oidc-provider"
oidc_src="$here/../end2end/oidc-provider"
if [[ ! -d "$oidc_dir/node_modules/oidc-provider" ]] || ! cmp -s "$oidc_src/package-lock.json" "$oidc_dir/package-lock.json"; then
  command -v npm >/dev/null || apt_install nodejs npm
  log "installing the test OpenID provider (oidc-provider) from npm"
  mkdir -p "$oidc_dir"
  cp "$oidc_src/package.json" "$oidc_src/package-lock.json" "$oidc_dir/"
  (cd "$oidc_dir" && npm ci --silent --no-audit --no-fund >/dev/null)
fi
ln -sfn "$oidc_dir/node_modules" "$oidc_src/node_modules"

if $want_browser; then
  command -v chromium >/dev/null || { log "installing Debian's chromium"; apt_install chromium; }
  # playwright-rs looks for its driver here first; seeding it stops it from
  # trying to download Node at run time.
  driver="${XDG_CACHE_HOME:-$HOME/.cache}/playwright-rust/$PLAYWRIGHT_VERSION"
  d="$driver/playwright-$PLAYWRIGHT_VERSION-linux-node24.21.0"
  mkdir -p "$d"
  ln -sfn "$(command -v node)" "$d/node"
  ln -sfn "$KNOTROUTE_TOOLS/npm/node_modules/playwright-core" "$d/package"
fi
if $want_browser && [[ "$("$KNOTROUTE_TOOLS/schemathesis/bin/schemathesis" --version 2>/dev/null || true)" != *"$SCHEMATHESIS_VERSION"* ]]; then
  # The API contract check (scripts/api-contract.sh), in its own virtualenv from PyPI.
  log "installing schemathesis $SCHEMATHESIS_VERSION from PyPI"
  python3 -m venv "$KNOTROUTE_TOOLS/schemathesis"
  "$KNOTROUTE_TOOLS/schemathesis/bin/pip" install --quiet "schemathesis==$SCHEMATHESIS_VERSION"
fi
log "tools ready in $KNOTROUTE_TOOLS"
