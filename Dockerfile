# One image, two entry points (exec form, so that SIGTERM reaches Node and the process drains):
#   api     CMD ["node", "backend/dist/main.js"]      (the default)
#   worker  command ["node", "backend/dist/worker.js"] (docker-compose.yml)
# `.ci/image-smoke.mjs` assembles the final stage from this file without a container engine (its COPY, ENV,
# WORKDIR, VOLUME, USER, HEALTHCHECK and CMD lines) and runs it as an unprivileged user: keep them plain.

# Node and the C++ toolchain that native modules (better-sqlite3) fall back on; never in the final stage.
FROM node:20.20.2-bookworm-slim AS toolchain
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app

# Everything, built: backend/dist and frontend/dist.
FROM toolchain AS build
COPY package.json package-lock.json ./
COPY backend/package.json backend/
COPY frontend/package.json frontend/
COPY packages/domain/package.json packages/domain/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# The backend's production dependencies only, as npm lays them out: hoisted into node_modules, a version that
# conflicts with another workspace's in backend/node_modules (created empty when there is none, for the COPY).
FROM toolchain AS deps
COPY package.json package-lock.json ./
COPY backend/package.json backend/
COPY frontend/package.json frontend/
COPY packages/domain/package.json packages/domain/
RUN npm ci --omit=dev --workspace backend --no-audit --no-fund && mkdir -p backend/node_modules

FROM node:20.20.2-bookworm-slim AS runtime
ENV NODE_ENV=production
# Every file the app writes (SQLite event store, keys, sessions, care orders) goes under DATA_DIR: the volume.
ENV DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=deps /app/backend/node_modules ./backend/node_modules
COPY --from=build /app/package.json ./
COPY --from=build /app/backend/package.json ./backend/
# The shared domain package the backend requires (node_modules/@joy/domain links to it).
COPY --from=build /app/packages/domain/package.json ./packages/domain/
COPY --from=build /app/packages/domain/dist ./packages/domain/dist
COPY --from=build /app/backend/dist ./backend/dist
COPY --from=build /app/frontend/dist ./frontend/dist
# The volume's directory belongs to the runtime user, so that a fresh named volume does too.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 3000
# The api answers /api/health, the worker /health (both on PORT): the script asks the one ROLE names.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD ["node", "backend/dist/ops/healthcheck.js"]
CMD ["node", "backend/dist/main.js"]
