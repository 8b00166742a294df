#!/usr/bin/env bash
# /debug/explain behind delegated authentication and authorization, on a
# real control plane: kubectl-ksched with a user bound to the manifests'
# ClusterRole ksched-explain-reader -> answered; a user without it -> 403,
# refused with a hint; no credentials -> 401. The admin's kubeconfig
# (client certificate, system:masters) works as is.
#
# Usage: explain_authz_test.sh KSCHED KUBECTL_KSCHED. Control plane: as
# secure_serving_test.sh (lib.sh's k8s_up); exits 77 without one.
set -euo pipefail

KSCHED="${1:?usage: explain_authz_test.sh KSCHED KUBECTL_KSCHED}"
PLUGIN="${2:?}"
WORK="$(mktemp -d)"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
k8s_with_ksched_rbac
kc create namespace e2e-explain >/dev/null
kc create serviceaccount viewer -n e2e-explain >/dev/null
kc create serviceaccount nobody -n e2e-explain >/dev/null
kc create clusterrolebinding e2e-explain-viewer --clusterrole=ksched-explain-reader \
  --serviceaccount=e2e-explain:viewer >/dev/null
KSCHED_TOKEN="$(kc create token ksched -n ksched-system --duration=1h)"
VIEWER_TOKEN="$(kc create token viewer -n e2e-explain --duration=1h)"
NOBODY_TOKEN="$(kc create token nobody -n e2e-explain --duration=1h)"

token_kubeconfig "$WORK/ksched.kubeconfig" "$KSCHED_TOKEN"
start_secure_ksched --kubeconfig "$WORK/ksched.kubeconfig" --leader-elect=false

ask() { "$PLUGIN" queue --endpoint "$EP" --insecure-skip-tls-verify "$@"; }
viewer_ok() { ask --token "$VIEWER_TOKEN" -o json >"$WORK/q.json" && json_get "$WORK/q.json" 'd["counts"]'; }
check "a user bound to ksched-explain-reader is answered" viewer_ok
refused() {
  ! ask --token "$NOBODY_TOKEN" >"$WORK/nobody.out" 2>&1
  cat "$WORK/nobody.out"
  grep -q "403" "$WORK/nobody.out"
  grep -q "ksched-explain-reader" "$WORK/nobody.out"
}
check "a user without RBAC on /debug/explain is refused (403)" refused
no_creds() {
  ! ask --kubeconfig "$WORK/empty.kubeconfig" >"$WORK/anon.out" 2>&1
  cat "$WORK/anon.out"
  grep -q "401" "$WORK/anon.out"
}
printf 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "%s"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n' \
  "$APISERVER_URL" >"$WORK/empty.kubeconfig"
check "no credentials: 401" no_creds
admin_ok() { ask --kubeconfig "$K8S_KUBECONFIG" -o json >"$WORK/admin.json" && json_get "$WORK/admin.json" 'd["counts"]'; }
check "the admin's kubeconfig (client certificate) is answered" admin_ok
check "ksched still running" kill -0 "$KSCHED_PID"

echo "explain_authz: $PASSED passed, $FAILED failed"
((FAILED == 0))
