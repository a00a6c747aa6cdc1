#!/usr/bin/env bash
# Builds the Kubernetes test bed's control-plane binaries (etcd, kube-apiserver, kube-controller-manager,
# kubectl) from their Go modules at the versions pinned in versions.env, and caches them outside the repo:
#   ${SVC_TESTBED_CACHE:-~/.cache/svc-testbed}/kube-<KUBE_VERSION>_etcd-<ETCD_VERSION>/bin/
# Idempotent: when the cache directory is complete and was built from the same recipe (versions, go.mod,
# go.sum, BUILD_RECIPE), it prints the directory and exits at once. Prints the bin directory on stdout, progress on stderr.
#
# `build.sh --check` only reports: prints the bin directory and exits 0 when cached, exits 1 otherwise.
#
# Environment: SVC_TESTBED_CACHE (cache root), SVC_TESTBED_BUILD_JOBS (go build -p, default 2),
#              SVC_TESTBED_FORCE_BUILD=1 (rebuild even when cached).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck disable=SC1091
. "$here/versions.env"

cache_root="${SVC_TESTBED_CACHE:-$HOME/.cache/svc-testbed}"
dest="$cache_root/kube-${KUBE_VERSION}_etcd-${ETCD_VERSION}"
bins=(etcd kube-apiserver kube-controller-manager kubectl)
# Bump when the way the binaries are built changes (flags, ldflags): that forces a rebuild.
BUILD_RECIPE=1
recipe="$( (echo "$BUILD_RECIPE"; cat "$here/versions.env" "$here/kube/go.mod" "$here/kube/go.sum" \
  "$here/etcd/go.mod" "$here/etcd/go.sum" "$here/etcd/main.go") | sha256sum | cut -c1-16)"

log() { echo "[testbed build] $*" >&2; }

complete() {
  [ -f "$dest/recipe" ] && [ "$(cat "$dest/recipe")" = "$recipe" ] || return 1
  for b in "${bins[@]}"; do [ -x "$dest/bin/$b" ] || return 1; done
}

if [ "${SVC_TESTBED_FORCE_BUILD:-0}" != 1 ] && complete; then
  echo "$dest/bin"
  exit 0
fi
if [ "${1:-}" = --check ]; then
  log "not built yet: $dest (run hack/testbed build)"
  exit 1
fi

command -v go >/dev/null || { log "Go is required to build the test bed (none on PATH)"; exit 1; }
mkdir -p "$cache_root"
exec 9>"$cache_root/.build.lock"
log "waiting for the build lock $cache_root/.build.lock"
flock 9
if [ "${SVC_TESTBED_FORCE_BUILD:-0}" != 1 ] && complete; then   # someone else built it meanwhile
  echo "$dest/bin"
  exit 0
fi

export GOTOOLCHAIN=local GOFLAGS="-buildvcs=false -mod=readonly" CGO_ENABLED=0
jobs="${SVC_TESTBED_BUILD_JOBS:-2}"
stage="$(mktemp -d "$cache_root/.stage.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
start=$(date +%s)

log "etcd $ETCD_VERSION -> $stage/bin"
(cd "$here/etcd" && nice -n 10 go build -p "$jobs" -trimpath -ldflags="-s -w" -o "$stage/bin/etcd" .)
log "etcd built after $(( $(date +%s) - start ))s"

minor="${KUBE_VERSION#v1.}"; minor="${minor%%.*}"
build_date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.gitCommit= -X $pkg.buildDate=$build_date"
done
log "kube-apiserver, kube-controller-manager, kubectl $KUBE_VERSION -> $stage/bin (go build -p $jobs)"
(cd "$here/kube" && nice -n 10 go build -p "$jobs" -trimpath -ldflags="$ldflags" -o "$stage/bin/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl)

echo "$recipe" > "$stage/recipe"
{ echo "kubernetes $KUBE_VERSION"; echo "etcd $ETCD_VERSION"; echo "go $(go env GOVERSION)";
  echo "built $build_date in $(( $(date +%s) - start ))s"; } > "$stage/VERSIONS"
rm -rf "$dest.old"; [ -e "$dest" ] && mv "$dest" "$dest.old"
mv "$stage" "$dest"; rm -rf "$dest.old"
trap - EXIT
log "done in $(( $(date +%s) - start ))s: $dest/bin"
echo "$dest/bin"
