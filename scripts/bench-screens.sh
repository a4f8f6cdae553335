#!/usr/bin/env bash
# The admin-screen benchmark in BENCHMARKS.md: server-rendered Jobs,
# Infrastructure, Overview and Services pages with 10,000 Agents and 100,000 stored jobs,
# on SQLite and on PostgreSQL, plus the live-update fingerprint read; and the
# front end's WebAssembly size. Build the front end first
# (`scripts/build-release.sh`; scripts/test.sh does).
# PostgreSQL comes from KNOTROUTE_TEST_DATABASE_URL or scripts/postgres.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
if [[ -f target/site/pkg/__wasm_split_manifest.json ]]; then
  scripts/wasm-size.sh
fi
cargo build --release -p knotroute-server --example screens_load
bin="${CARGO_TARGET_DIR:-target}/release/examples/screens_load"
admin_url="${KNOTROUTE_TEST_DATABASE_URL:-$(scripts/postgres.sh)}"
psql "$admin_url" -qc "DROP DATABASE IF EXISTS kr_bench_screens" -c "CREATE DATABASE kr_bench_screens" 2>/dev/null
pg="$(python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/kr_bench_screens").geturl())' "$admin_url")"
"$bin" "$@"
"$bin" --database-url "$pg" "$@"
