#!/usr/bin/env bash
# `kubectl ksched what-if` and `why` on a real control plane (lib.sh's
# k8s_up), ksched running with the manifests' RBAC (its ServiceAccount's
# token) as a local process (no kubelets: nothing could run its pod):
#   - what-if, as a user allowed only get/list/watch, on a scenario where
#     constraints force every placement (node selectors, a taint) and one
#     pod must preempt a lower-priority one; nothing is written (the victim's
#     resourceVersion is unchanged, no pod of the file exists); then the same
#     pods are created and ksched's placements and its victim are compared
#     with what-if's;
#   - why on a pod that cannot fit: the plugins and counts of the
#     FailedScheduling event the API server holds, and the requeue event;
#     that event produced (a Node that fits) -> why shows it bound; on a
#     pod that fits several nodes -> the scores that chose its node; the
#     list-only user is refused /debug/explain (403).
#
# Usage: whatif_test.sh KSCHED KUBECTL_KSCHED. Exits 77 without a control plane.
set -euo pipefail

KSCHED="${1:?usage: whatif_test.sh KSCHED KUBECTL_KSCHED}"
PLUGIN="${2:?}"
WORK="$(mktemp -d)"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
k8s_with_ksched_rbac
KSCHED_TOKEN="$(kc create token ksched -n ksched-system --duration=1h)"
# A user who may only read: what-if needs no more.
kc create namespace e2e-whatif >/dev/null
kc create serviceaccount reader -n e2e-whatif >/dev/null
kc create -f - >/dev/null <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: e2e-whatif-reader}
rules:
- {apiGroups: ["*"], resources: ["*"], verbs: [get, list, watch]}
YAML
kc create clusterrolebinding e2e-whatif-reader --clusterrole=e2e-whatif-reader \
  --serviceaccount=e2e-whatif:reader >/dev/null
READER_TOKEN="$(kc create token reader -n e2e-whatif --duration=1h)"
# One who may list nodes and pods only: the other kinds are skipped with a warning.
kc create serviceaccount narrow -n e2e-whatif >/dev/null
kc create clusterrole e2e-whatif-narrow --verb=list --resource=nodes,pods >/dev/null
kc create clusterrolebinding e2e-whatif-narrow --clusterrole=e2e-whatif-narrow \
  --serviceaccount=e2e-whatif:narrow >/dev/null
NARROW_TOKEN="$(kc create token narrow -n e2e-whatif --duration=1h)"
token_kubeconfig "$WORK/ksched.kubeconfig" "$KSCHED_TOKEN" e2e-whatif
token_kubeconfig "$WORK/reader.kubeconfig" "$READER_TOKEN" e2e-whatif
token_kubeconfig "$WORK/narrow.kubeconfig" "$NARROW_TOKEN" e2e-whatif

cat >"$WORK/config.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: $WORK/ksched.kubeconfig}
leaderElection: {leaderElect: false}
profiles:
- schedulerName: ksched
YAML
start_secure_ksched --config "$WORK/config.yaml" --explain-record-size=100

node() { # NAME CPU LABELS [TAINTS]
  cat <<YAML
---
apiVersion: v1
kind: Node
metadata:
  name: $1
  labels: {kubernetes.io/hostname: $1, $3}
spec: {taints: [${4:-}]}
status:
  capacity: {cpu: "$2", memory: 16Gi, pods: "110"}
  allocatable: {cpu: "$2", memory: 16Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
YAML
}
{
  node n-a 2 "zone: a"
  node n-b 2 "zone: b"
  node n-c 4 "zone: c" "{key: dedicated, value: c, effect: NoSchedule}"
  cat <<'YAML'
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: e2e-low}
value: 10
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: e2e-high}
value: 1000
YAML
} >"$WORK/cluster.yaml"
kc create -f "$WORK/cluster.yaml" >/dev/null

pod() { # NAME CPU PRIORITYCLASS NODESELECTOR [TOLERATIONS]
  cat <<YAML
---
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  schedulerName: ksched
  priorityClassName: $3
  terminationGracePeriodSeconds: 0
  nodeSelector: {$4}
  tolerations: [${5:-}]
  containers:
  - {name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "$2"}}}
YAML
}
TOLERATE_C="{key: dedicated, operator: Equal, value: c, effect: NoSchedule}"
# The victim-to-be: 3 of n-c's 4 CPUs, low priority.
pod victim 3 e2e-low "zone: c" "$TOLERATE_C" | kc create -n e2e-whatif -f - >/dev/null
victim_bound() { [ "$(kc get pod victim -n e2e-whatif -o jsonpath='{.spec.nodeName}')" = n-c ]; }
check "ksched binds the victim-to-be to n-c" wait_for 30 victim_bound

# The what-if pods (no namespace: -n's / the context's, e2e-whatif):
# p-a and p-b forced onto n-a and n-b by zone; p-c onto n-c, where it
# needs 2 CPUs of which 1 is free: it preempts the victim.
{
  pod p-a 1 e2e-low "zone: a"
  pod p-b 1 e2e-low "zone: b"
  pod p-c 2 e2e-high "zone: c" "$TOLERATE_C"
} >"$WORK/pods.yaml"

VICTIM_RV="$(kc get pod victim -n e2e-whatif -o jsonpath='{.metadata.resourceVersion}')"
whatif() {
  "$PLUGIN" what-if -f "$WORK/pods.yaml" --config "$WORK/config.yaml" --kubeconfig "$WORK/reader.kubeconfig" \
    --chunk-size 2 "$@"
}
run_whatif() {
  whatif -o json >"$WORK/whatif.json" 2>"$WORK/whatif.err"
  cat "$WORK/whatif.err"
  grep -q "listing nodes: 3 (2 pages)" "$WORK/whatif.err"
}
check "what-if as a get/list/watch-only user, paginated" run_whatif
narrow_user() {
  "$PLUGIN" what-if -f "$WORK/pods.yaml" --config "$WORK/config.yaml" --kubeconfig "$WORK/narrow.kubeconfig" \
    -o json >"$WORK/narrow.json" 2>"$WORK/narrow.err"
  grep -q "warning: you may not list persistentvolumes" "$WORK/narrow.err"
  [ "$(json_get "$WORK/narrow.json" "len(d['pods'])")" = 3 ]
}
check "what-if as a user who may list only nodes and pods: the rest skipped with warnings" narrow_user
placed() { json_get "$WORK/whatif.json" "{p['name']: p['node'] for p in d['pods']}['$1']"; }
victims() { json_get "$WORK/whatif.json" "','.join(v['namespace']+'/'+v['name'] for p in d['pods'] if p['name']=='$1' for v in p['victims'])"; }
expected_whatif() {
  [ "$(placed p-a)" = n-a ] && [ "$(placed p-b)" = n-b ] && [ "$(placed p-c)" = n-c ]
  [ "$(victims p-c)" = e2e-whatif/victim ]
}
check "what-if: p-a on n-a, p-b on n-b, p-c on n-c preempting e2e-whatif/victim" expected_whatif
whatif >"$WORK/whatif.txt" 2>/dev/null || true
cat "$WORK/whatif.txt"
check "what-if text: the victim in p-c's row" grep -Eq "^e2e-whatif +p-c +1000 +n-c +.*e2e-whatif/victim" "$WORK/whatif.txt"
whatif --explain -o html >"$WORK/whatif.html" 2>/dev/null || true
check "what-if -o html: the self-contained page" grep -q "<!DOCTYPE html>" "$WORK/whatif.html"
nothing_written() {
  [ "$(kc get pod victim -n e2e-whatif -o jsonpath='{.metadata.resourceVersion}')" = "$VICTIM_RV" ]
  [ -z "$(kc get pods -n e2e-whatif -o name | grep -v '^pod/victim$')" ]
}
check "what-if wrote nothing (the victim untouched, no new pod)" nothing_written
refused_write() { ! kubectl --kubeconfig "$WORK/reader.kubeconfig" create -f "$WORK/pods.yaml" 2>/dev/null; }
check "the what-if user may not create pods" refused_write

# The same pods for real.
kc create -n e2e-whatif -f "$WORK/pods.yaml" >/dev/null
node_of() { kc get pod "$1" -n e2e-whatif -o jsonpath='{.spec.nodeName}'; }
all_bound() { [ -n "$(node_of p-a)" ] && [ -n "$(node_of p-b)" ] && [ -n "$(node_of p-c)" ]; }
check "ksched binds the created pods" wait_for 60 all_bound
agrees() {
  for p in p-a p-b p-c; do
    echo "$p: what-if $(placed $p), ksched $(node_of $p)"
    [ "$(placed $p)" = "$(node_of $p)" ]
  done
}
check "ksched's placements are what-if's" agrees
victim_gone() { ! kc get pod victim -n e2e-whatif >/dev/null 2>&1; }
check "ksched preempted what-if's victim" wait_for 10 victim_gone

# why, on the real control plane.
why() { "$PLUGIN" why "$@" --endpoint "$EP" --insecure-skip-tls-verify --kubeconfig "$K8S_KUBECONFIG" -n e2e-whatif; }
# 3 CPUs, no toleration: n-a and n-b have 1 free, n-c is tainted.
pod huge 3 e2e-low "" | kc create -n e2e-whatif -f - >/dev/null
event_message() {
  kc get events -n e2e-whatif --field-selector involvedObject.name=huge,reason=FailedScheduling \
    -o jsonpath='{.items[0].message}' >"$WORK/event.txt"
  grep -q "nodes are available" "$WORK/event.txt"
}
check "the API server holds huge's FailedScheduling event" wait_for 30 event_message
cat "$WORK/event.txt"; echo
why_pending() {
  why huge >"$WORK/why1.txt"
  cat "$WORK/why1.txt"
  grep -q "unschedulable since .*, rejected by" "$WORK/why1.txt"
  # The event's sentence, up to the preemption part, is why's.
  grep -qF "$(sed 's/ preemption:.*//' "$WORK/event.txt")" "$WORK/why1.txt"
  grep -Eq "^ +2 +NodeResourcesFit +Insufficient cpu$" "$WORK/why1.txt"
  grep -Eq "^ +1 +TaintToleration +node\(s\) had untolerated taint" "$WORK/why1.txt"
  grep -q "Node Add/UpdateNodeAllocatable.*(NodeResourcesFit" "$WORK/why1.txt"
}
check "why: the event's counts per plugin, and the requeue event" why_pending
node n-d 8 "zone: d" | kc create -f - >/dev/null
huge_bound() { [ "$(node_of huge)" = n-d ]; }
check "a Node that fits is added: huge binds there" wait_for 30 huge_bound
why_bound() {
  why huge >"$WORK/why2.txt"
  grep -q "bound to node n-d" "$WORK/why2.txt"
  grep -q "Scheduled on n-d" "$WORK/why2.txt"
}
check "why: huge bound to n-d" wait_for 10 why_bound
cat "$WORK/why2.txt"
pod web 100m e2e-low "" | kc create -n e2e-whatif -f - >/dev/null
web_bound() { [ -n "$(node_of web)" ]; }
check "web (fits n-a, n-b, n-d) binds" wait_for 30 web_bound
why_scores() {
  why web >"$WORK/why3.txt"
  cat "$WORK/why3.txt"
  grep -q "Best nodes of 3 scored" "$WORK/why3.txt"
  grep -Eq "^ +$(node_of web) \* +[0-9]+ " "$WORK/why3.txt"
}
check "why: the scores that chose web's node" why_scores
refused() {
  ! "$PLUGIN" why web --endpoint "$EP" --insecure-skip-tls-verify --token "$READER_TOKEN" -n e2e-whatif \
    >"$WORK/refused.txt" 2>&1
  cat "$WORK/refused.txt"
  grep -q "403" "$WORK/refused.txt"
}
check "why: a user without ksched-explain-reader is refused" refused
check "ksched still running" kill -0 "$KSCHED_PID"

echo "whatif: $PASSED passed, $FAILED failed"
((FAILED == 0))
