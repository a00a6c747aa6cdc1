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

cache_root="${SVC_MINIO_CACHE:-$HOME/.cache/svc-minio}"
dest="$cache_root/$MINIO_VERSION"
bin="$dest/minio"

log() { echo "[minio] $*" >&2; }

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
if [ "${1:-}" = --check ]; then
  log "not built yet: $bin (run hack/minio.sh)"
  exit 1
fi

command -v go >/dev/null || { log "Go is required to build MinIO (none on PATH; see .ci/ensure-go.sh)"; exit 1; }
mkdir -p "$cache_root"
exec 9>"$cache_root/.build.lock"
log "waiting for the build lock $cache_root/.build.lock"
flock 9
if [ -x "$bin" ]; then   # someone else built it meanwhile
  echo "$bin"
  exit 0
fi

# Built into a stage directory and renamed into place: the cache never holds a half-written binary.
stage="$(mktemp -d "$cache_root/.stage.XXXXXX")"
chmod 755 "$stage"
trap 'rm -rf "$stage"' EXIT
start=$(date +%s)
log "building github.com/minio/minio@$MINIO_VERSION with $(go env GOVERSION) (takes minutes)"
GOBIN="$stage" GOTOOLCHAIN=local GOFLAGS="-buildvcs=false -mod=readonly" CGO_ENABLED=0 \
  nice -n 10 go install -p "${SVC_MINIO_BUILD_JOBS:-2}" -trimpath -ldflags="-s -w" "github.com/minio/minio@$MINIO_VERSION"
{ echo "minio $MINIO_VERSION"; echo "go $(go env GOVERSION)"; echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) in $(( $(date +%s) - start ))s"; } > "$stage/VERSIONS"
rm -rf "$dest"
mv "$stage" "$dest"
trap - EXIT
log "done in $(( $(date +%s) - start ))s: $bin"
echo "$bin"
