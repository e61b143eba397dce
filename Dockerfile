# plant-store-mock as a sidecar: docker build -t plant-store-mock . && docker run --rm -p 4010:4010 plant-store-mock
# Node 24 is an LTS line the package supports (engines: >=20.19); pin a digest (node:24-slim@sha256:…) for byte-for-byte rebuilds.

FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json scripts/keep-build-dependencies.mjs ./
# Only what the build needs: the production dependencies (the build reads their types), TypeScript and
# @types/*; not Prism, vitest and the benchmark tools (about 180 MB of node_modules become about 50).
# `npm install`, not `npm ci`: the trimmed package.json no longer matches the lockfile, and npm keeps
# the lockfile's versions and integrity hashes for everything that stays.
RUN node keep-build-dependencies.mjs && npm install --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:24-slim
LABEL org.opencontainers.image.title="plant-store-mock" org.opencontainers.image.licenses="MIT"
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4010 MOCK_URL_FILE=/tmp/plant-store-mock.url
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The MIT licence asks that its text go with every copy of the software, the image included.
COPY openapi.yaml admin-openapi.yaml LICENSE ./
COPY fixtures ./fixtures
# The image's own user (uid 1000); the files above stay root-owned, so the process cannot change them.
USER node
EXPOSE 4010
# slim has no curl: node asks /__mock/health (always open, even with --admin-token) at the URL the mock wrote to
# MOCK_URL_FILE once it listened, so --port, PORT and port 0 all work (before that, at PORT).
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --start-interval=1s --retries=3 \
  CMD ["node", "-e", "let u = 'http://127.0.0.1:' + process.env.PORT; try { u = require('fs').readFileSync(process.env.MOCK_URL_FILE, 'utf8').trim() } catch {} fetch(u + '/__mock/health', { signal: AbortSignal.timeout(2500) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself; src/cli.ts handles it (finish in-flight requests, exit 0),
# within 8 s (CLOSE_GRACE_MS in src/node/server.ts), before docker stop's SIGKILL at 10 s.
# No init (tini / --init) is needed: the mock starts no child processes, so there are no zombies to reap.
# Arguments after the image name are mock options: docker run plant-store-mock --dynamic --seed 1
ENTRYPOINT ["node", "dist/cli.js"]
