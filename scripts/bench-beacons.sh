#!/usr/bin/env bash
# The scheduled Beacon check benchmark in BENCHMARKS.md: 1,000 Beacon URLs
# checked in rounds, with the admin API's and heartbeats' latency measured
# idle and during a round, on SQLite and on PostgreSQL.
# PostgreSQL comes from KNOTROUTE_TEST_DATABASE_URL or scripts/postgres.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
cargo build --release -p knotroute-server --example beacon_rounds
bin="${CARGO_TARGET_DIR:-target}/release/examples/beacon_rounds"
admin_url="${KNOTROUTE_TEST_DATABASE_URL:-$(scripts/postgres.sh)}"
psql "$admin_url" -qc "DROP DATABASE IF EXISTS kr_bench_beacons" -c "CREATE DATABASE kr_bench_beacons" 2>/dev/null
pg="$(python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/kr_bench_beacons").geturl())' "$admin_url")"
"$bin" "$@"
"$bin" --database-url "$pg" "$@"
