#!/usr/bin/env bash
# Builds Control (release, with its WebAssembly front end) and runs it on the
# embedded default: SQLite in ./data. Secrets that are not set in the
# environment are generated once, kept in ./data/secrets.env (0600) and printed.
#
# When the build is up to date (scripts/build-release.sh --check), Control
# starts at once. Otherwise the server is built first and Control starts with
# its server-rendered pages, while the WebAssembly front end goes on building
# at the lowest CPU priority (log: ./data/front-build.log); once it is ready,
# Control restarts with it and the pages become interactive.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
scripts/install-tools.sh

export KNOTROUTE_CONTROL_DATA="${KNOTROUTE_CONTROL_DATA:-$PWD/data}"
mkdir -p "$KNOTROUTE_CONTROL_DATA"
secrets="$KNOTROUTE_CONTROL_DATA/secrets.env"
if [[ -z "${KNOTROUTE_CONTROL_ADMIN_PASSWORD:-}" || -z "${KNOTROUTE_CONTROL_ENROLL_TOKEN:-}" ]]; then
  # Never through a symlink: it would lead the secrets elsewhere, or read
  # secrets someone else chose.
  if [[ -L "$secrets" ]]; then
    echo "$secrets is a symbolic link; remove it and run again to generate new secrets." >&2
    exit 1
  fi
  if [[ ! -e "$secrets" ]]; then
    gen() { head -c 24 /dev/urandom | base64 | tr -d '/+=\n'; }
    # noclobber creates the file new (O_EXCL): never through a file or link that appeared meanwhile.
    (umask 077; set -o noclobber; printf 'KNOTROUTE_CONTROL_ADMIN_PASSWORD=%s\nKNOTROUTE_CONTROL_ENROLL_TOKEN=%s\n' "$(gen)" "$(gen)" > "$secrets")
    echo "Generated secrets in $secrets"
  fi
  mode="$(stat -c %a "$secrets" 2>/dev/null || stat -f %Lp "$secrets")"
  if [[ ! -f "$secrets" || ! -O "$secrets" ]] || (( 8#$mode & 8#077 )); then
    echo "$secrets must be a file of yours that only you can read (mode $mode): chmod 600 it, or remove it to generate new secrets." >&2
    exit 1
  fi
  # Fill in only what is unset: a secret set in the environment is never replaced.
  saved_password="$(sed -n 's/^KNOTROUTE_CONTROL_ADMIN_PASSWORD=//p' "$secrets")"
  saved_token="$(sed -n 's/^KNOTROUTE_CONTROL_ENROLL_TOKEN=//p' "$secrets")"
  if [[ -z "${KNOTROUTE_CONTROL_ADMIN_PASSWORD:-}" ]]; then
    export KNOTROUTE_CONTROL_ADMIN_PASSWORD="$saved_password"
    echo "Admin password: $KNOTROUTE_CONTROL_ADMIN_PASSWORD"
  fi
  if [[ -z "${KNOTROUTE_CONTROL_ENROLL_TOKEN:-}" ]]; then
    export KNOTROUTE_CONTROL_ENROLL_TOKEN="$saved_token"
    echo "Enroll token:   $KNOTROUTE_CONTROL_ENROLL_TOKEN"
  fi
fi
export KNOTROUTE_CONTROL_SITE_ROOT="${KNOTROUTE_CONTROL_SITE_ROOT:-$PWD/target/site}"
listen="${KNOTROUTE_CONTROL_LISTEN:-0.0.0.0:8080}"
control="${CARGO_TARGET_DIR:-target}/release/knotroute-control"
run_control() {
  echo "Open http://127.0.0.1:${listen##*:}/ and sign in with the admin password."
  exec "$control" "$@"
}

if scripts/build-release.sh --check; then
  run_control "$@"
fi
if (($#)); then
  # A command for Control (e.g. `migrate`) runs once, with the whole build.
  scripts/build-release.sh
  run_control "$@"
fi

# The server first, at normal priority; the front end beside it, at the lowest,
# in its own process group so that stopping it stops its compilers too.
cargo build --locked --quiet --package xtask
xtask="${CARGO_TARGET_DIR:-target}/debug/xtask"
front_log="$KNOTROUTE_CONTROL_DATA/front-build.log"
# No front end or stamp of an earlier build beside the new server.
rm -rf target/site/pkg target/site/hash.txt target/site/.build-fingerprint
PATH="$PWD/scripts/cached-tools:$PATH" setsid nice -n 19 "$xtask" site --front-only > "$front_log" 2>&1 &
front=$!
early=""
stop_background() {
  kill -TERM -- "-$front" 2>/dev/null || true
  [[ -z "$early" ]] || kill -TERM "$early" 2>/dev/null || true
}
trap stop_background EXIT
"$xtask" site --server-only
echo "Open http://127.0.0.1:${listen##*:}/ and sign in with the admin password."
echo "The pages are served now; the interactive front end is still building ($front_log)."
echo "Control restarts with it when it is ready."
# Until then Control serves no front end at all: a half-built one would be
# taken for the real thing (Leptos reads the split manifest once).
no_front="$(mktemp -d)"
KNOTROUTE_CONTROL_SITE_ROOT="$no_front" "$control" &
early=$!
if ! wait "$front"; then
  echo "building the front end failed; the end of $front_log:" >&2
  tail -n 30 "$front_log" >&2
  exit 1
fi
if ! scripts/build-release.sh --finish >> "$front_log" 2>&1; then
  echo "finishing the front end failed; the end of $front_log:" >&2
  tail -n 30 "$front_log" >&2
  exit 1
fi
echo "The front end is built: restarting Control with it."
kill -TERM "$early" 2>/dev/null || true
wait "$early" || true
trap - EXIT
rmdir "$no_front"
run_control
