# Sourced by the scripts: where cached tools live and how to find them.
export KNOTROUTE_TOOLS="${KNOTROUTE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/knotroute-tools}"
export PATH="$KNOTROUTE_TOOLS/bin:$KNOTROUTE_TOOLS/npm/node_modules/.bin:$HOME/.cargo/bin:$PATH"
