# syntax=docker/dockerfile:1
# SubOps: the Slack bot and the `subops` CLI. Build: docker build -t subops .
#   docker run --rm --env-file subops.env -p 3000:3000 --stop-timeout 30 subops       serve (the default command)
#   docker run --rm --env-file subops.env subops serve --simulator                    against the bundled UISP simulator
#   docker run --rm -it subops demo                                                   the terminal demo, offline
#   docker run --rm --env-file subops.env subops client 1001                          any CLI command
# docker compose up runs the bot against the simulator (compose.yaml). More in docs/deployment.md.

# Node 24 "Krypton" is an LTS line until 2028-04-30 (Node 20's ended on 2026-04-30), on Debian 13 "trixie"
# (Debian 12 bookworm's regular security support ended on 2026-06-10). package.json's engines lists the lines
# SubOps runs on; test/process/deployment-files.test.ts checks both are still supported. Pinned by digest
# (the multi-platform index of node:24-trixie-slim, Node 24.20.0, published 2026-08-27), so a build is the
# same image until someone moves the pin: to take Debian's and Node's fixes, replace the digest with the one
# `docker buildx imagetools inspect node:24-trixie-slim` names (or build with --build-arg NODE_IMAGE=…).
ARG NODE_IMAGE=node:24-trixie-slim@sha256:50c3b2f6988dfc307b86e5301d69611af31f4789bdf232863b07d3b02fe55ae0

# Build stage: every dependency (the compiler is a dev dependency), then src/ compiled to dist/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Runtime stage: production dependencies only, and the compiled dist/ from the build stage.
FROM ${NODE_IMAGE} AS runtime
# tini is PID 1: it passes SIGTERM (docker stop) to node and reaps children. No need for `docker run --init`.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` compiles, and the compiler is not here; dist/ comes from the build stage.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY examples ./examples
COPY --from=build /app/dist ./dist
# The state folder (the embedded store, in store/ below it), the runtime user's alone: a named volume
# mounted here (compose.yaml's subops-state) starts with this owner and mode, so the bot can write it.
RUN install -d -o node -g node -m 0700 /home/node/.local /home/node/.local/state /home/node/.local/state/subops
# The node image's unprivileged user; it owns nothing in /app.
USER node
# HTTP mode: Slack's requests at /slack/events (Socket Mode needs no port). /healthz and /metrics are on
# the ops listener, OPS_HOST:OPS_PORT, loopback by default: the health check below runs inside the
# container, so loopback is enough. Set OPS_HOST=0.0.0.0 to let Prometheus scrape /metrics from outside.
EXPOSE 3000
# 200 when UISP and Slack both answer; 503 (unhealthy) when one does not, or while the bot drains.
# Start-up checks Slack for up to ~15 s first. Keep OPS_PORT fixed (not 0) for this check.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const h = process.env.OPS_HOST || '127.0.0.1'; const host = h === '0.0.0.0' ? '127.0.0.1' : h === '::' ? '[::1]' : h.includes(':') ? '[' + h + ']' : h; fetch('http://' + host + ':' + (process.env.OPS_PORT || 9464) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
# node itself runs SubOps (never npm or a shell), so SIGTERM reaches it and the drain runs: give
# `docker stop` more time than SHUTDOWN_GRACE_MS (25 s by default), e.g. --stop-timeout 30.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "bin/subops.js"]
CMD ["serve"]
