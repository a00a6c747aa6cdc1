# Sourced by hack scripts that build a Go server the tests run against (hack/minio.sh, hack/jaeger.sh)
# and cache it outside the repo: ${<cache env>:-~/.cache/svc-<name>}/<version>/<name>.
#
#   cached_go_build <name> <version> <cache env var> <build function> [--check]
#
# Prints the binary's path on stdout (progress on stderr). A cached binary is reused at once; `--check`
# only reports (exit 1 when not built). Otherwise it takes a lock (parallel callers build once), calls
# `<build function> <stage dir>` (which must leave `<stage dir>/<name>`) and moves the stage into place, so
# the cache never holds a half-written binary.

cached_go_build() {
  local name="$1" version="$2" cache_var="$3" build="$4" mode="${5:-}"
  local cache_root="${!cache_var:-$HOME/.cache/svc-$name}"
  local dest="$cache_root/$version"
  local bin="$dest/$name"
  if [ -x "$bin" ]; then
    echo "$bin"
    return 0
  fi
  if [ "$mode" = --check ]; then
    echo "[$name] not built yet: $bin (run hack/$name.sh)" >&2
    return 1
  fi
  command -v go >/dev/null || { echo "[$name] Go is required to build $name (none on PATH; see .ci/ensure-go.sh)" >&2; return 1; }
  mkdir -p "$cache_root"
  exec 9>"$cache_root/.build.lock"
  echo "[$name] waiting for the build lock $cache_root/.build.lock" >&2
  flock 9
  if [ -x "$bin" ]; then   # someone else built it meanwhile
    echo "$bin"
    return 0
  fi
  local stage start
  stage="$(mktemp -d "$cache_root/.stage.XXXXXX")"
  chmod 755 "$stage"
  # shellcheck disable=SC2064 # the stage's path is fixed now
  trap "rm -rf '$stage'" EXIT
  start=$(date +%s)
  "$build" "$stage"
  { echo "$name $version"; echo "go $(go env GOVERSION)"; echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) in $(( $(date +%s) - start ))s"; } > "$stage/VERSIONS"
  rm -rf "$dest"
  mv "$stage" "$dest"
  trap - EXIT
  echo "[$name] done in $(( $(date +%s) - start ))s: $bin" >&2
  echo "$bin"
}
