#!/usr/bin/env bash
# Builds Control (release, with its WebAssembly front end) and runs it on the
# embedded default: SQLite in ./data. Secrets that are not set in the
# environment are generated once, kept in ./data/secrets.env (0600) and printed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
scripts/install-tools.sh

# Skipped when nothing changed since the last build (see the script).
scripts/build-release.sh

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
echo "Open http://127.0.0.1:${listen##*:}/ and sign in with the admin password."
exec "${CARGO_TARGET_DIR:-target}/release/knotroute-control" "$@"
