# syntax=docker/dockerfile:1
# The svc image: the CLI (`svc server`, `svc operator`, every other command) on Node 24, the native fork
# server, and the static step entry binary at /usr/local/bin/svc-entry (step Pods mount this image as a
# volume to run it). Non-root (uid 65532), no writes to its own files: the chart runs it with a read-only
# root filesystem. Build: docker build -t svc:0.1.0 .   (hack/e2e-kind.sh builds and loads it into kind)

# The step entry binary: Go, standard library only, static.
FROM golang:1.26-trixie AS entry
WORKDIR /src
COPY src/entry/ ./
RUN CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags='-s -w' -o /out/svc-entry .

# The CLI: compiled, the fork server built, the short commands bundled, the web UI built into dist/ui;
# then only runtime dependencies.
FROM node:24.21.0-trixie AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY bin/ bin/
COPY hack/build-native.mjs hack/bundle.mjs hack/ui.mjs hack/
COPY src/ src/
RUN npx tsc -p tsconfig.json \
    && node hack/build-native.mjs \
    && node hack/bundle.mjs \
    && node hack/ui.mjs build \
    && npm prune --omit=dev --omit=optional --no-audit --no-fund

FROM node:24.21.0-trixie-slim
ENV NODE_ENV=production \
    SVC_HOST=0.0.0.0 \
    SVC_DATA_DIR=/var/lib/svc \
    SVC_DAGS_DIR=/var/lib/svc/dags
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/bin/ bin/
COPY --from=build /app/dist/ dist/
COPY --from=build /app/node_modules/ node_modules/
COPY --from=entry /out/svc-entry /usr/local/bin/svc-entry
COPY examples/ examples/
RUN ln -s /app/bin/svc.js /usr/local/bin/svc \
    && mkdir -p /var/lib/svc \
    && chown 65532:65532 /var/lib/svc
USER 65532:65532
VOLUME ["/var/lib/svc"]
EXPOSE 8080 8081 9443
ENTRYPOINT ["svc"]
CMD ["server"]
