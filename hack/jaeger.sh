#!/usr/bin/env bash
# Builds Jaeger v2 (an OpenTelemetry Collector distribution: OTLP in, an HTTP query API out), the OTLP
# receiver the `otel` tests export to and read traces back from (test/helpers/jaeger.ts), from its Go
# module at the pinned version, and caches it outside the repo:
#   ${SVC_JAEGER_CACHE:-~/.cache/svc-jaeger}/<JAEGER_VERSION>/jaeger
# Idempotent: a cached binary is reused at once. Prints the binary's path on stdout, progress on stderr.
#
# `jaeger.sh --check` only reports: prints the path and exits 0 when cached, exits 1 otherwise.
#
# Environment: SVC_JAEGER_CACHE (cache root), SVC_JAEGER_BUILD_JOBS (go build -p, default 2).
set -euo pipefail
# Jaeger v2 releases are published to the Go module proxy under their v1 tags (v1.76.0 is Jaeger 2.13):
# the module path has no /v2 suffix.
JAEGER_VERSION=v1.76.0

# shellcheck source=hack/lib/cached-go-build.sh
. "$(dirname "$0")/lib/cached-go-build.sh"

log() { echo "[jaeger] $*" >&2; }

build_jaeger() {
  # Jaeger's go.mod has a replace directive, which `go install pkg@version` refuses: a throwaway main
  # module requires the pinned version, copies its replace directives, and builds the command from there
  # (same dependency versions as Jaeger's own build: its go.mod lists every module it needs).
  local work="$1/build" stage="$1"
  mkdir -p "$work"
  export GOTOOLCHAIN=local GOFLAGS="-buildvcs=false -mod=mod" CGO_ENABLED=0
  log "resolving github.com/jaegertracing/jaeger@$JAEGER_VERSION with $(go env GOVERSION)"
  (
    cd "$work"
    go mod init svc.local/jaeger-build >/dev/null 2>&1
    go mod edit -require="github.com/jaegertracing/jaeger@$JAEGER_VERSION"
    modfile="$(go mod download -json "github.com/jaegertracing/jaeger@$JAEGER_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
    [ -n "$modfile" ] || { log "could not download the module's go.mod"; exit 1; }
    # Each `replace a => b vX` line of Jaeger's go.mod, copied as is.
    sed -n 's/^replace[[:space:]]\+\([^[:space:]]\+\)[[:space:]]\+=>[[:space:]]\+\([^[:space:]]\+\)[[:space:]]\+\([^[:space:]]\+\)[[:space:]]*$/\1=\2@\3/p' "$modfile" |
      while read -r r; do go mod edit -replace="$r"; done
    log "building cmd/jaeger (takes minutes)"
    nice -n 10 go build -p "${SVC_JAEGER_BUILD_JOBS:-2}" -trimpath -ldflags="-s -w" -o "$stage/jaeger" github.com/jaegertracing/jaeger/cmd/jaeger
  )
  rm -rf "$work"
}

cached_go_build jaeger "$JAEGER_VERSION" SVC_JAEGER_CACHE build_jaeger "${1:-}"
