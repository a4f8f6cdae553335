# Multi-stage images for KnotRoute Control (default target) and the Agent (--target agent).
# Only crates.io, Debian packages and the npm registry are used to build.
#
# Where the binaries come from (build argument KNOTROUTE_BINARIES):
#   build     (default) compiled in the `build` stage below, from this source;
#   prebuilt  copied from target/prebuilt/ in the build context: knotroute-control,
#             knotroute-agent and site/, as scripts/images.sh lays them out from a
#             host build (how the test command builds these images without a
#             registry to pull the Rust image from). The runtime stages are the same.
# BuildKit (docker buildx, or `docker compose build`) skips the stage not chosen.
ARG KNOTROUTE_BINARIES=build

FROM rust:1.95-bookworm AS build
RUN rustup target add wasm32-unknown-unknown \
 && apt-get update && apt-get install -y --no-install-recommends nodejs npm python3 \
 && rm -rf /var/lib/apt/lists/*
# The site build's helpers from npm (scripts/install-tools.sh names the same
# versions); the build itself is the workspace's xtask.
RUN npm install -g binaryen@132.0.0 esbuild@0.28.2 lightningcss-cli@1.33.0
WORKDIR /src
COPY . .
# The Agent's default Beacon/sidecar image tag (PROTOCOL.md: its release channel).
ARG KNOTROUTE_RELEASE_CHANNEL=latest
RUN scripts/build-release.sh \
 && KNOTROUTE_RELEASE_CHANNEL="$KNOTROUTE_RELEASE_CHANNEL" cargo build --release --locked -p knotroute-agent \
 && mkdir -p /out && strip -o /out/knotroute-control target/release/knotroute-control \
 && strip -o /out/knotroute-agent target/release/knotroute-agent \
 && cp -r target/site /out/site

FROM scratch AS prebuilt
COPY target/prebuilt/ /out/

FROM ${KNOTROUTE_BINARIES} AS binaries

FROM debian:bookworm-slim AS runtime-base
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /data knotroute \
 && mkdir -p /data && chown knotroute:knotroute /data

# The Agent deploys through the Docker socket with the Docker CLI and the Compose
# v2 plugin, which Debian 13 packages (docker-cli, docker-compose); bookworm has
# only Compose v1. No daemon is installed: the host's engine does the work.
FROM debian:trixie-slim AS agent
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates docker-cli docker-compose \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /data knotroute \
 && mkdir -p /data && chown knotroute:knotroute /data
COPY --from=binaries /out/knotroute-agent /usr/local/bin/knotroute-agent
# Not root: to use a mounted Docker socket, add the socket's group (see compose.agent.yaml).
USER knotroute
VOLUME /data
# Healthy while Control accepts its heartbeats (knotroute-agent --health-check).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s CMD ["knotroute-agent", "--health-check"]
ENTRYPOINT ["knotroute-agent"]

FROM runtime-base AS control
COPY --from=binaries /out/knotroute-control /usr/local/bin/knotroute-control
COPY --from=binaries /out/site /usr/local/share/knotroute-control/site
ENV KNOTROUTE_CONTROL_DATA=/data \
    KNOTROUTE_CONTROL_LISTEN=0.0.0.0:8080 \
    KNOTROUTE_CONTROL_SITE_ROOT=/usr/local/share/knotroute-control/site
USER knotroute
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s CMD curl -fsS http://127.0.0.1:8080/readyz || exit 1
ENTRYPOINT ["knotroute-control"]
