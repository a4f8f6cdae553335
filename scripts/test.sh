#!/usr/bin/env bash
# Runs every check and test: formatting, the handbook's build and links, lints
# (server and WebAssembly), unit tests, integration tests on SQLite and
# PostgreSQL, then the API contract check (schemathesis) and the browser tests
# in Chromium against the release build. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
step() { echo; echo "==> $*"; }
results="$(mktemp)"
# Names this run's test databases (kr_test_<run>_…) so it drops only its own,
# and lets it stop only a private PostgreSQL that it started itself.
export KNOTROUTE_TEST_RUN="r$$"
cleanup() {
  rm -f "$results"
  if [[ -n "${KNOTROUTE_TEST_DATABASE_URL:-}" ]] && command -v psql >/dev/null; then
    psql "$KNOTROUTE_TEST_DATABASE_URL" -tAc "select datname from pg_database where datname like 'kr_test_${KNOTROUTE_TEST_RUN}_%'" 2>/dev/null |
      while read -r db; do psql "$KNOTROUTE_TEST_DATABASE_URL" -qc "drop database if exists \"$db\"" >/dev/null 2>&1 || true; done
  fi
  scripts/postgres.sh stop "$KNOTROUTE_TEST_RUN"
}
trap cleanup EXIT
# Runs cargo test, keeping its "test result:" lines for the closing count.
run_tests() { cargo test "$@" 2>&1 | tee -a "$results"; }

step "tools"
scripts/install-tools.sh --browser

step "cargo fmt --check"
cargo fmt --all -- --check

step "handbook: mdBook build and its internal links"
scripts/handbook.sh

step "clippy (server side, all targets)"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "clippy (browser side, wasm32)"
# The islands build (shipped), then the full build (scripts/build-release.sh --full).
cargo clippy -p knotroute-frontend -p knotroute-app --features knotroute-app/hydrate,knotroute-frontend/islands --target wasm32-unknown-unknown --locked -- -D warnings
cargo clippy -p knotroute-frontend -p knotroute-app --features knotroute-app/hydrate --target wasm32-unknown-unknown --locked -- -D warnings

step "PostgreSQL for the integration tests"
KNOTROUTE_TEST_DATABASE_URL="$(scripts/postgres.sh)"
export KNOTROUTE_TEST_DATABASE_URL
echo "using ${KNOTROUTE_TEST_DATABASE_URL}"

step "unit and integration tests (SQLite and PostgreSQL)"
# The real-Docker tests need an engine; CI must not pass without it.
have_engine=false
if scripts/docker-engine.sh; then
  have_engine=true
  echo "Docker engine answers: the real-Docker tests (agent/tests/docker_engine.rs, end2end/tests/containers.rs) run."
elif [[ "${CI:-}" == "true" ]]; then
  echo "no Docker engine could be started (see above): under CI the real-Docker test may not be skipped" >&2
  exit 1
else
  echo "NOTE: no Docker engine could be started: the real-Docker tests and the image builds are SKIPPED;"
  echo "      the Agent's command lines are checked against a stand-in (agent/tests/docker_commands.rs)."
fi
run_tests --workspace --exclude end2end --locked

step "release build (server + WebAssembly front end)"
scripts/build-release.sh
# The full build of the front end, which the same source compiles and
# end2end/tests/full_build.rs keeps working (app/src/islands.rs).
scripts/build-release.sh --full

step "images: Control and Agent from the Dockerfile, with the binaries just built"
# The Agent's release binary; Control's came from the site build above. The base
# images are made with debootstrap the first time (scripts/base-images.sh).
if $have_engine; then
  # With the server's flags, so that their shared dependencies are not rebuilt.
  cargo xtask agent
  scripts/images.sh
  # The stand-ins for the registry's Beacon and sidecar images (tag `standin`),
  # which end2end/tests/containers.rs has the Agent deploy.
  scripts/standin-images.sh standin >/dev/null
else
  echo "SKIPPED: no Docker engine"
fi

step "API contract: schemathesis against /api/v1/openapi.json of the release build"
scripts/api-contract.sh "${CARGO_TARGET_DIR:-$PWD/target}/release/knotroute-control"

step "browser tests (Chromium via playwright-rs)"
export KNOTROUTE_E2E_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/knotroute-control"
export KNOTROUTE_E2E_SITE_ROOT="$PWD/target/site"
export KNOTROUTE_E2E_FULL_SITE_ROOT="$PWD/target/site-full"
export KNOTROUTE_E2E_SCREENSHOTS="$PWD/target/e2e-screenshots"
run_tests -p end2end --locked -- --test-threads=1

echo; echo "All checks and tests passed."
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$results"
