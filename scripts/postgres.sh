#!/usr/bin/env bash
# Prints the URL of a PostgreSQL server the tests may create databases on:
#  1. KNOTROUTE_TEST_DATABASE_URL when set;
#  2. else the server on 127.0.0.1:5432 when one answers (as on this kind of machine);
#  3. else a private instance is started on a free port under $KNOTROUTE_PG_DIR
#     (stopped by `scripts/postgres.sh stop`).
# In every case Debian's postgresql is installed first when its binaries are missing.
# KNOTROUTE_TEST_PG_PRIVATE=1 skips 1 and 2 (to try the third way on a machine that has a server).
set -euo pipefail
pgdir="${KNOTROUTE_PG_DIR:-${TMPDIR:-/tmp}/knotroute-test-pg}"
log() { echo "[postgres] $*" >&2; }

if [[ "${1:-}" == "stop" ]]; then
  # Only the run that started the private instance stops it.
  if [[ -f "$pgdir/port" && "$(cat "$pgdir/started-by" 2>/dev/null)" == "${2:-}" ]]; then
    bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
    runuser -u postgres -- "$bin/pg_ctl" -D "$pgdir/data" -m fast stop >/dev/null 2>&1 || true
  fi
  exit 0
fi

# The server binaries are needed even when a server answers already: the
# database-restart test (server/tests/database_restart.rs) starts and restarts
# a PostgreSQL of its own, never the shared one.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  log "installing Debian's postgresql"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
private_only="${KNOTROUTE_TEST_PG_PRIVATE:-}"
if [[ -z "$private_only" && -n "${KNOTROUTE_TEST_DATABASE_URL:-}" ]]; then
  echo "$KNOTROUTE_TEST_DATABASE_URL"; exit 0
fi
if [[ -z "$private_only" ]] && command -v psql >/dev/null && psql "postgres://postgres@127.0.0.1:5432/postgres" -tAc 'select 1' >/dev/null 2>&1; then
  url="postgres://postgres@127.0.0.1:5432/postgres"
  echo "$url"; exit 0
fi

bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
if [[ -f "$pgdir/port" ]] && runuser -u postgres -- "$bin/pg_ctl" -D "$pgdir/data" status >/dev/null 2>&1; then
  echo "postgres://postgres@127.0.0.1:$(cat "$pgdir/port")/postgres"; exit 0
fi
rm -rf "$pgdir"; mkdir -p "$pgdir"; chown postgres "$pgdir"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
log "starting a private PostgreSQL on 127.0.0.1:$port"
runuser -u postgres -- "$bin/initdb" -D "$pgdir/data" -A trust -U postgres >/dev/null
runuser -u postgres -- "$bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
  -o "-h 127.0.0.1 -p $port -k $pgdir -c fsync=off" start >/dev/null
echo "$port" > "$pgdir/port"
echo "${KNOTROUTE_TEST_RUN:-}" > "$pgdir/started-by"
echo "postgres://postgres@127.0.0.1:$port/postgres"
