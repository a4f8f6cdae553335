#!/usr/bin/env bash
# The agent-API benchmark matrix in BENCHMARKS.md: signed heartbeats/s with
# p50/p99 and long-poll dispatch latency, at 1,000 and 10,000 Agents, on
# SQLite and PostgreSQL (plus 10,000 Agents with 100,000 stored jobs), and
# at 1,000 Agents the heartbeats again while 100 jobs report live progress
# (as fast as answered, and on schedule at a fleet's rate).
# PostgreSQL comes from KNOTROUTE_TEST_DATABASE_URL or scripts/postgres.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
cargo build --release -p knotroute-server --example agent_load
bin="${CARGO_TARGET_DIR:-target}/release/examples/agent_load"
admin_url="${KNOTROUTE_TEST_DATABASE_URL:-$(scripts/postgres.sh)}"
fresh_db() {
  local name="kr_bench_$1"
  psql "$admin_url" -qc "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name" 2>/dev/null
  python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/"+sys.argv[2]).geturl())' "$admin_url" "$name"
}
for agents in 1000 10000; do
  "$bin" --agents "$agents"
  "$bin" --agents "$agents" --database-url "$(fresh_db "$agents")"
done
"$bin" --agents 10000 --stored-jobs 100000 --database-url "$(fresh_db jobs)"
# Progress: heartbeats as fast as answered (saturating both cores), then on
# schedule at 100/s (1,000 Agents at the default 10 s poll) and 500/s.
"$bin" --agents 1000 --progress-jobs 100
"$bin" --agents 1000 --progress-jobs 100 --database-url "$(fresh_db progress)"
for rate in 100 500; do
  "$bin" --agents 1000 --progress-jobs 100 --heartbeat-rate "$rate"
  "$bin" --agents 1000 --progress-jobs 100 --heartbeat-rate "$rate" --database-url "$(fresh_db "progress$rate")"
done
