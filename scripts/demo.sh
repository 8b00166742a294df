#!/usr/bin/env bash
# The ksched demo: starts the bundled kube-apiserver-lite with a simulated
# kubelet, creates a small realistic cluster (3 zones x 4 nodes of mixed
# sizes plus a tainted GPU pool whose GPUs a DRA driver publishes) and a
# workload, runs ksched against it and
# shows where each pod went and why pending pods wait.
#
#   make demo              # runs and exits
#   DEMO_STAY=1 make demo  # keeps the API server and ksched running
set -euo pipefail

build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
apiserver="$build/kube-apiserver-lite"
ksched="$build/ksched"
work=$(mktemp -d /tmp/ksched-demo.XXXXXX)
pids=()

cleanup() {
  if [ "${DEMO_STAY:-0}" != 1 ]; then
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
  fi
}
trap cleanup EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

if [ ! -x "$apiserver" ]; then
  say "kube-apiserver-lite is not part of this build yet; built so far:"
  ls "$build"/tests "$build"/bench 2>/dev/null || true
  exit 0
fi

say "Starting kube-apiserver-lite (in-memory API server, simulated kubelet)"
"$apiserver" --port=0 --simulate-kubelet >"$work/apiserver.out" 2>"$work/apiserver.log" &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$work/apiserver.out" 2>/dev/null && break; sleep 0.05; done
server=$(sed -n 's#.*listening on \(http://[^ ]*\).*#\1#p' "$work/apiserver.out")
[ -n "$server" ] || { echo "demo: the API server did not start:"; cat "$work/apiserver.log"; exit 1; }
echo "API server: $server"
k() { kubectl --server "$server" "$@"; }

say "Creating the cluster: 3 zones x 4 nodes (mixed sizes) + 2 tainted GPU nodes"
{
  for zone in a b c; do
    for i in 1 2 3 4; do
      if [ "$i" -le 2 ]; then cpu=4; mem=16Gi; type=m5.xlarge; else cpu=8; mem=32Gi; type=m5.2xlarge; fi
      cat <<YAML
---
apiVersion: v1
kind: Node
metadata:
  name: zone-$zone-node-$i
  labels:
    kubernetes.io/hostname: zone-$zone-node-$i
    topology.kubernetes.io/zone: zone-$zone
    node.kubernetes.io/instance-type: $type
status:
  capacity: {cpu: "$cpu", memory: $mem, pods: "110"}
  allocatable: {cpu: "$cpu", memory: $mem, pods: "110"}
YAML
    done
  done
  for i in 1 2; do
    cat <<YAML
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-node-$i
  labels:
    kubernetes.io/hostname: gpu-node-$i
    topology.kubernetes.io/zone: zone-a
    accelerator: nvidia
spec:
  taints:
  - {key: nvidia.com/gpu, value: "present", effect: NoSchedule}
status:
  capacity: {cpu: "16", memory: 64Gi, pods: "110", nvidia.com/gpu: "4"}
  allocatable: {cpu: "16", memory: 64Gi, pods: "110", nvidia.com/gpu: "4"}
YAML
  done
} >"$work/cluster.yaml"
k create -f "$work/cluster.yaml" >/dev/null
k get nodes -L topology.kubernetes.io/zone,node.kubernetes.io/instance-type
k create -f config/demo/devices.yaml >/dev/null
echo "DRA: DeviceClass gpu.example.com; 2 A100s published on gpu-node-1, 2 L4s on gpu-node-2"

say "Creating the workload (schedulerName: ksched unless noted)"
k create -f config/demo/workload.yaml >/dev/null
k get pods -o wide

if [ ! -x "$ksched" ]; then
  say "ksched is not built yet: the cluster above is what it would schedule"
  exit 0
fi

say "Starting ksched (config/demo/scheduler-config.yaml)"
metrics_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$ksched" --master "$server" --config config/demo/scheduler-config.yaml \
  --secure-port=0 --http-port="$metrics_port" --v=1 >"$work/ksched.log" 2>&1 &
pids+=($!)

wait_settled() {  # until no ksched pod changes for 2 s, at most 30 s
  local last="" now stable=0
  for _ in $(seq 60); do
    now=$(k get pods -A -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeName};{end}')
    if [ "$now" = "$last" ]; then stable=$((stable + 1)); else stable=0; fi
    [ "$stable" -ge 4 ] && return 0
    last=$now; sleep 0.5
  done
}
wait_settled

say "Where every pod went"
k get pods -A -o custom-columns='NAMESPACE:.metadata.namespace,POD:.metadata.name,SCHEDULER:.spec.schedulerName,NODE:.spec.nodeName,PHASE:.status.phase'

say "Why pending pods wait (PodScheduled condition written by ksched)"
# (kubectl's jsonpath cannot filter on a missing field, so grep picks them.)
k get pods -A -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name} [{.spec.schedulerName}] {.status.conditions[?(@.type=="PodScheduled")].status}: {.status.conditions[?(@.type=="PodScheduled")].message}{"\n"}{end}' |
  grep ' False: ' | sed 's/ False: /: /' || echo "(none)"

say "Volumes: the WaitForFirstConsumer claim is bound to the PV on the node its pod went to"
k get pv -o custom-columns='PV:.metadata.name,CLAIM:.spec.claimRef.name,PHASE:.status.phase,NODE AFFINITY:.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]'
k get pvc -o custom-columns='PVC:.metadata.name,VOLUME:.spec.volumeName,PHASE:.status.phase,SELECTED NODE:.metadata.annotations.volume\.kubernetes\.io/selected-node'

say "DRA: the inference pod's claim got an L4 on the node the pod went to"
k get resourceclaims -o custom-columns='CLAIM:.metadata.name,OWNER:.metadata.ownerReferences[0].name,NODE:.status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].values[0],DEVICE:.status.allocation.devices.results[0].device,RESERVED FOR:.status.reservedFor[0].name'

say "Adding a large node: the pod waiting for CPU is retried at once (NodeAdd event), not after 5 minutes"
cat >"$work/big-node.yaml" <<'YAML'
apiVersion: v1
kind: Node
metadata:
  name: zone-b-node-big
  labels: {kubernetes.io/hostname: zone-b-node-big, topology.kubernetes.io/zone: zone-b, node.kubernetes.io/instance-type: m5.8xlarge}
status:
  capacity: {cpu: "32", memory: 128Gi, pods: "110"}
  allocatable: {cpu: "32", memory: 128Gi, pods: "110"}
YAML
k create -f "$work/big-node.yaml" >/dev/null
wait_settled
k get pod batch-large -o custom-columns='POD:.metadata.name,NODE:.spec.nodeName,PHASE:.status.phase'

say "Summary"
names() { k get pods -A -o jsonpath="{range .items[?(@.spec.schedulerName$1)]}{.spec.nodeName}{\"\\n\"}{end}"; }
ours_total=$(names '=="ksched"' | wc -l)
ours_bound=$(names '=="ksched"' | grep -c . || true)
others_total=$(names '!="ksched"' | wc -l)
others_bound=$(names '!="ksched"' | grep -c . || true)
echo "ksched pods bound: $ours_bound of $ours_total"
echo "pods for other schedulers: $others_total, bound: $others_bound (ksched leaves them alone)"
echo "ksched log:     $work/ksched.log"
if [ "${DEMO_STAY:-0}" = 1 ]; then
  echo "metrics:        http://127.0.0.1:$metrics_port/metrics"
  echo "pending pods:   http://127.0.0.1:$metrics_port/debug/pending"
  echo "DEMO_STAY=1: API server at $server; stop with: kill ${pids[*]}"
else
  echo "The demo's API server and ksched stop now; to keep them running and browse"
  echo "/metrics and /debug/pending, run: DEMO_STAY=1 make demo"
fi
