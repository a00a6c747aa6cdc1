#!/usr/bin/env bash
# Builds the MinIO server that the S3 log store tests run against (test/helpers/minio.ts), from its Go
# module at the pinned version, and caches it outside the repo:
#   ${SVC_MINIO_CACHE:-~/.cache/svc-minio}/<MINIO_VERSION>/minio
# Idempotent: a cached binary is reused at once. Prints the binary's path on stdout, progress on stderr.
#
# `minio.sh --check` only reports: prints the path and exits 0 when cached, exits 1 otherwise.
#
# Environment: SVC_MINIO_CACHE (cache root), SVC_MINIO_BUILD_JOBS (go build -p, default 2).
set -euo pipefail
# MinIO publishes no semver tags to the Go module proxy: the pin is the pseudo-version of a commit
# (the module proxy's version list of github.com/minio/minio: `go list -m -json github.com/minio/minio@latest`).
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c

# shellcheck source=hack/lib/cached-go-build.sh
. "$(dirname "$0")/lib/cached-go-build.sh"

build_minio() {
  echo "[minio] building github.com/minio/minio@$MINIO_VERSION with $(go env GOVERSION) (takes minutes)" >&2
  GOBIN="$1" GOTOOLCHAIN=local GOFLAGS="-buildvcs=false -mod=readonly" CGO_ENABLED=0 \
    nice -n 10 go install -p "${SVC_MINIO_BUILD_JOBS:-2}" -trimpath -ldflags="-s -w" "github.com/minio/minio@$MINIO_VERSION"
}

cached_go_build minio "$MINIO_VERSION" SVC_MINIO_CACHE build_minio "${1:-}"
