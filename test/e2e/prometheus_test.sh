#!/usr/bin/env bash
# End-to-end test of ksched's metrics with a real Prometheus server: ksched
# (leader election on) schedules pods on kube-apiserver-lite while
# Prometheus scrapes its HTTPS port (self-signed certificate, as the
# ServiceMonitor in manifests/ does) every second; then the Prometheus HTTP
# API must return the scheduler's series.
#
# Usage: test/e2e/prometheus_test.sh path/to/ksched path/to/kube-apiserver-lite
# Needs `prometheus` (Debian package prometheus); exits 77 (skipped) without
# it. Prints "N passed, M failed"; takes about 10 s.
set -euo pipefail

KSCHED="${1:-build/ksched}"
APISERVER="${2:-build/kube-apiserver-lite}"
PROMETHEUS="${PROMETHEUS:-$(command -v prometheus || true)}"
[[ -n "$PROMETHEUS" ]] || { echo "prometheus not installed: skipped"; exit 77; }
[[ -x "$KSCHED" ]] || { echo "ksched binary not found: $KSCHED" >&2; exit 2; }
[[ -x "$APISERVER" ]] || { echo "kube-apiserver-lite binary not found: $APISERVER" >&2; exit 2; }

WORK="$(mktemp -d)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [[ -n "${KEEP_WORK:-}" ]]; then echo "logs kept in $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# check, free_port, wait_for, json_get; PASSED and FAILED.
source "$(dirname "$0")/lib.sh"

"$APISERVER" --port=0 >"$WORK/apiserver.log" 2>&1 &
PIDS+=($!)
wait_for 10 grep -q "listening on" "$WORK/apiserver.log" || { cat "$WORK/apiserver.log" >&2; exit 1; }
URL="$(sed -n 's/^.*kube-apiserver-lite listening on //p' "$WORK/apiserver.log" | head -1)"
k() { kubectl --server "$URL" --cache-dir "$WORK/kcache" --request-timeout=10s "$@"; }

# The Lease's namespace must exist before ksched campaigns.
k create namespace ksched-system >/dev/null
{
  for i in 1 2 3; do
    cat <<YAML
---
apiVersion: v1
kind: Node
metadata: {name: node-$i, labels: {kubernetes.io/hostname: node-$i}}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
YAML
  done
  for i in $(seq 1 15); do
    cat <<YAML
---
apiVersion: v1
kind: Pod
metadata: {name: p-$i, namespace: default}
spec:
  schedulerName: ksched
  containers:
  - {name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: 100m}}}
YAML
  done
  # Too big for any node: stays pending (scheduler_pending_pods, failures).
  cat <<YAML
---
apiVersion: v1
kind: Pod
metadata: {name: too-big, namespace: default}
spec:
  schedulerName: ksched
  containers:
  - {name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "64"}}}
YAML
} >"$WORK/objects.yaml"

cat >"$WORK/config.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  leaseDuration: 4s
  renewDeadline: 3s
  retryPeriod: 1s
  resourceName: ksched
  resourceNamespace: ksched-system
profiles:
- schedulerName: ksched
YAML

KPORT="$(free_port)"
# The loopback plain port: the bundled API server answers no TokenReview,
# so the secure port's /metrics would be 401 here (secure_serving_test.sh
# covers it on a real control plane).
"$KSCHED" --master "$URL" --config "$WORK/config.yaml" --secure-port=0 --http-port="$KPORT" \
  >"$WORK/ksched.log" 2>&1 &
PIDS+=($!)
wait_for 15 grep -q "leader acquired" "$WORK/ksched.log" || { cat "$WORK/ksched.log" >&2; exit 1; }

PPORT="$(free_port)"
cat >"$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
- job_name: ksched
  scheme: http
  static_configs:
  - targets: ["127.0.0.1:$KPORT"]
YAML
"$PROMETHEUS" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address="127.0.0.1:$PPORT" >"$WORK/prometheus.log" 2>&1 &
PIDS+=($!)
PROM="http://127.0.0.1:$PPORT"
check "prometheus is ready" wait_for 20 curl -fsS "$PROM/-/ready"

k create -f "$WORK/objects.yaml" >/dev/null

# query EXPR: the instant-query result list, as JSON.
query() { curl -fsS --get "$PROM/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["status"] == "success", d
print(json.dumps(d["data"]["result"]))'; }
# has EXPR: the query returns at least one series.
has() { [[ "$(query "$1")" != "[]" ]]; }

check "the target is up" wait_for 15 has 'up{job="ksched"} == 1'
check "scheduled attempts are counted" wait_for 15 has 'scheduler_schedule_attempts_total{result="scheduled",profile="ksched"} >= 15'
check "the unschedulable pod is counted" wait_for 10 has 'scheduler_schedule_attempts_total{result="unschedulable"} >= 1'
check "it is pending" wait_for 10 has 'sum(scheduler_pending_pods) >= 1'
check "attempt latency histogram" has 'scheduler_scheduling_attempt_duration_seconds_count > 0'
check "extension point histogram" has 'scheduler_framework_extension_point_duration_seconds_bucket{extension_point="Filter"}'
check "leader_election_master_status is 1" has 'leader_election_master_status{name="ksched"} == 1'
check "process metrics" has 'process_start_time_seconds > 0'
check "queue incoming pods" has 'scheduler_queue_incoming_pods_total > 0'

echo "$PASSED passed, $FAILED failed"
if ((FAILED > 0)); then
  tail -20 "$WORK/ksched.log"
  tail -20 "$WORK/prometheus.log"
  exit 1
fi
