#!/usr/bin/env bash
# Takes the README's and the handbook's screenshots again, into docs/src/images/:
# the release build (scripts/build-release.sh) in Chromium, with a small
# network set up (end2end/tests/handbook_screenshots.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
scripts/install-tools.sh --browser
scripts/build-release.sh
export KNOTROUTE_E2E_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/knotroute-control"
export KNOTROUTE_E2E_SITE_ROOT="$PWD/target/site"
export KNOTROUTE_SCREENSHOTS_DIR="$PWD/docs/src/images"
cargo test --locked -p end2end --test handbook_screenshots -- --ignored --test-threads=1
ls -l "$KNOTROUTE_SCREENSHOTS_DIR"
