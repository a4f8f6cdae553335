#!/usr/bin/env bash
# Installs the build and test tools that are not part of the repository, into a
# cache folder outside it so that later runs (and CI on the same machine) skip them.
# Only crates.io, the npm registry, PyPI and Debian's packages are used.
#
# Usage: scripts/install-tools.sh [--browser]
#   --browser  also what the tests need: Chromium and the Playwright driver
#              (end2end/), the test OpenID provider, schemathesis
#              (scripts/api-contract.sh) and mdBook (scripts/handbook.sh)
#
# Prints nothing but progress; callers source scripts/env.sh afterwards.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=scripts/env.sh
source "$here/env.sh"

want_browser=false
[[ "${1:-}" == "--browser" ]] && want_browser=true

BINARYEN_VERSION=132.0.0
ESBUILD_VERSION=0.28.2
LIGHTNINGCSS_VERSION=1.33.0
MDBOOK_VERSION=0.5.4
PLAYWRIGHT_VERSION=1.64.0
SCHEMATHESIS_VERSION=4.32.5

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

# The site itself is built by the workspace's own xtask (`cargo xtask site`),
# from wasm-bindgen's and the split tool's libraries: no build tool to install.

# The site build's helpers, prebuilt on npm (seconds to install): wasm-opt
# (binaryen 132, run by Node.js; Debian's binaryen 108 breaks the module's
# reference-typed table), esbuild for the JavaScript, lightningcss for the stylesheet.
# Each set in its own folder: `npm install --no-save` prunes whatever it is not named.
npm_install() {
  local dir="$KNOTROUTE_TOOLS/$1" pkg name missing=false
  shift
  for pkg in "$@"; do
    name="${pkg%@*}"
    [[ "$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$dir/node_modules/$name/package.json" 2>/dev/null)" == "${pkg##*@}" ]] || missing=true
  done
  $missing || return 0
  command -v npm >/dev/null || apt_install nodejs npm
  log "installing $* from npm"
  mkdir -p "$dir"
  npm install --silent --no-save --no-audit --no-fund --prefix "$dir" "$@" >/dev/null
}
npm_install npm "binaryen@$BINARYEN_VERSION" "esbuild@$ESBUILD_VERSION" "lightningcss-cli@$LIGHTNINGCSS_VERSION"
$want_browser && npm_install playwright "playwright-core@$PLAYWRIGHT_VERSION"

# The real OpenID provider the single sign-on tests run (end2end/oidc-provider),
# installed from its lock file into the cache and linked where its script looks.
oidc_dir="$KNOTROUTE_TOOLS/oidc-provider"
oidc_src="$here/../end2end/oidc-provider"
if $want_browser && { [[ ! -d "$oidc_dir/node_modules/oidc-provider" ]] || ! cmp -s "$oidc_src/package-lock.json" "$oidc_dir/package-lock.json"; }; then
  command -v npm >/dev/null || apt_install nodejs npm
  log "installing the test OpenID provider (oidc-provider) from npm"
  mkdir -p "$oidc_dir"
  cp "$oidc_src/package.json" "$oidc_src/package-lock.json" "$oidc_dir/"
  (cd "$oidc_dir" && npm ci --silent --no-audit --no-fund >/dev/null)
fi
$want_browser && ln -sfn "$oidc_dir/node_modules" "$oidc_src/node_modules"

# mdBook builds the handbook (scripts/handbook.sh); Debian does not package it.
# Without its `serve` and `watch` features it builds in a fraction of the time.
if $want_browser && [[ "$(mdbook --version 2>/dev/null || true)" != *"$MDBOOK_VERSION"* ]]; then
  log "installing mdbook $MDBOOK_VERSION from crates.io (first time only)"
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256 CARGO_PROFILE_RELEASE_OPT_LEVEL=1 \
    CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_TARGET_DIR="$KNOTROUTE_TOOLS/build" \
    cargo install mdbook --version "$MDBOOK_VERSION" --locked --no-default-features --features search \
    --root "$KNOTROUTE_TOOLS" --quiet
fi

if $want_browser; then
  command -v chromium >/dev/null || { log "installing Debian's chromium"; apt_install chromium; }
  # playwright-rs looks for its driver here first; seeding it stops it from
  # trying to download Node at run time.
  driver="${XDG_CACHE_HOME:-$HOME/.cache}/playwright-rust/$PLAYWRIGHT_VERSION"
  d="$driver/playwright-$PLAYWRIGHT_VERSION-linux-node24.21.0"
  mkdir -p "$d"
  ln -sfn "$(command -v node)" "$d/node"
  ln -sfn "$KNOTROUTE_TOOLS/playwright/node_modules/playwright-core" "$d/package"
fi
if $want_browser && [[ "$("$KNOTROUTE_TOOLS/schemathesis/bin/schemathesis" --version 2>/dev/null || true)" != *"$SCHEMATHESIS_VERSION"* ]]; then
  # The API contract check (scripts/api-contract.sh), in its own virtualenv from PyPI.
  log "installing schemathesis $SCHEMATHESIS_VERSION from PyPI"
  python3 -m venv "$KNOTROUTE_TOOLS/schemathesis"
  "$KNOTROUTE_TOOLS/schemathesis/bin/pip" install --quiet "schemathesis==$SCHEMATHESIS_VERSION"
fi
log "tools ready in $KNOTROUTE_TOOLS"
