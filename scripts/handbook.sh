#!/usr/bin/env bash
# Builds the handbook (docs/, mdBook) into target/book and fails on a broken
# internal link: a page, image or #anchor that the built book does not have.
# scripts/test.sh runs it; `scripts/handbook.sh --open` also prints where to look.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
command -v mdbook >/dev/null || scripts/install-tools.sh --browser
rm -rf target/book
mdbook build docs --dest-dir "$PWD/target/book"
scripts/check-links.py target/book
[[ "${1:-}" == "--open" ]] && echo "The handbook: file://$PWD/target/book/index.html"
exit 0
