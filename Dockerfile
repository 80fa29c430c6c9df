# The rehearsal server as an image: one node of a deployment (compose.yaml runs two behind Caddy).
#
#   docker build -t rehearsal-room .
#   docker run -p 8787:8787 -v rehearsal-data:/data rehearsal-room
#
# Three stages: every dependency installed and the client built (build), the production
# dependencies alone (runtime-deps), then a slim image that runs as the unprivileged `node` user.
# glibc (Debian), not Alpine: the prebuilt native modules (better-sqlite3, onnxruntime-node,
# node-llama-cpp, whisper.cpp, LiveKit's rtc-node) are built against it.
ARG NODE_VERSION=22

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# A native module without a prebuilt binary for this platform compiles from source.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY . .
# The browser's bundle (dist/client), and the word-vector cache the similarity reads at start
# (node_modules/.cache/rehearsal-room): both made once here, not by each container.
RUN npx tsx server/cli/build-client.ts --force \
 && npx tsx --eval "import('./server/providers/word-vectors.ts').then((m) => { if (!m.installedWordVectors()) process.exit(1); })"

FROM node:${NODE_VERSION}-bookworm-slim AS runtime-deps
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    PORT=8787 \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=runtime-deps /app/node_modules ./node_modules
# The server runs its TypeScript through tsx (a dev dependency): it and its esbuild come from the build.
COPY --from=build /app/node_modules/tsx ./node_modules/tsx
COPY --from=build /app/node_modules/esbuild ./node_modules/esbuild
COPY --from=build /app/node_modules/@esbuild ./node_modules/@esbuild
COPY --from=build /app/node_modules/.cache/rehearsal-room ./node_modules/.cache/rehearsal-room
COPY --from=build /app/dist ./dist
COPY package.json tsconfig.json ./
COPY server ./server
COPY shared ./shared
COPY scenes ./scenes
COPY avatars ./avatars
COPY public ./public
# DATA_DIR (the SQLite store when there is no DATABASE_URL, the token secret, uploads, models,
# recordings unless RECORDINGS_URL says otherwise) is the only place the server writes.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8787
# GET /api/health answers 200 once the server listens with its store open; the image has no curl.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8787) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--import", "tsx", "server/main.ts"]
