#!/usr/bin/env bash
# kubectl accepts the deployment manifests:
#   1. offline, every document of manifests/ parses and maps to a kind
#      (`kubectl label --local -o name`, no cluster needed);
#   2. against kube-apiserver-lite, every file whose kinds that server
#      serves is created for real with strict field validation
#      (`kubectl create --validate=strict`); the others (RBAC, ConfigMap,
#      Deployment, Service, ServiceMonitor) are only parsed, and the C++
#      test cmd/ksched/manifests_test.cc checks their content.
#
# Usage: test/e2e/manifests_test.sh path/to/kube-apiserver-lite
# Run from the project root (ctest does). Prints "N passed, M failed".
set -euo pipefail

APISERVER="${1:-build/kube-apiserver-lite}"
[[ -x "$APISERVER" ]] || { echo "kube-apiserver-lite binary not found: $APISERVER" >&2; exit 2; }
[[ -d manifests ]] || { echo "run from the project root" >&2; exit 2; }
WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

# check, free_port, wait_for, json_get; PASSED and FAILED.
source "$(dirname "$0")/lib.sh"

# ---- 1. offline
offline() {
  KUBECONFIG=/dev/null kubectl label --local -f manifests/ -o name parsed=true >"$WORK/names.txt"
  local want
  for want in namespace/ksched-system serviceaccount/ksched \
    clusterrole.rbac.authorization.k8s.io/ksched clusterrolebinding.rbac.authorization.k8s.io/ksched \
    rolebinding.rbac.authorization.k8s.io/ksched-authentication-reader \
    clusterrole.rbac.authorization.k8s.io/ksched-metrics-reader \
    clusterrolebinding.rbac.authorization.k8s.io/ksched-metrics-reader \
    role.rbac.authorization.k8s.io/ksched-leader-election rolebinding.rbac.authorization.k8s.io/ksched-leader-election \
    configmap/ksched-config deployment.apps/ksched service/ksched servicemonitor.monitoring.coreos.com/ksched \
    pod/ksched-example; do
    grep -qxF "$want" "$WORK/names.txt" || { echo "missing: $want"; cat "$WORK/names.txt"; return 1; }
  done
}
check "kubectl parses every manifest offline" offline

# ---- 2. against kube-apiserver-lite
"$APISERVER" --port=0 >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
  grep -q "listening on" "$WORK/server.log" && break
  sleep 0.1
done
URL="$(sed -n 's/^.*kube-apiserver-lite listening on //p' "$WORK/server.log" | head -1)"
[[ -n "$URL" ]] || { cat "$WORK/server.log" >&2; exit 1; }
k() { kubectl --server "$URL" --cache-dir "$WORK/kcache" --request-timeout=10s "$@"; }

k api-resources -o name >"$WORK/served.txt"
# served FILE: every object of FILE is of a kind the server serves (the
# kind's plural, "deployment.apps" -> "deployments.apps").
served() {
  local name resource plural
  while read -r name; do
    resource="${name%%/*}"
    plural="${resource%%.*}s"
    [[ "$resource" == *.* ]] && plural="$plural.${resource#*.}"
    grep -qxF "$plural" "$WORK/served.txt" || return 1
  done < <(KUBECONFIG=/dev/null kubectl label --local -f "$1" -o name parsed=true)
}
created=0
for f in manifests/*.yaml; do
  if served "$f"; then
    check "kubectl create --validate=strict -f $f" k create --validate=strict -f "$f" -o name
    created=$((created + 1))
  else
    echo "--   $f: kinds not served by kube-apiserver-lite (parsed only)"
  fi
done
check "the Namespace and the example pod were created" test "$created" -ge 2
check "the example pod asks for ksched" bash -c "[[ \$(kubectl --server '$URL' get pod ksched-example -o jsonpath='{.spec.schedulerName}') == ksched ]]"

echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
