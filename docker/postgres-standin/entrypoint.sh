#!/bin/sh
# First start: initialise the cluster with the superuser and database named in
# the environment (as the official image does), then serve.
set -eu
: "${POSTGRES_PASSWORD:?postgres stand-in: set POSTGRES_PASSWORD}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$db" != "postgres" ]; then
    postgres -D "$PGDATA" -c listen_addresses='' >/tmp/init.log 2>&1 &
    until pg_isready -q -h /run/postgresql; do sleep 0.2; done
    psql -q -h /run/postgresql -U "$user" -d postgres -c "CREATE DATABASE \"$db\" OWNER \"$user\""
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
