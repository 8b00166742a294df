#!/usr/bin/env bash
# End-to-end test of kube-apiserver-lite with the real kubectl.
#
# Usage: test/e2e/kubectl_test.sh [path/to/kube-apiserver-lite]
#   (or KUBE_APISERVER_LITE=...; default build/kube-apiserver-lite).
# Run from the project root (ctest does): the shared fixtures are read from
# ../shared/fixtures. Starts the server on a free port, drives it with
# `kubectl --server http://127.0.0.1:PORT` (no kubeconfig), prints
# "N passed, M failed" and exits non-zero on any failure. The server and the
# temporary directory are cleaned up on exit.
set -euo pipefail

BIN="${1:-${KUBE_APISERVER_LITE:-build/kube-apiserver-lite}}"
FIXTURE="../shared/fixtures/manifests/website__content__en__examples__admin__sched__pod1.yaml"
WORK="$(mktemp -d)"
SERVER_PID=""
WATCH_PID=""

cleanup() {
  for pid in "$WATCH_PID" "$SERVER_PID"; do
    if [[ -n "$pid" ]]; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

[[ -x "$BIN" ]] || { echo "kube-apiserver-lite binary not found: $BIN" >&2; exit 2; }
[[ -f "$FIXTURE" ]] || { echo "fixture not found (run from the project root): $FIXTURE" >&2; exit 2; }

"$BIN" --port=0 --v=4 --simulate-kubelet --simulate-kubelet-delay-ms=50 \
  >"$WORK/server.out" 2>"$WORK/server.err" &
SERVER_PID=$!
for _ in $(seq 1 100); do
  grep -q "listening on" "$WORK/server.out" 2>/dev/null && break
  sleep 0.1
done
URL="$(sed -n 's/^kube-apiserver-lite listening on //p' "$WORK/server.out")"
[[ -n "$URL" ]] || { echo "server did not start:" >&2; cat "$WORK/server.err" >&2; exit 1; }
echo "server: $URL"

k() { kubectl --server "$URL" --cache-dir "$WORK/cache" --request-timeout=10s "$@"; }

# check, free_port, wait_for, json_get; PASSED and FAILED.
source "$(dirname "$0")/lib.sh"
# fails COMMAND...: succeeds only when the command fails (`! cmd` would not
# trip errexit).
fails() {
  if "$@"; then
    echo "expected a failure: $*"
    return 1
  fi
  return 0
}
# eq ACTUAL EXPECTED
eq() {
  if [[ "$1" != "$2" ]]; then
    echo "expected '$2', got '$1'"
    return 1
  fi
}

# ---------------------------------------------------------------- manifests
cat >"$WORK/nodes.yaml" <<'EOF'
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: {topology.kubernetes.io/zone: zone-a}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: node-b
  labels: {topology.kubernetes.io/zone: zone-b}
spec:
  taints:
  - {key: dedicated, value: batch, effect: NoSchedule}
status:
  capacity: {cpu: "8", memory: 16Gi, pods: "110"}
  allocatable: {cpu: "7500m", memory: 15Gi, pods: "110"}
EOF

cat >"$WORK/web.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  schedulerName: ksched
  containers:
  - name: nginx
    image: nginx:1.27
    resources:
      requests: {cpu: 500m, memory: 256Mi}
      limits: {cpu: "1", memory: 512Mi}
EOF

cat >"$WORK/binding.json" <<'EOF'
{"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "web"},
 "target": {"apiVersion": "v1", "kind": "Node", "name": "node-a"}}
EOF

cat >"$WORK/event.yaml" <<'EOF'
apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: web.scheduled
  namespace: default
eventTime: "2026-01-01T00:00:00.000000Z"
reportingController: ksched
reportingInstance: ksched-0
action: Binding
reason: Scheduled
type: Normal
regarding: {apiVersion: v1, kind: Pod, name: web, namespace: default}
note: Successfully assigned default/web to node-a
EOF

cat >"$WORK/team.yaml" <<'EOF'
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: ksched
  namespace: team
spec:
  holderIdentity: ksched-0
  leaseDurationSeconds: 15
EOF

# -------------------------------------------------------------------- tests
t_version() {
  k version -o json >"$WORK/version.json" 2>/dev/null || true
  eq "$(json_get "$WORK/version.json" 'd["serverVersion"]["gitVersion"]')" "v1.34.0-ksched-lite"
}
check "kubectl version reaches the server" t_version

t_api_resources() {
  k api-resources >"$WORK/res.txt"
  grep -Eq '^pods +po +v1 +true +Pod' "$WORK/res.txt"
  grep -Eq '^leases +coordination.k8s.io/v1 +true +Lease' "$WORK/res.txt"
  grep -Eq '^poddisruptionbudgets +pdb +policy/v1' "$WORK/res.txt"
}
check "api-resources (discovery)" t_api_resources

t_create_nodes() {
  k create -f "$WORK/nodes.yaml"
  k get nodes -o json >"$WORK/nodes.json"
  eq "$(json_get "$WORK/nodes.json" 'len(d["items"])')" "2"
  eq "$(json_get "$WORK/nodes.json" 'd["items"][0]["status"]["allocatable"]["cpu"]')" "4"
  eq "$(json_get "$WORK/nodes.json" 'd["items"][1]["spec"]["taints"][0]["key"]')" "dedicated"
}
check "create nodes from YAML, get -o json" t_create_nodes

t_nodes_ready() {
  wait_for 10 bash -c "kubectl --server $URL --cache-dir $WORK/cache get nodes --no-headers | grep -c ' Ready ' | grep -qx 2"
}
check "simulated kubelet marks nodes Ready" t_nodes_ready

t_create_fixture_pod() {
  k create -f "$FIXTURE"
  eq "$(k get pod no-annotation -o jsonpath='{.spec.schedulerName}')" "default-scheduler"
  eq "$(k get pod no-annotation -o jsonpath='{.status.phase}')" "Pending"
  eq "$(k get pod no-annotation -o jsonpath='{.spec.priority}')" "0"
  [[ -n "$(k get pod no-annotation -o jsonpath='{.metadata.uid}')" ]]
}
check "create the shared fixture pod (no --validate=false)" t_create_fixture_pod

t_create_conflict() {
  fails k create -f "$FIXTURE" 2>"$WORK/err.txt"
  grep -q 'AlreadyExists' "$WORK/err.txt"
}
check "create twice is AlreadyExists" t_create_conflict

# The watch runs in the background from here to the end of the script.
k get pods --watch-only -o name >"$WORK/watch.txt" 2>"$WORK/watch.err" &
WATCH_PID=$!
t_watch() {
  # The server logs each watch it starts at --v=4.
  wait_for 10 grep -q 'WATCH /api/v1/namespaces/default/pods?.*watch=true' "$WORK/server.err"
  k apply -f "$WORK/web.yaml"
  wait_for 10 grep -qx 'pod/web' "$WORK/watch.txt"
}
check "get -w sees a pod created by apply -f" t_watch

t_apply_again() {
  k apply -f "$WORK/web.yaml" | grep -q 'unchanged'
  sed 's/app: web}/app: web, tier: front}/' "$WORK/web.yaml" >"$WORK/web2.yaml"
  k apply -f "$WORK/web2.yaml" | grep -q 'configured'
  eq "$(k get pod web -o jsonpath='{.metadata.labels.tier}')" "front"
  eq "$(k get pod web -o jsonpath='{.spec.schedulerName}')" "ksched"
  eq "$(k get pod web -o jsonpath='{.status.qosClass}')" "Burstable"
}
check "apply is idempotent, then configures a change" t_apply_again

t_bind() {
  k create --raw /api/v1/namespaces/default/pods/web/binding -f "$WORK/binding.json" >"$WORK/bind.json"
  eq "$(json_get "$WORK/bind.json" 'd["status"]')" "Success"
  eq "$(k get pod web -o jsonpath='{.spec.nodeName}')" "node-a"
  eq "$(k get pod web -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status}')" "True"
}
check "bind a pod through pods/web/binding" t_bind

t_double_bind() {
  fails k create --raw /api/v1/namespaces/default/pods/web/binding -f "$WORK/binding.json" \
    2>"$WORK/err.txt"
  grep -q 'already assigned to node' "$WORK/err.txt" || grep -q 'Conflict' "$WORK/err.txt"
  eq "$(k get pod web -o jsonpath='{.spec.nodeName}')" "node-a"
}
check "binding again is 409 Conflict" t_double_bind

t_running() {
  wait_for 10 bash -c "[[ \$(kubectl --server $URL --cache-dir $WORK/cache get pod web -o jsonpath='{.status.phase}') == Running ]]"
  k get pods -o wide | grep -Eq '^web +1/1 +Running .* node-a'
}
check "simulated kubelet runs the bound pod (get -o wide)" t_running

t_watch_saw_updates() {
  # ADDED, the binding, the simulated kubelet's status update.
  wait_for 10 bash -c "(( \$(grep -c 'pod/web' $WORK/watch.txt) >= 3 ))"
}
check "the watch saw the updates" t_watch_saw_updates

t_patch() {
  k patch pod web -p '{"metadata":{"labels":{"patched":"strategic"}}}'
  k patch pod web --type merge -p '{"metadata":{"annotations":{"note":"merge"}}}'
  k patch pod web --type json -p '[{"op":"add","path":"/metadata/labels/jp","value":"yes"}]'
  k label pod web extra=1
  k get pod web -o json >"$WORK/web.json"
  eq "$(json_get "$WORK/web.json" 'd["metadata"]["labels"]["patched"]')" "strategic"
  eq "$(json_get "$WORK/web.json" 'd["metadata"]["annotations"]["note"]')" "merge"
  eq "$(json_get "$WORK/web.json" 'd["metadata"]["labels"]["jp"]')" "yes"
  eq "$(json_get "$WORK/web.json" 'd["metadata"]["labels"]["extra"]')" "1"
}
check "patch (strategic, merge, json) and label" t_patch

t_status_patch() {
  k patch pod no-annotation --subresource=status --type merge \
    -p '{"status":{"nominatedNodeName":"node-b"}}'
  eq "$(k get pod no-annotation -o jsonpath='{.status.nominatedNodeName}')" "node-b"
}
check "patch the status subresource" t_status_patch

t_selectors() {
  eq "$(k get pods -l app=web -o name)" "pod/web"
  eq "$(k get pods --field-selector spec.nodeName=node-a -o name)" "pod/web"
  eq "$(k get pods --field-selector status.phase=Pending -o name)" "pod/no-annotation"
  fails k get pods --field-selector spec.bogus=x 2>"$WORK/err.txt"
  grep -q 'field label not supported' "$WORK/err.txt"
}
check "label and field selectors" t_selectors

t_chunked_list() {
  for i in $(seq 1 12); do
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: bulk-%02d}\nspec:\n  containers: [{name: c, image: pause}]\n---\n' "$i"
  done >"$WORK/bulk.yaml"
  k create -f "$WORK/bulk.yaml" >/dev/null
  eq "$(k get pods --chunk-size=5 -o name | grep -c bulk-)" "12"
  k delete -f "$WORK/bulk.yaml" --wait=false >/dev/null
  eq "$(k get pods -o name | grep -c bulk- || true)" "0"
}
check "paginated list (--chunk-size) and delete -f" t_chunked_list

t_events() {
  k create -f "$WORK/event.yaml"
  k get events -o json >"$WORK/events.json"
  eq "$(json_get "$WORK/events.json" 'd["items"][0]["message"]')" "Successfully assigned default/web to node-a"
  eq "$(json_get "$WORK/events.json" 'd["items"][0]["involvedObject"]["name"]')" "web"
}
check "events.k8s.io event shows in core events" t_events

t_namespace_and_lease() {
  k create namespace team  # a generator: kubectl sends this one as protobuf
  k create pdb team-pdb -n team --selector=app=web --min-available=1
  eq "$(k -n team get pdb team-pdb -o jsonpath='{.spec.selector.matchLabels.app}')" "web"
  k apply -f "$WORK/team.yaml"
  eq "$(k -n team get lease ksched -o jsonpath='{.spec.holderIdentity}')" "ksched-0"
  k delete namespace team
  fails k -n team get lease ksched 2>/dev/null
  fails k -n team get pdb team-pdb 2>/dev/null
  fails k get namespace team 2>/dev/null
}
check "create namespace/pdb (protobuf), lease; delete the namespace" t_namespace_and_lease

t_missing_namespace() {
  fails k -n nowhere create -f "$WORK/web.yaml" 2>"$WORK/err.txt"
  grep -q 'namespaces "nowhere" not found' "$WORK/err.txt"
}
check "create in a missing namespace is NotFound" t_missing_namespace

t_delete() {
  k delete pod web
  fails k get pod web 2>"$WORK/err.txt"
  grep -q 'NotFound' "$WORK/err.txt"
  k delete node node-b
  eq "$(k get nodes -o name)" "node/node-a"
}
check "delete pod and node" t_delete

t_custom_resources() {
  k apply -f manifests/crds/scheduling.x-k8s.io_podgroups.yaml
  k wait --for=condition=Established --timeout=10s crd/podgroups.scheduling.x-k8s.io
  k api-resources --api-group=scheduling.x-k8s.io -o name | grep -qx 'podgroups.scheduling.x-k8s.io'
  cat >"$WORK/pg.yaml" <<'YAML'
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: gang}
spec: {minMember: 3}
YAML
  k apply -f "$WORK/pg.yaml"
  eq "$(k get pg gang -o jsonpath='{.spec.minMember}')" "3"
  k patch podgroup gang --subresource=status --type=merge -p '{"status":{"phase":"Scheduling"}}'
  eq "$(k get podgroups.scheduling.x-k8s.io gang -o jsonpath='{.status.phase}')" "Scheduling"
  k delete crd podgroups.scheduling.x-k8s.io
  fails k get podgroups 2>/dev/null
}
check "a CRD serves its custom resources (PodGroup): apply, get, status patch, delete" t_custom_resources

t_raw() {
  eq "$(k get --raw /healthz)" "ok"
  eq "$(k get --raw /readyz)" "ok"
}
check "health endpoints" t_raw

echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
