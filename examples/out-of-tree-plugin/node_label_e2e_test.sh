#!/usr/bin/env bash
# The out-of-tree example end to end: ksched-with-nodelabel (ksched plus the
# NodeLabel plugin, built by ksched_add_scheduler) against
# kube-apiserver-lite. Its configuration enables NodeLabel as the only Score
# plugin with the weight map {gold: 100, silver: 40} over the label
# example.com/tier; pods must land on the gold nodes, and pods that cannot
# use a gold node (a nodeSelector) on the silver one rather than the
# unlabelled ones. A configuration with a bad weight is rejected with the
# file position.
#
# Usage: examples/out-of-tree-plugin/node_label_e2e_test.sh path/to/ksched-with-nodelabel path/to/kube-apiserver-lite
# Run from the project root (ctest does). Prints "N passed, M failed".
set -euo pipefail

KSCHED="${1:-build/examples/ksched-with-nodelabel}"
APISERVER="${2:-build/kube-apiserver-lite}"
WORK="$(mktemp -d)"
PIDS=()

cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [[ -n "${KEEP_WORK:-}" ]]; then echo "logs kept in $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

[[ -x "$KSCHED" ]] || { echo "binary not found: $KSCHED" >&2; exit 2; }
[[ -x "$APISERVER" ]] || { echo "kube-apiserver-lite binary not found: $APISERVER" >&2; exit 2; }

# check, wait_for; PASSED and FAILED.
source "$(dirname "$0")/../../test/e2e/lib.sh"

"$APISERVER" --port=0 >"$WORK/apiserver.log" 2>&1 &
PIDS+=("$!")
wait_for 10 grep -q "listening on" "$WORK/apiserver.log" || { cat "$WORK/apiserver.log" >&2; exit 1; }
URL="$(sed -n 's/^.*kube-apiserver-lite listening on //p' "$WORK/apiserver.log" | head -1)"
k() { kubectl --server "$URL" --cache-dir "$WORK/kcache" --request-timeout=10s "$@"; }

# node NAME TIER POOL: a node with room for many small pods.
node() {
  cat <<YAML
---
apiVersion: v1
kind: Node
metadata:
  name: $1
  labels: {kubernetes.io/hostname: $1, example.com/tier: "$2", pool: "$3"}
status:
  capacity: {cpu: "16", memory: 64Gi, pods: "110"}
  allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
YAML
}
{
  node gold-1 gold a
  node gold-2 gold a
  node silver-1 silver b
  node plain-1 none b
  node plain-2 none b
} >"$WORK/nodes.yaml"
k create -f "$WORK/nodes.yaml" >/dev/null

cat >"$WORK/config.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
- schedulerName: nodelabel-scheduler
  plugins:
    score:
      disabled:
      - name: "*"
      enabled:
      - name: NodeLabel
  pluginConfig:
  - name: NodeLabel
    args:
      labelKey: example.com/tier
      weights:
        gold: 100
        silver: 40
YAML
sed 's/silver: 40/silver: 400/' "$WORK/config.yaml" >"$WORK/bad.yaml"

rejects_bad_weight() {
  if "$KSCHED" --master "$URL" --config "$WORK/bad.yaml" --secure-port=0 >"$WORK/bad.log" 2>&1; then
    echo "started with a weight of 400"
    return 1
  fi
  grep -q 'bad.yaml:19:17: profiles\[0\].pluginConfig\[0\].args.weights.silver: Invalid value: 400: not in valid range \[0, 100\]' \
    "$WORK/bad.log" || { cat "$WORK/bad.log"; return 1; }
}
check "a weight out of range is rejected at start-up with its file position" rejects_bad_weight

writes_config() {
  "$KSCHED" --config "$WORK/config.yaml" --write-config-to "$WORK/written.yaml" >"$WORK/write.log" 2>&1
  grep -q "kind: NodeLabelArgs" "$WORK/written.yaml" && grep -q "gold: 100" "$WORK/written.yaml"
}
check "--write-config-to writes the plugin's args" writes_config

"$KSCHED" --master "$URL" --config "$WORK/config.yaml" --secure-port=0 >"$WORK/ksched.log" 2>&1 &
PIDS+=("$!")

# pods PREFIX COUNT [POOL]: small pods for the profile, optionally held to a pool.
pods() {
  local i
  for ((i = 1; i <= $2; i++)); do
    cat <<YAML
---
apiVersion: v1
kind: Pod
metadata: {name: $1-$i, namespace: default}
spec:
  schedulerName: nodelabel-scheduler
  ${3:+nodeSelector: {pool: $3\}}
  containers:
  - name: c
    image: registry.k8s.io/pause:3.10
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
  done >"$WORK/pods-$1.yaml"
  k create -f "$WORK/pods-$1.yaml" >/dev/null
}
nodes_of() {
  k get pods -n default -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeName}{"\n"}{end}' | grep "^$1-" |
    sed 's/^[^=]*=//'
}
all_bound() { ! nodes_of "$1" | grep -q '^$'; }
# only_on PREFIX NODES-REGEX: every pod of PREFIX is bound to one of NODES.
only_on() {
  if nodes_of "$1" | grep -qvxE "$2"; then
    echo "pods of $1 on:"; nodes_of "$1"
    return 1
  fi
}

pods gold 8
check "the gold pods are bound" wait_for 20 all_bound gold
check "every pod is on a gold node" only_on gold 'gold-1|gold-2'
pods pool-b 4 b
check "the pool-b pods are bound" wait_for 20 all_bound pool-b
check "pods kept off gold prefer silver to unlabelled nodes" only_on pool-b silver-1

echo "$PASSED passed, $FAILED failed"
if ((FAILED > 0)); then
  echo "--- ksched-with-nodelabel log"; tail -30 "$WORK/ksched.log"
  exit 1
fi
