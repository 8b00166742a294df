#!/usr/bin/env bash
# ksched as an operator installs it (README, "Deploying into a cluster"), on
# real kubelets (scripts/k8s-up.sh --kubelets 2), scraped by a real
# Prometheus through kubernetes_sd_configs:
#   1. the image (scripts/image.sh, podman, no registry) saved as an archive
#      and imported into each node's containerd (scripts/k8s-load-image.sh);
#   2. the serving-certificate Secret made with openssl as the README says,
#      `helm install` with only the image's repository and tag set; the
#      Pods (placed by the default kube-scheduler) become Ready through their
#      probes, talk to the API server in-cluster, run as 65532 on a read-only
#      root filesystem, and one holds the Lease under its Pod's name;
#   3. a Deployment with schedulerName ksched sized to fill both nodes' CPU
#      allocatable, plus 3 pods too many: the rest Running, those Pending
#      with ksched's FailedScheduling, no kubelet rejection; `kubectl ksched
#      why` on a Pending one through a port-forward to the leader's pod;
#   4. `helm upgrade` with another scoring strategy rolls both replicas; a
#      new Pod leads; no pod is re-bound; pods added after the roll are
#      bound by the new leader; a higher-priority pod preempts one;
#   5. Prometheus (Debian's package, run in the cluster's network namespace)
#      discovers ksched through its Service's EndpointSlices as the chart's
#      ServiceMonitor selects it and scrapes HTTPS with the token of the
#      ServiceAccount the chart authorizes (monitoring/prometheus-k8s): up,
#      scheduled attempts, every query of dashboards/ksched.json; a scrape
#      without a token is refused;
#   6. `helm uninstall` leaves no object of the chart; the Lease (written by
#      ksched, not helm) is left released, and deleting the namespace, as the
#      README says, removes it with the Secret.
#
# Usage: test/e2e/helm_nodes_test.sh [BUILD_DIR] (from the project root;
# BUILD_DIR/ksched is the binary the image holds; K8S_BIN, default
# BUILD_DIR/k8s/bin, holds the control plane, kubelet, kube-proxy and helm).
# Needs root and what nodes_test.sh needs, podman and prometheus; exits 77
# (skipped) when one is missing. Prints "N passed, M failed". KEEP_WORK=1
# keeps the cluster's logs.
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="$(cd "${1:-$repo/build}" && pwd)"
export K8S_BIN="${K8S_BIN:-$BUILD/k8s/bin}"
HELM="$K8S_BIN/helm"
for b in "$K8S_BIN/kube-apiserver" "$K8S_BIN/kubelet" "$K8S_BIN/kube-proxy" "$HELM" "$BUILD/ksched"; do
  [ -x "$b" ] || { echo "SKIP: no $b (make build k8s)"; exit 77; }
done
# Debian's prometheus is built without Kubernetes service discovery:
# `make k8s` builds Prometheus from its Go module (test/k8s/prometheus).
PROMETHEUS="${PROMETHEUS:-$K8S_BIN/prometheus}"
[ -x "$PROMETHEUS" ] || { echo "SKIP: no $PROMETHEUS (make k8s)"; exit 77; }
for b in containerd runc ctr nsenter iptables gcc busybox kubectl podman openssl; do
  command -v "$b" >/dev/null || { echo "SKIP: $b is missing (scripts/install-deps.sh)"; exit 77; }
done
[ -x /usr/lib/cni/bridge ] || { echo "SKIP: containernetworking-plugins missing"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces, containers)"; exit 77; }

WORK="$(mktemp -d)"
# check, wait_for; PASSED and FAILED.
source "$repo/test/e2e/lib.sh"
C="$WORK/cluster"
TAG="e2e-$$"
IMAGE_REPO=ksched.test/ksched
PROM_PID=""
cleanup() {
  if [ -n "$PROM_PID" ]; then kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null || true; fi
  bash "$repo/scripts/k8s-down.sh" "$C" >/dev/null 2>&1 || true
  KSCHED_IMAGE="$IMAGE_REPO:$TAG" bash "$repo/scripts/image.sh" rmi >/dev/null 2>&1 || true
  if [ -n "${KEEP_WORK:-}" ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
start=$SECONDS
phase() { echo "-- $1 (at $((SECONDS - start)) s)"; }

export XDG_CACHE_HOME="$WORK/xdg/cache" XDG_CONFIG_HOME="$WORK/xdg/config" XDG_DATA_HOME="$WORK/xdg/data"
kc() { kubectl --kubeconfig "$C/admin.kubeconfig" --request-timeout=30s "$@"; }
helm() { "$HELM" --kubeconfig "$C/admin.kubeconfig" "$@"; }
NS=ksched-system
WL=workload

# --- 1. cluster, image ------------------------------------------------------
phase "cluster with 2 kubelets"
bash "$repo/scripts/k8s-up.sh" "$C" --kubelets 2 >"$WORK/up.log" 2>&1 || {
  echo "k8s-up.sh failed:"; tail -20 "$WORK/up.log"; exit 1
}
netns="$(. "$C/env" && echo "$NODES_NETNS")"
busybox_image="$(. "$C/env" && echo "$NODES_IMAGE_BUSYBOX")"
in_ns() { nsenter --net="/run/netns/$netns" "$@"; }

phase "image"
KSCHED_IMAGE="$IMAGE_REPO:$TAG" bash "$repo/scripts/image.sh" build "$BUILD" 2>"$WORK/image.log" ||
  { cat "$WORK/image.log"; exit 1; }
podman save --format docker-archive -o "$WORK/ksched.tar" "$IMAGE_REPO:$TAG" >/dev/null 2>>"$WORK/image.log"
check "the image is imported into both nodes' containerd" \
  bash "$repo/scripts/k8s-load-image.sh" "$C" "$WORK/ksched.tar"

# --- 2. the serving certificate and helm install ---------------------------------
phase "helm install"
# As the README: a CA and a certificate for ksched.ksched-system.svc.
(
  cd "$WORK" && mkdir tls && cd tls
  openssl req -x509 -newkey rsa:2048 -nodes -days 365 -subj "/CN=ksched-ca" -keyout ca.key -out ca.crt
  openssl req -newkey rsa:2048 -nodes -subj "/CN=ksched.ksched-system.svc" -keyout tls.key -out tls.csr
  printf 'subjectAltName=DNS:ksched.ksched-system.svc,DNS:ksched.ksched-system.svc.cluster.local\nextendedKeyUsage=serverAuth\n' >tls.ext
  openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 365 -extfile tls.ext -out tls.crt
  kc create namespace "$NS"
  kc -n "$NS" create secret generic ksched-serving-cert --from-file=tls.crt --from-file=tls.key --from-file=ca.crt
) >"$WORK/tls.log" 2>&1 || { cat "$WORK/tls.log"; exit 1; }
t=$SECONDS
check "helm install ksched (image repository and tag set) --wait" \
  helm install ksched "$repo/charts/ksched" -n "$NS" --create-namespace \
  --set image.repository="$IMAGE_REPO" --set image.tag="$TAG" --wait --timeout 4m
echo "     installed and Ready in $((SECONDS - t)) s"

ksched_pods() { kc -n "$NS" get pods -l app.kubernetes.io/name=ksched -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'; }
# leader: the pod name in the Lease's holderIdentity (hostname_uuid).
leader() { kc -n "$NS" get lease ksched -o jsonpath='{.spec.holderIdentity}' | sed 's/_[^_]*$//'; }
leader_is_a_pod() {
  local l; l="$(leader)"
  [ -n "$l" ] && ksched_pods | grep -qxF "$l"
}
check "two ksched pods Ready, placed by the default scheduler on the two nodes" python3 -c '
import json, subprocess, sys
pods = json.loads(subprocess.check_output(sys.argv[1:] + ["-o", "json"]))["items"]
assert len(pods) == 2, [p["metadata"]["name"] for p in pods]
for p in pods:
    ready = [c for c in p["status"].get("conditions", []) if c["type"] == "Ready"]
    assert ready and ready[0]["status"] == "True", p["status"]
    assert p["spec"].get("schedulerName") == "default-scheduler"
    assert p["spec"].get("priorityClassName") == "system-cluster-critical"
assert len({p["spec"]["nodeName"] for p in pods}) == 2, "both on one node"
' kubectl --kubeconfig "$C/admin.kubeconfig" -n "$NS" get pods -l app.kubernetes.io/name=ksched
check "the Lease is held under a ksched pod's name" wait_for 30 leader_is_a_pod
leader1="$(leader)"
echo "     leader: $leader1"
check "the leader uses the in-cluster configuration (kubernetes Service, no kubeconfig)" bash -c "
  ! kubectl --kubeconfig '$C/admin.kubeconfig' -n $NS get pod '$leader1' -o jsonpath='{.spec.containers[0]}' | grep -qi kubeconfig &&
  kubectl --kubeconfig '$C/admin.kubeconfig' -n $NS logs '$leader1' | grep 'client connected to https://10.96.0.1:443 .*source in-cluster'"
# container_pid POD: the pid of its ksched process, from the runc state of
# the node's runtime (the pod's containerID names it).
container_pid() {
  local id node
  id="$(kc -n "$NS" get pod "$1" -o jsonpath='{.status.containerStatuses[0].containerID}')"
  node="$(kc -n "$NS" get pod "$1" -o jsonpath='{.spec.nodeName}')"
  runc --root "$C/nodes/$node/runc/k8s.io" state "${id#containerd://}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])'
}
runs_as_65532_read_only() {
  local pid; pid="$(container_pid "$1")"
  grep -E '^Uid:\s+65532\s+65532\s+65532\s+65532' "/proc/$pid/status"
  grep -E '^Gid:\s+65532\s' "/proc/$pid/status"
  # The root mount of its mount namespace is read-only.
  awk '$5 == "/" {print $6}' "/proc/$pid/mountinfo" | grep -E '(^|,)ro(,|$)'
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q '^/usr/local/bin/ksched --config=/etc/ksched/scheduler-config.yaml'
}
for p in $(ksched_pods); do
  check "$p runs as 65532:65532 with a read-only root filesystem" runs_as_65532_read_only "$p"
done

# --- Prometheus, as kube-prometheus runs it ---------------------------------------
phase "prometheus"
# Its ServiceAccount is the chart's default metrics reader
# (metricsReader.serviceAccount: monitoring/prometheus-k8s); service
# discovery needs list/watch on services, endpointslices and pods.
kc apply -f - >/dev/null <<'EOF'
apiVersion: v1
kind: Namespace
metadata: {name: monitoring}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: prometheus-k8s, namespace: monitoring}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: prometheus-k8s-discovery}
rules:
- apiGroups: [""]
  resources: [services, endpoints, pods]
  verbs: [get, list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: prometheus-k8s-discovery}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: prometheus-k8s-discovery}
subjects:
- {kind: ServiceAccount, name: prometheus-k8s, namespace: monitoring}
EOF
mkdir -p "$WORK/prom"
kc -n monitoring create token prometheus-k8s --duration=2h >"$WORK/prom/token"
kc -n "$NS" get secret ksched-serving-cert -o jsonpath='{.data.ca\.crt}' | base64 -d >"$WORK/prom/ksched-ca.crt"
apiserver_url="$(. "$C/env" && echo "$APISERVER_URL")"
# The chart's ServiceMonitor as prometheus-operator renders it: endpoints
# of Services labelled app.kubernetes.io/name=ksched in the release's
# namespace, port "https", job = the Service's name.
cat >"$WORK/prom/prometheus.yml" <<EOF
global:
  scrape_interval: 2s
  scrape_timeout: 1500ms
scrape_configs:
- job_name: serviceMonitor/$NS/ksched/0
  scheme: https
  metrics_path: /metrics
  authorization: {credentials_file: $WORK/prom/token}
  tls_config: {ca_file: $WORK/prom/ksched-ca.crt, server_name: ksched.$NS.svc}
  kubernetes_sd_configs:
  - role: endpointslice
    api_server: $apiserver_url
    namespaces: {names: [$NS]}
    authorization: {credentials_file: $WORK/prom/token}
    tls_config: {ca_file: $C/ca.crt}
  relabel_configs:
  - {action: keep, source_labels: [__meta_kubernetes_service_label_app_kubernetes_io_name], regex: ksched}
  - {action: keep, source_labels: [__meta_kubernetes_endpointslice_port_name], regex: https}
  - {source_labels: [__meta_kubernetes_namespace], target_label: namespace}
  - {source_labels: [__meta_kubernetes_service_name], target_label: service}
  - {source_labels: [__meta_kubernetes_pod_name], target_label: pod}
  - {source_labels: [__meta_kubernetes_service_name], target_label: job}
EOF
prom_port="$(in_ns python3 "$repo/scripts/free-ports.py" 1)"
# nsenter execs Prometheus: $! is its pid, which cleanup stops.
nsenter --net="/run/netns/$netns" "$PROMETHEUS" --config.file="$WORK/prom/prometheus.yml" --storage.tsdb.path="$WORK/prom/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >"$WORK/prom/prometheus.log" 2>&1 &
PROM_PID=$!
PROM="http://127.0.0.1:$prom_port"
check "prometheus is ready" wait_for 30 in_ns curl -fsS "$PROM/-/ready"
# query EXPR: the instant query's result list as JSON (from inside the
# namespace, where Prometheus listens).
query() {
  in_ns curl -fsS --get "$PROM/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["status"] == "success", d
print(json.dumps(d["data"]["result"]))'
}
# has_data EXPR: at least one series with a number (not NaN).
has_data() {
  query "$1" | python3 -c '
import json, math, sys
r = json.load(sys.stdin)
assert any(not math.isnan(float(s["value"][1])) for s in r), r'
}
check "both ksched targets are up (discovered through the Service's EndpointSlices)" \
  wait_for 40 has_data 'count(up{job="ksched", namespace="'$NS'"} == 1) == 2'

# --- 3. a workload that fills the nodes ------------------------------------------------
phase "workload"
# Each node's free CPU (allocatable minus the requests of its pods) and the
# per-pod request R that packs it: N = free/R pods per node, leaving less
# than R but at least 200m -- room for the two ksched pods the roll adds --
# and never R even when the roll frees 200m on one node.
kc get nodes -o json >"$WORK/nodes.json"
kc get pods -A -o json >"$WORK/pods.json"
read -r R FIT < <(python3 - "$WORK/nodes.json" "$WORK/pods.json" <<'EOF'
import json, sys
def cpu(q):
    return int(q[:-1]) if q.endswith("m") else int(float(q) * 1000)
nodes = {n["metadata"]["name"]: cpu(n["status"]["allocatable"]["cpu"]) for n in json.load(open(sys.argv[1]))["items"]}
for p in json.load(open(sys.argv[2]))["items"]:
    node = p["spec"].get("nodeName")
    if node in nodes and p["status"].get("phase") not in ("Succeeded", "Failed"):
        for c in p["spec"]["containers"]:
            nodes[node] -= cpu(c.get("resources", {}).get("requests", {}).get("cpu", "0"))
free = list(nodes.values())
for r in range(max(250, max(free) // 10), max(free) + 1, 5):
    if all(f // r >= 1 and 200 <= f % r and f % r + 200 < r for f in free):
        print(r, sum(f // r for f in free)); break
else:
    sys.exit("no request size packs free CPU %s" % free)
EOF
)
EXTRA=3
echo "     pods request ${R}m CPU: $FIT fit, $EXTRA do not"
workload() {
  cat <<EOF
apiVersion: v1
kind: Namespace
metadata: {name: $WL}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: filler, namespace: $WL}
spec:
  replicas: $1
  selector: {matchLabels: {app: filler}}
  template:
    metadata: {labels: {app: filler}}
    spec:
      schedulerName: ksched
      terminationGracePeriodSeconds: 1
      containers:
      - name: sleep
        image: $busybox_image
        imagePullPolicy: IfNotPresent
        command: [sleep, "86400"]
        resources: {requests: {cpu: ${R}m, memory: 16Mi}}
EOF
}
workload $((FIT + EXTRA)) | kc apply -f - >/dev/null

# counts: "RUNNING PENDING ALL" for the filler pods (Pending: not bound).
counts() {
  kc -n "$WL" get pods -l app=filler -o json | python3 -c '
import json, sys
pods = json.load(sys.stdin)["items"]
running = sum(1 for p in pods if p["status"].get("phase") == "Running" and not p["metadata"].get("deletionTimestamp"))
pending = sum(1 for p in pods if not p["spec"].get("nodeName"))
print(running, pending, len(pods))'
}
# settled RUNNING PENDING: so many, and no other filler pod (none terminating).
settled() { [ "$(counts)" = "$1 $2 $(($1 + $2))" ]; }
check "$FIT filler pods Running on the kubelets, $EXTRA Pending" wait_for 180 settled "$FIT" "$EXTRA"
counts

# events REASON: the filler pods' events.k8s.io Events of that reason as
# "pod reportingController reportingInstance count" lines.
events() {
  kc -n "$WL" get events.v1.events.k8s.io --field-selector "reason=$1" -o json | python3 -c '
import json, sys
for e in json.load(sys.stdin)["items"]:
    n = (e.get("series") or {}).get("count") or e.get("deprecatedCount") or 1
    print(e["regarding"]["name"], e.get("reportingController"), e.get("reportingInstance"), n)'
}
pending_failed_scheduling() {
  local p
  for p in $(kc -n "$WL" get pods -l app=filler -o json | python3 -c '
import json, sys
for p in json.load(sys.stdin)["items"]:
    if not p["spec"].get("nodeName"): print(p["metadata"]["name"])'); do
    grep -q "^$p ksched " <<<"$(events FailedScheduling)" || { echo "$p: no FailedScheduling from ksched"; return 1; }
  done
  kc -n "$WL" get events.v1.events.k8s.io --field-selector reason=FailedScheduling -o jsonpath='{.items[0].note}' |
    grep -q "Insufficient cpu"
}
check "the Pending ones carry ksched's FailedScheduling (Insufficient cpu)" wait_for 30 pending_failed_scheduling
# `kubectl ksched why` as a user reaches it by default: the Lease names the
# leader's pod, `kubectl port-forward` tunnels through the API server with
# the user's credentials, and ksched authorizes them (the admin's client
# certificate) for /debug/explain.
why_through_port_forward() {
  local p
  p="$(kc -n "$WL" get pods -l app=filler -o json | python3 -c '
import json, sys
print(next(p["metadata"]["name"] for p in json.load(sys.stdin)["items"] if not p["spec"].get("nodeName")))')"
  PATH="$BUILD:$PATH" kubectl ksched why "$p" -n "$WL" --kubeconfig "$C/admin.kubeconfig" >"$WORK/why.txt" 2>&1 ||
    { cat "$WORK/why.txt"; return 1; }
  grep -q "rejected by" "$WORK/why.txt" && grep -q "Insufficient cpu" "$WORK/why.txt" || { cat "$WORK/why.txt"; return 1; }
}
check "kubectl ksched why, through a port-forward to the leader's pod, names the rejecting plugin" \
  wait_for 30 why_through_port_forward
# Every bound filler pod has exactly one Scheduled Event, from ksched.
scheduled_once() {
  kc -n "$WL" get pods -l app=filler -o jsonpath='{range .items[?(@.spec.nodeName)]}{.metadata.name}{"\n"}{end}' |
    sort >"$WORK/bound"
  events Scheduled >"$WORK/scheduled"
  python3 - "$WORK/bound" "$WORK/scheduled" <<'EOF'
import collections, sys
bound = open(sys.argv[1]).read().split()
per_pod = collections.Counter()
for line in open(sys.argv[2]):
    pod, controller, instance, n = line.split()
    assert controller == "ksched", line
    per_pod[pod] += int(n)
bad = {p: per_pod[p] for p in bound if per_pod[p] != 1}
assert not bad, "Scheduled events per bound pod: %s" % bad
EOF
}
check "every bound filler pod was bound once, by ksched" scheduled_once
# No placement the kubelets refused: kubelet admission failures leave the pod
# Failed with the failing check as its reason, and a Warning Event.
no_kubelet_rejection() {
  kc get pods -A -o json | python3 -c '
import json, sys
bad = [(p["metadata"]["name"], p["status"].get("reason"), p["status"].get("message"))
       for p in json.load(sys.stdin)["items"]
       if p["status"].get("phase") == "Failed"
       and not any(c["type"] == "DisruptionTarget" for c in p["status"].get("conditions", []))]
assert not bad, bad'
  ! kc get events -A -o jsonpath='{range .items[*]}{.reason}{"\n"}{end}' |
    grep -E '^(OutOf[a-z]+|NodeAffinity|NodePorts|HostPorts|NodeName|TaintToleration|UnexpectedAdmissionError|PodAdmissionFailed)$'
}
check "no kubelet rejected a placement (no Failed pod, no OutOf*/NodeAffinity/port Event)" no_kubelet_rejection
kc -n "$WL" get pods -l app=filler -o jsonpath='{range .items[*]}{.metadata.name} {.spec.nodeName}{"\n"}{end}' |
  sort >"$WORK/placements-before"
check "Prometheus counts the $FIT scheduled pods" \
  wait_for 20 has_data "sum(scheduler_schedule_attempts_total{job=\"ksched\", result=\"scheduled\", profile=\"ksched\"}) == $FIT"

# --- 4. helm upgrade with another scoring strategy -------------------------------------
phase "helm upgrade"
# Room for pods added after the roll: 2 fewer filler pods.
SCALE=2
kc -n "$WL" scale deployment filler --replicas=$((FIT - SCALE)) >/dev/null
check "scaled down to $((FIT - SCALE)) Running, none Pending" wait_for 60 settled $((FIT - SCALE)) 0
kc -n "$WL" get pods -l app=filler -o jsonpath='{range .items[*]}{.metadata.name} {.spec.nodeName}{"\n"}{end}' |
  sort >"$WORK/placements-kept"
cat >"$WORK/binpack.yaml" <<'EOF'
profiles:
- schedulerName: ksched
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
EOF
old_pods="$(ksched_pods | sort | paste -sd' ')"
transitions_before="$(kc -n "$NS" get lease ksched -o jsonpath='{.spec.leaseTransitions}')"
t=$SECONDS
check "helm upgrade --reuse-values -f binpack.yaml --wait" \
  helm upgrade ksched "$repo/charts/ksched" -n "$NS" --reuse-values -f "$WORK/binpack.yaml" --wait --timeout 4m
echo "     rolled in $((SECONDS - t)) s"
rolled() {
  local now; now="$(ksched_pods | sort | paste -sd' ')"
  [ "$(echo "$now" | wc -w)" = 2 ] || return 1
  for p in $old_pods; do echo " $now " | grep -q " $p " && return 1; done
  return 0
}
check "both ksched pods replaced" wait_for 60 rolled
check "the configuration changed in the ConfigMap" bash -c \
  "kubectl --kubeconfig '$C/admin.kubeconfig' -n $NS get configmap ksched-config -o jsonpath='{.data.scheduler-config\.yaml}' | grep -q MostAllocated"
check "a new pod holds the Lease" wait_for 60 leader_is_a_pod
leader2="$(leader)"
echo "     leader: $leader2 (leaseTransitions $transitions_before -> $(kc -n "$NS" get lease ksched -o jsonpath='{.spec.leaseTransitions}'))"
configz_most_allocated() {
  local ip
  ip="$(kc -n "$NS" get pod "$leader2" -o jsonpath='{.status.podIP}')"
  # As cluster admin (a client certificate ksched verifies against the
  # cluster's client CA, then authorizes with a SubjectAccessReview).
  grep -q MostAllocated <<<"$(in_ns curl -fsS --cacert "$WORK/prom/ksched-ca.crt" --cert "$C/pki/admin.crt" \
    --key "$C/pki/admin.key" --resolve "ksched.$NS.svc:10259:$ip" "https://ksched.$NS.svc:10259/configz")"
}
check "the new leader runs the new configuration (/configz)" configz_most_allocated
check "no filler pod moved, was lost or was bound twice across the roll" bash -c "
  diff '$WORK/placements-kept' <(kubectl --kubeconfig '$C/admin.kubeconfig' -n $WL get pods -l app=filler \
    -o jsonpath='{range .items[*]}{.metadata.name} {.spec.nodeName}{\"\n\"}{end}' | sort)"
# Back up in two steps, a scrape apart: the pod scheduling SLI's series
# (one per attempts count) are born at their first observation, so a rate
# over them needs a second one after a scrape, as a steady workload gives.
kc -n "$WL" scale deployment filler --replicas=$((FIT - 1)) >/dev/null
check "scaled up by one: $((FIT - 1)) Running" wait_for 60 settled $((FIT - 1)) 0
check "Prometheus has the new leader's first pod scheduling SLI" wait_for 20 has_data \
  "scheduler_pod_scheduling_sli_duration_seconds_count{job=\"ksched\", pod=\"$leader2\"} == 1"
kc -n "$WL" scale deployment filler --replicas=$((FIT + EXTRA)) >/dev/null
check "scaled back up: $FIT Running, $EXTRA Pending" wait_for 120 settled "$FIT" "$EXTRA"
check "every bound filler pod was bound once, by ksched" scheduled_once
new_pods_bound_by_new_leader() {
  local p
  for p in $(comm -13 <(cut -d' ' -f1 "$WORK/placements-kept") <(sort "$WORK/bound")); do
    grep -q "^$p ksched ksched-$leader2 1$" <<<"$(events Scheduled)" || { echo "$p not bound by $leader2"; events Scheduled; return 1; }
  done
}
check "the $SCALE pods added after the roll were bound by the new leader" new_pods_bound_by_new_leader
check "the Pending ones carry the new leader's FailedScheduling" bash -c "
  kubectl --kubeconfig '$C/admin.kubeconfig' -n $WL get events.v1.events.k8s.io --field-selector reason=FailedScheduling \
    -o jsonpath='{range .items[*]}{.reportingInstance}{\"\n\"}{end}' | grep -qx 'ksched-$leader2'"

# A higher-priority pod that fits nowhere: ksched preempts a filler pod.
kc apply -f - >/dev/null <<EOF
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: e2e-high}
value: 1000
---
apiVersion: v1
kind: Pod
metadata: {name: preemptor, namespace: $WL}
spec:
  schedulerName: ksched
  priorityClassName: e2e-high
  terminationGracePeriodSeconds: 1
  containers:
  - name: sleep
    image: $busybox_image
    imagePullPolicy: IfNotPresent
    command: [sleep, "86400"]
    resources: {requests: {cpu: ${R}m, memory: 16Mi}}
EOF
preemptor_running() { [ "$(kc -n "$WL" get pod preemptor -o jsonpath='{.status.phase}')" = Running ]; }
check "the preemptor evicts a filler pod and runs" wait_for 90 preemptor_running
check "then $((FIT - 1)) filler pods Running, $((EXTRA + 1)) Pending" wait_for 60 settled $((FIT - 1)) $((EXTRA + 1))
check "no kubelet rejected a placement" no_kubelet_rejection

# --- 5. Prometheus: every panel of the dashboard has data ------------------------------
phase "dashboard queries"
check "scheduled attempts: the new leader's count is the pods it bound" \
  wait_for 20 has_data "scheduler_schedule_attempts_total{job=\"ksched\", pod=\"$leader2\", result=\"scheduled\"} == $((SCALE + 1))"
# Grafana's variables: every job and instance; $__rate_interval as Grafana
# computes it for a 2 s scrape interval over a short range (4 scrapes, at
# least), here 1m so the samples of the last phase count.
python3 - "$repo/dashboards/ksched.json" >"$WORK/exprs" <<'EOF'
import json, sys
def panels(p):
    for x in p.get("panels", []):
        yield x
        yield from panels(x)
for p in panels(json.load(open(sys.argv[1]))):
    for t in p.get("targets", []):
        e = t["expr"].replace("$__rate_interval", "1m").replace('"$job"', '"ksched"').replace('"$instance"', '".*"')
        print(p["title"] + "\t" + e)
EOF
check "the dashboard has queries" test -s "$WORK/exprs"
while IFS=$'\t' read -r title expr; do
  check "dashboard \"$title\": $expr" wait_for 20 has_data "$expr"
done <"$WORK/exprs"

no_token_refused() {
  local ip code
  ip="$(kc -n "$NS" get pod "$leader2" -o jsonpath='{.status.podIP}')"
  code="$(in_ns curl -sS -o /dev/null -w '%{http_code}' --cacert "$WORK/prom/ksched-ca.crt" \
    --resolve "ksched.$NS.svc:10259:$ip" "https://ksched.$NS.svc:10259/metrics")"
  echo "HTTP $code"
  [ "$code" = 401 ] || [ "$code" = 403 ]
  # With the token: 200.
  code="$(in_ns curl -sS -o /dev/null -w '%{http_code}' --cacert "$WORK/prom/ksched-ca.crt" \
    -H "Authorization: Bearer $(cat "$WORK/prom/token")" \
    --resolve "ksched.$NS.svc:10259:$ip" "https://ksched.$NS.svc:10259/metrics")"
  [ "$code" = 200 ]
}
check "a scrape without a token is refused (with Prometheus' token: 200)" no_token_refused

# --- 6. helm uninstall ---------------------------------------------------------------------
phase "helm uninstall"
# The leader's last words: how its Lease release on SIGTERM went.
kc -n "$NS" logs -f "$leader2" >"$WORK/leader-last.log" 2>&1 &
logs_pid=$!
check "helm uninstall --wait" helm uninstall ksched -n "$NS" --wait --timeout 3m
nothing_left() {
  local left
  left="$(kc get all,configmaps,secrets,serviceaccounts,roles,rolebindings,clusterroles,clusterrolebindings,poddisruptionbudgets,leases \
    -A -l app.kubernetes.io/name=ksched -o name)"
  [ -z "$left" ] || { echo "left: $left"; return 1; }
  left="$(kc get clusterroles,clusterrolebindings -o name | grep -E '/ksched' || true)"
  [ -z "$left" ] || { echo "left: $left"; return 1; }
  [ -z "$(kc -n kube-system get rolebindings -o name | grep ksched || true)" ]
  [ -z "$(kc -n "$NS" get pods -o name)" ] || { echo "pods left"; return 1; }
}
check "no object of the chart is left (no pod, RBAC, ConfigMap, Service, PDB)" wait_for 60 nothing_left
wait "$logs_pid" 2>/dev/null || true
# Helm deletes the Role and ServiceAccount while the pods still terminate,
# so the leader's release of the Lease may be refused: it then expires.
echo "     the leader on SIGTERM: $(grep -iE 'lease|releas|shut' "$WORK/leader-last.log" | tail -3 | cut -c1-160 | paste -sd'|')"
echo "     the Lease left (not helm's): holder '$(kc -n "$NS" get lease ksched -o jsonpath='{.spec.holderIdentity}')'"
check "the Lease is all that ksched itself wrote and left (besides Events)" bash -c "
  kubectl --kubeconfig '$C/admin.kubeconfig' -n $NS get lease ksched -o name"
check "deleting the namespace removes the rest (Secret, Lease, Events)" \
  kc delete namespace "$NS" --wait --timeout=120s
check "the namespace is gone" bash -c "! kubectl --kubeconfig '$C/admin.kubeconfig' get namespace $NS 2>/dev/null"

echo "total $((SECONDS - start)) s"
echo "$PASSED passed, $FAILED failed"
if ((FAILED > 0)); then
  KEEP_WORK=1
fi
((FAILED == 0))
