#!/usr/bin/env bash
# Prints a directory holding a Go toolchain new enough for the test bed's modules, fetching one when
# the machine has none: the official toolchain module from the Go module proxy (the same artefact
# `GOTOOLCHAIN=auto` downloads), cached in ~/.cache/svc-go. Usage: PATH="$(.ci/ensure-go.sh):$PATH"
set -euo pipefail
want=go1.26.8
min_minor=26
if command -v go >/dev/null; then
  minor=$(go env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
  if [ -n "$minor" ] && [ "$minor" -ge "$min_minor" ]; then dirname "$(command -v go)"; exit 0; fi
fi
dest="${XDG_CACHE_HOME:-$HOME/.cache}/svc-go/$want"
if [ ! -x "$dest/bin/go" ]; then
  proxy="${GOPROXY:-https://proxy.golang.org}"; proxy="${proxy%%,*}"
  [ "$proxy" = direct ] || [ "$proxy" = off ] && proxy=https://proxy.golang.org
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  echo "[ci] fetching $want from $proxy" >&2
  curl -fsSL "$proxy/golang.org/toolchain/@v/v0.0.1-$want.linux-amd64.zip" -o "$tmp/go.zip"
  unzip -q "$tmp/go.zip" -d "$tmp/x"
  mkdir -p "$(dirname "$dest")"
  rm -rf "$dest"
  mv "$tmp/x/golang.org/toolchain@v0.0.1-$want.linux-amd64" "$dest"
  chmod +x "$dest/bin/"* "$dest/pkg/tool/"*/* 2>/dev/null || true
fi
echo "$dest/bin"
