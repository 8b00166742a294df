#!/usr/bin/env bash
# End-to-end test of /debug/explain and kubectl-ksched against
# kube-apiserver-lite: a pod that cannot fit -> `kubectl ksched why` names
# the rejecting plugin, the FailedScheduling counts and the requeue event;
# a node that fits is added -> the pod is bound and `why` shows the scores
# that chose its node; `queue`; `-o json` parses; without --endpoint the
# leader is found from the Lease. (Authorization of /debug/explain needs a
# real API server: explain_authz_test.sh.)
#
# Usage: explain_test.sh KSCHED KUBECTL_KSCHED KUBE_APISERVER_LITE
# Prints "N passed, M failed"; exits non-zero on a failure. KEEP_WORK=1
# keeps the logs and outputs.
set -euo pipefail

KSCHED="${1:?usage: explain_test.sh KSCHED KUBECTL_KSCHED KUBE_APISERVER_LITE}"
PLUGIN="${2:?}"
APISERVER="${3:?}"
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [[ -n "${KEEP_WORK:-}" ]]; then echo "logs kept in $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
command -v kubectl >/dev/null || { echo "SKIP: no kubectl"; exit 77; }

# check, free_port, wait_for, json_get; PASSED and FAILED.
source "$(dirname "$0")/lib.sh"

"$APISERVER" --port=0 >"$WORK/apiserver.log" 2>&1 &
PIDS+=($!)
wait_for 10 grep -q "listening on" "$WORK/apiserver.log" || { cat "$WORK/apiserver.log" >&2; exit 1; }
URL="$(sed -n 's/^.*kube-apiserver-lite listening on //p' "$WORK/apiserver.log" | head -1)"
k() { kubectl --server "$URL" --cache-dir "$WORK/kcache" --request-timeout=10s "$@"; }

node() {
  cat <<YAML
---
apiVersion: v1
kind: Node
metadata:
  name: $1
  labels: {kubernetes.io/hostname: $1}
status:
  capacity: {cpu: "$2", memory: 16Gi, pods: "110"}
  allocatable: {cpu: "$2", memory: 16Gi, pods: "110"}
YAML
}
{
  echo "apiVersion: v1"
  echo "kind: Namespace"
  echo "metadata: {name: ksched-system}"
  node small-1 2
  node small-2 2
} >"$WORK/cluster.yaml"
k create -f "$WORK/cluster.yaml" >/dev/null

cat >"$WORK/config.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  resourceName: ksched
  resourceNamespace: ksched-system
profiles:
- schedulerName: ksched
YAML
PORT="$(free_port)"
"$KSCHED" --master "$URL" --config "$WORK/config.yaml" --secure-port=0 --http-port="$PORT" \
  --explain-record-size=100 >"$WORK/ksched.log" 2>&1 &
PIDS+=($!)
EP="http://127.0.0.1:$PORT"
leads() { grep -q "leader acquired" "$WORK/ksched.log"; }
wait_for 15 leads || { tail -20 "$WORK/ksched.log" >&2; exit 1; }

cat >"$WORK/big.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec:
  schedulerName: ksched
  containers:
  - name: c
    image: registry.k8s.io/pause:3.10
    resources: {requests: {cpu: "3"}}
YAML
k create -f "$WORK/big.yaml" >/dev/null

why() { "$PLUGIN" why "$@" --endpoint "$EP"; }
rejected() {
  why big >"$WORK/why1.txt"
  grep -q "unschedulable since .*, rejected by NodeResourcesFit" "$WORK/why1.txt"
}
check "why: the pod is unschedulable, rejected by NodeResourcesFit" wait_for 15 rejected
cat "$WORK/why1.txt"
check "why: the FailedScheduling sentence" grep -q "0/2 nodes are available: 2 Insufficient cpu." "$WORK/why1.txt"
check "why: the counts per plugin and reason" grep -Eq "^ +2 +NodeResourcesFit +Insufficient cpu$" "$WORK/why1.txt"
check "why: the requeue event of NodeResourcesFit" grep -q "Node Add/UpdateNodeAllocatable.*(NodeResourcesFit" "$WORK/why1.txt"
json_why() {
  why default/big -o json >"$WORK/why1.json"
  [ "$(json_get "$WORK/why1.json" 'd["lastAttempt"]["filterCounts"][0]["plugin"]')" = NodeResourcesFit ]
  [ "$(json_get "$WORK/why1.json" 'd["lastAttempt"]["filterCounts"][0]["nodes"]')" = 2 ]
  [ "$(json_get "$WORK/why1.json" 'd["location"]')" = unschedulable ]
}
check "why -o json parses and carries the counts" json_why
queue_text() {
  "$PLUGIN" queue --endpoint "$EP" >"$WORK/queue.txt"
  cat "$WORK/queue.txt"
  grep -Eq "^  unschedulable +1$" "$WORK/queue.txt"
  grep -Eq "^  NodeResourcesFit +1$" "$WORK/queue.txt"
  grep -q "default/big" "$WORK/queue.txt"
}
check "queue: counts, rejecting plugin, oldest pod" queue_text
queue_json() {
  "$PLUGIN" queue --endpoint "$EP" -o json >"$WORK/queue.json"
  [ "$(json_get "$WORK/queue.json" 'd["counts"]["unschedulable"]')" = 1 ]
  [ "$(json_get "$WORK/queue.json" 'd["attempts"]["total"] >= 1')" = True ]
}
check "queue -o json parses" queue_json

# A node that fits: Node/Add requeues the pod, which binds there (the one
# feasible node: kube-scheduler scores nothing then).
node big-1 8 | k create -f - >/dev/null
bound() { [ "$(k get pod big -o jsonpath='{.spec.nodeName}')" = big-1 ]; }
check "the pod binds once a node fits" wait_for 20 bound
shows_bound() {
  why big >"$WORK/why2.txt"
  grep -q "bound to node big-1" "$WORK/why2.txt"
}
check "why: bound to the new node" wait_for 10 shows_bound
cat "$WORK/why2.txt"
check "why: the attempt that chose it" grep -q "Scheduled on big-1" "$WORK/why2.txt"
check "why: it was the one feasible node" grep -q "3 nodes, 3 evaluated, 1 feasible" "$WORK/why2.txt"

# A pod that fits everywhere: the scores of every node, the chosen one marked.
sed -e 's/name: big,/name: web,/' -e 's/cpu: "3"/cpu: 500m/' "$WORK/big.yaml" | k create -f - >/dev/null
web_bound() { [ -n "$(k get pod web -o jsonpath='{.spec.nodeName}')" ]; }
check "a pod that fits everywhere binds" wait_for 20 web_bound
WEB_NODE="$(k get pod web -o jsonpath='{.spec.nodeName}')"
why web >"$WORK/why3.txt" || true
cat "$WORK/why3.txt"
check "why: the scores table marks the chosen node" grep -Eq "^ +$WEB_NODE \* +[0-9]+ " "$WORK/why3.txt"
check "why: every feasible node is scored" grep -q "Best nodes of 3 scored" "$WORK/why3.txt"
check "why: per-plugin columns with weights" grep -Eq "TaintToleration x3 .*NodeResourcesFit x1" "$WORK/why3.txt"
scores_json() {
  why web -o json >"$WORK/why3.json"
  [ "$(json_get "$WORK/why3.json" 'd["lastAttempt"]["topNodes"][0]["node"]')" = "$WEB_NODE" ]
  json_get "$WORK/why3.json" '[s["raw"] for s in d["lastAttempt"]["topNodes"][0]["scores"]]'
}
check "why -o json: the top node is the chosen one, raw scores given" scores_json
check "--help for every command" bash -c "'$PLUGIN' --help | grep -q 'why POD' && '$PLUGIN' why --help | grep -q 'Usage: kubectl ksched why' && '$PLUGIN' queue --help | grep -q 'Usage: kubectl ksched queue'"
bad_flag() { ! "$PLUGIN" why big --bogus 2>"$WORK/bad.txt" && grep -q -- "--bogus" "$WORK/bad.txt"; }
check "an unknown flag is refused" bad_flag

# Without --endpoint: the leader pod from the Lease; kube-apiserver-lite has
# no pods/portforward, so the tunnel itself fails after the discovery.
cat >"$WORK/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: lite
  cluster: {server: $URL}
users:
- name: anyone
  user: {}
contexts:
- name: lite
  context: {cluster: lite, user: anyone, namespace: default}
current-context: lite
KC
holder="$(k get lease ksched -n ksched-system -o jsonpath='{.spec.holderIdentity}')"
discovers() {
  ! PATH="$PATH" "$PLUGIN" why big --kubeconfig "$WORK/kubeconfig" >"$WORK/lease.out" 2>&1
  cat "$WORK/lease.out"
  grep -q "ksched leader: pod ksched-system/${holder%_*}" "$WORK/lease.out"
}
check "without --endpoint: the leader pod from the Lease" discovers

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
