#!/usr/bin/env bash
# Builds act (github.com/nektos/act), the runner of `gha` steps (src/runtime/steps/gha.ts) and of their
# tests (test/steps/gha.test.ts), from its Go module at the pinned version, and caches it outside the repo:
#   ${SVC_ACT_CACHE:-~/.cache/svc-act}/<ACT_VERSION>/act
# Idempotent: a cached binary is reused at once. Prints the binary's path on stdout, progress on stderr.
#
# `act.sh --check` only reports: prints the path and exits 0 when cached, exits 1 otherwise.
#
# Environment: SVC_ACT_CACHE (cache root), SVC_ACT_BUILD_JOBS (go build -p, default 2).
set -euo pipefail
# The newest release on the Go module proxy (`go list -m -versions github.com/nektos/act`).
ACT_VERSION=v0.2.89

# shellcheck source=hack/lib/cached-go-build.sh
. "$(dirname "$0")/lib/cached-go-build.sh"

build_act() {
  echo "[act] building github.com/nektos/act@$ACT_VERSION with $(go env GOVERSION)" >&2
  GOBIN="$1" GOTOOLCHAIN=local GOFLAGS="-buildvcs=false -mod=readonly" CGO_ENABLED=0 \
    nice -n 10 go install -p "${SVC_ACT_BUILD_JOBS:-2}" -trimpath -ldflags="-s -w" "github.com/nektos/act@$ACT_VERSION"
}

cached_go_build act "$ACT_VERSION" SVC_ACT_CACHE build_act "${1:-}"
