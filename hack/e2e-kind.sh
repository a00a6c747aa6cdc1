#!/usr/bin/env bash
# End-to-end: the operator's integration tests (test/operator) and the cluster tests of the test bed
# (test/testbed) against a kind cluster, for people who have Docker. It cannot run on machines without a
# container runtime (use hack/testbed there; see docs/testbed.md).
#
#   hack/e2e-kind.sh                 create a kind cluster, run the tests, delete the cluster
#   KEEP_CLUSTER=1 hack/e2e-kind.sh  keep the cluster afterwards (reused by the next run)
#
# Environment: KIND_CLUSTER (default svc-e2e), KIND_NODE_IMAGE (default: kind's own for its version; pick a
# kindest/node image of the Kubernetes minor pinned in hack/testbed.d/versions.env to match the test bed),
# SVC_E2E_PROJECTS (jest projects to run, default "testbed"), SVC_IMAGE (the svc image built from the
# Dockerfile and loaded into the cluster, default svc:<package version>), SVC_E2E_HELM=1 (also helm install
# charts/svc with that image into namespace svc-e2e and wait for its Deployments; needs helm).
#
# Tests that need the test bed itself (its node agents: Lease ageing, host-side marks) skip on kind; the
# rest (CRDs, Pods, exec, logs, garbage collection, client-node) run unchanged. Pods use busybox:1.36.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

for tool in docker kind kubectl npx; do
  command -v "$tool" >/dev/null || { echo "e2e-kind: $tool is required" >&2; exit 1; }
done
docker info >/dev/null 2>&1 || { echo "e2e-kind: no Docker engine is reachable" >&2; exit 1; }

cluster="${KIND_CLUSTER:-svc-e2e}"
work="$(mktemp -d)"
kubeconfig="$work/kubeconfig"
created=0

cleanup() {
  if [ "$created" = 1 ] && [ "${KEEP_CLUSTER:-0}" != 1 ]; then
    kind delete cluster --name "$cluster" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

if kind get clusters 2>/dev/null | grep -qx "$cluster"; then
  echo "e2e-kind: reusing kind cluster $cluster"
else
  echo "e2e-kind: creating kind cluster $cluster"
  kind create cluster --name "$cluster" ${KIND_NODE_IMAGE:+--image "$KIND_NODE_IMAGE"} --wait 180s
  created=1
fi
kind get kubeconfig --name "$cluster" > "$kubeconfig"
kubectl --kubeconfig "$kubeconfig" version

# Pods in the tests use busybox; pre-load it so the tests do not wait on pulls inside the cluster.
docker pull -q busybox:1.36 >/dev/null && kind load docker-image busybox:1.36 --name "$cluster" >/dev/null || true

version="$(node -p "require('./package.json').version")"
image="${SVC_IMAGE:-svc:$version}"
docker build -t "$image" .
kind load docker-image "$image" --name "$cluster"

if [ "${SVC_E2E_HELM:-0}" = 1 ]; then
  helm --kubeconfig "$kubeconfig" upgrade --install svc charts/svc --namespace svc-e2e --create-namespace \
    --set image.repository="${image%:*}" --set image.tag="${image##*:}" --set persistence.accessModes[0]=ReadWriteOnce \
    --set api.replicas=1 --wait --timeout 5m
  kubectl --kubeconfig "$kubeconfig" -n svc-e2e get pods
fi

[ -d node_modules ] || npm ci --no-audit --no-fund
npx tsc -p tsconfig.json
projects=()
for p in ${SVC_E2E_PROJECTS:-testbed}; do
  if [ -f "test/$p/jest.config.js" ]; then projects+=("$p"); else echo "e2e-kind: no jest project test/$p (skipped)"; fi
done
[ "${#projects[@]}" -gt 0 ] || { echo "e2e-kind: no test projects to run" >&2; exit 1; }
SVC_TEST_KUBECONFIG="$kubeconfig" NODE_OPTIONS=--experimental-vm-modules npx jest --selectProjects "${projects[@]}"
