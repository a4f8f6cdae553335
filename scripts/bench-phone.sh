#!/usr/bin/env bash
# The phone benchmark in BENCHMARKS.md: every screen in Chromium
# with a phone's network and CPU (150 ms round trip, 1.6 Mbit/s down, CPU 4x
# slower, 390x844), set through the DevTools protocol. Prints, per screen, the
# time until the page is interactive (hydrated, live indicator on) with an
# empty cache and a warm one, the requests and the bytes transferred; then the
# WebAssembly each screen loads (scripts/wasm-size.sh).
#
# Usage: scripts/bench-phone.sh [runs] [--full]   (median of runs, default 3)
# --full: against the full build of the front end (scripts/build-release.sh
# --full), to compare it with the islands build that is shipped.
# The test command checks only what does not depend on timing: requests per
# screen, preloads, cache headers (end2end/tests/phone_loading.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
scripts/install-tools.sh --browser
site=target/site
if [[ "${2:-}" == "--full" ]]; then
  site=target/site-full
  scripts/build-release.sh --full
else
  scripts/build-release.sh
fi
export KNOTROUTE_E2E_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/knotroute-control"
export KNOTROUTE_E2E_SITE_ROOT="$PWD/$site"
export KNOTROUTE_BENCH_RUNS="${1:-3}"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(chromium --version 2>/dev/null)"
cargo test --locked -p end2end --test phone_loading -- --ignored --nocapture --test-threads=1 phone_benchmark 2>&1 |
  grep -E '^(\||phone profile|test result)'
scripts/wasm-size.sh "$site/pkg"
