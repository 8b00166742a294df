#!/usr/bin/env bash
# ksched's secure port on a real control plane, authenticated and
# authorized as kube-scheduler's is (delegated to the API server):
#   no token -> 401; a token whose ServiceAccount may not get /metrics ->
#   403; Prometheus' ServiceAccount (bound to ksched-metrics-reader by
#   manifests/01-rbac.yaml) -> 200 with the metrics, but 403 on /configz;
#   /healthz /readyz /livez open; a client certificate of the cluster CA
#   (looked up in kube-system/extension-apiserver-authentication) in
#   system:masters -> 200 on /configz.
# ksched runs as its own ServiceAccount (manifests' RBAC) with a token from
# `kubectl create token`.
#
# Usage: secure_serving_test.sh KSCHED_BINARY. Control plane: as
# rbac_can_i_test.sh (lib.sh's k8s_up); exits 77 without one.
set -euo pipefail

KSCHED="${1:?usage: secure_serving_test.sh KSCHED_BINARY}"
WORK="$(mktemp -d)"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
KSCHED_PID=""
cleanup() {
  if [ -n "$KSCHED_PID" ]; then
    kill "$KSCHED_PID" 2>/dev/null || true
    wait "$KSCHED_PID" 2>/dev/null || true
  fi
  k8s_down
  rm -rf "$WORK"
}
trap cleanup EXIT

for tool in kubectl curl; do command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }; done
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
k8s_up

kc apply -f "$REPO/manifests/00-namespace.yaml" -f "$REPO/manifests/01-rbac.yaml" >"$WORK/apply.log"
kc create namespace monitoring >/dev/null
kc create serviceaccount prometheus-k8s -n monitoring >/dev/null
kc create namespace e2e-other >/dev/null
kc create serviceaccount nobody -n e2e-other >/dev/null
KSCHED_TOKEN="$(kc create token ksched -n ksched-system --duration=1h)"
PROM_TOKEN="$(kc create token prometheus-k8s -n monitoring --duration=1h)"
NOBODY_TOKEN="$(kc create token nobody -n e2e-other --duration=1h)"

# ksched's kubeconfig: its ServiceAccount token, the cluster CA.
cat >"$WORK/ksched.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: $APISERVER_URL
    certificate-authority: $K8S_DIR/ca.crt
users:
- name: ksched
  user:
    token: $KSCHED_TOKEN
contexts:
- name: e2e
  context: {cluster: e2e, user: ksched}
current-context: e2e
KC

PORT="$(free_port)"
"$KSCHED" --kubeconfig "$WORK/ksched.kubeconfig" --leader-elect=false --bind-address=127.0.0.1 \
  --secure-port="$PORT" --v=2 >"$WORK/ksched.log" 2>&1 &
KSCHED_PID=$!
BASE="https://127.0.0.1:$PORT"

# code PATH [curl args]: the HTTP status of GET PATH (000 on no answer).
code() {
  local path="$1"
  shift
  curl -sk -o "$WORK/body" -w '%{http_code}' --max-time 5 "$@" "$BASE$path" || true
}
expect_code() {
  local want="$1" path="$2"
  shift 2
  local got
  got="$(code "$path" "$@")"
  [ "$got" = "$want" ] || { echo "GET $path: $got, want $want"; head -c 300 "$WORK/body"; return 1; }
}

if ! wait_for 30 expect_code 200 /livez; then
  echo "ksched did not serve /livez:"
  tail -30 "$WORK/ksched.log"
  exit 1
fi
check "/readyz open once synced" wait_for 30 expect_code 200 /readyz
for p in /healthz /livez; do check "$p open without a token" expect_code 200 "$p"; done
check "no token: 401 on /metrics" expect_code 401 /metrics
check "no token: 401 on /configz" expect_code 401 /configz
check "no token: 401 on /debug/pending" expect_code 401 /debug/pending
check "invalid token: 401" expect_code 401 /metrics -H "Authorization: Bearer not-a-token"
check "token without get /metrics: 403" expect_code 403 /metrics -H "Authorization: Bearer $NOBODY_TOKEN"
metrics_ok() {
  expect_code 200 /metrics -H "Authorization: Bearer $PROM_TOKEN"
  grep -q "^scheduler_pending_pods" "$WORK/body"
}
check "ksched-metrics-reader token: 200 with metrics" metrics_ok
check "ksched-metrics-reader token: 403 on /configz" expect_code 403 /configz -H "Authorization: Bearer $PROM_TOKEN"

# The admin client certificate (system:masters), verified against the
# cluster CA that ksched read from extension-apiserver-authentication.
# The admin kubeconfig holds the certificate inline or as file paths.
kc config view --raw -o jsonpath='{.users[0].user.client-certificate-data}' | base64 -d >"$WORK/admin.crt"
kc config view --raw -o jsonpath='{.users[0].user.client-key-data}' | base64 -d >"$WORK/admin.key"
if [ ! -s "$WORK/admin.crt" ]; then
  cp "$(kc config view --raw -o jsonpath='{.users[0].user.client-certificate}')" "$WORK/admin.crt" || true
  cp "$(kc config view --raw -o jsonpath='{.users[0].user.client-key}')" "$WORK/admin.key" || true
fi
if [ -s "$WORK/admin.crt" ]; then
  check "system:masters client certificate: 200 on /configz" \
    expect_code 200 /configz --cert "$WORK/admin.crt" --key "$WORK/admin.key"
fi
check "ksched logged the client CA lookup" grep -q "client certificates are verified against" "$WORK/ksched.log"
check "ksched still running" kill -0 "$KSCHED_PID"

echo "secure_serving: $PASSED passed, $FAILED failed"
((FAILED == 0))
