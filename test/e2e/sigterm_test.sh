#!/usr/bin/env bash
# End-to-end test of issue 35: ksched exits promptly on SIGTERM whatever the
# API server does. Two runs against kube-apiserver-lite, each with leader
# election on and a workload of unschedulable pods whose writes (Events,
# PodScheduled patches) are throttled by a low client QPS, so writes are
# still queued when the server goes:
#   1. the server is stopped (kill -9: connection refused);
#   2. the server hangs (SIGSTOP: the kernel still accepts connections and
#      takes requests, nothing ever answers).
# In both, SIGTERM makes ksched exit 0 within the bound, and it logs the
# writes it dropped.
#
# Usage: test/e2e/sigterm_test.sh path/to/ksched path/to/kube-apiserver-lite
# Run from the project root (ctest does). Prints "N passed, M failed"; exits
# non-zero on any failure. Takes about 30 s (measured: 1 s and 10 s from
# SIGTERM to exit).
set -euo pipefail

KSCHED="${1:-build/ksched}"
APISERVER="${2:-build/kube-apiserver-lite}"
WORK="$(mktemp -d)"
PIDS=()

cleanup() {
  for pid in "${PIDS[@]}"; do
    kill -CONT "$pid" 2>/dev/null || true
    kill -9 "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  if [[ -n "${KEEP_WORK:-}" ]]; then echo "logs kept in $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

[[ -x "$KSCHED" ]] || { echo "ksched binary not found: $KSCHED" >&2; exit 2; }
[[ -x "$APISERVER" ]] || { echo "kube-apiserver-lite binary not found: $APISERVER" >&2; exit 2; }

# check, free_port, wait_for; PASSED and FAILED.
source "$(dirname "$0")/lib.sh"

now_ms() { date +%s%3N; }

# The bound: what a dead or hanging server may cost in the worst case is a
# lease renewal in flight and the release, each within leaseDuration -
# renewDeadline (5 s), plus slack for a loaded machine. No binding is in
# flight (the pods are unschedulable), so no binding drain is owed.
BOUND_MS=15000

cat >"$WORK/config.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  qps: 10
  burst: 10
leaderElection:
  leaderElect: true
  resourceName: ksched-sigterm
  resourceNamespace: default
profiles:
- schedulerName: ksched
YAML

# run NAME HOW: one scenario; HOW is "stop" (kill -9) or "hang" (SIGSTOP).
run() {
  local name="$1" how="$2" api_pid url ksched_pid i
  "$APISERVER" --port=0 --v=4 >"$WORK/$name-apiserver.log" 2>&1 &
  api_pid=$!
  PIDS+=("$api_pid")
  wait_for 10 grep -q "listening on" "$WORK/$name-apiserver.log" || { cat "$WORK/$name-apiserver.log" >&2; exit 1; }
  url="$(sed -n 's/^.*kube-apiserver-lite listening on //p' "$WORK/$name-apiserver.log" | head -1)"
  {
    cat <<YAML
apiVersion: v1
kind: Node
metadata: {name: small, labels: {kubernetes.io/hostname: small}}
status:
  capacity: {cpu: "1", memory: 1Gi, pods: "110"}
  allocatable: {cpu: "1", memory: 1Gi, pods: "110"}
YAML
    # Unschedulable: each wants more CPU than the node has.
    for ((i = 1; i <= 60; i++)); do
      cat <<YAML
---
apiVersion: v1
kind: Pod
metadata: {name: big-$i, namespace: default}
spec:
  schedulerName: ksched
  containers:
  - name: c
    image: registry.k8s.io/pause:3.10
    resources: {requests: {cpu: "8"}}
YAML
    done
  } >"$WORK/$name-objects.yaml"

  "$KSCHED" --master "$url" --config "$WORK/config.yaml" --secure-port=0 --http-port="$(free_port)" \
    >"$WORK/$name-ksched.log" 2>&1 &
  ksched_pid=$!
  PIDS+=("$ksched_pid")
  check "$name: ksched leads" wait_for 20 grep -q "leader acquired" "$WORK/$name-ksched.log"
  kubectl --server "$url" --cache-dir "$WORK/kcache" --request-timeout=10s create -f "$WORK/$name-objects.yaml" \
    >/dev/null
  # Writes have started (and, at 10 qps, most are still queued).
  check "$name: ksched writes FailedScheduling Events" \
    wait_for 20 grep -qE "POST /apis/events.k8s.io/v1/namespaces/default/events 201" "$WORK/$name-apiserver.log"

  if [[ "$how" == stop ]]; then
    kill -9 "$api_pid"
  else
    kill -STOP "$api_pid"
  fi
  sleep 1
  kill -TERM "$ksched_pid"
  local term_at rc took
  term_at=$(now_ms)
  set +e
  timeout 60 tail --pid="$ksched_pid" -f /dev/null
  wait "$ksched_pid"
  rc=$?
  set -e
  took=$(($(now_ms) - term_at))
  echo "     $name: ksched exited ${took} ms after SIGTERM with status $rc"
  check "$name: ksched exits 0 after SIGTERM" test "$rc" -eq 0
  check "$name: within ${BOUND_MS} ms" test "$took" -lt "$BOUND_MS"
  check "$name: it logs the writes it dropped" \
    grep -qE "API writer stopped: dropped [0-9]+ Events, [0-9]+ pod status patches" "$WORK/$name-ksched.log"
  check "$name: it logs that it stopped" grep -q "stopped in" "$WORK/$name-ksched.log"
  grep -E "dropped|stopped in|release" "$WORK/$name-ksched.log" | sed 's/^/     | /' || true
  kill -CONT "$api_pid" 2>/dev/null || true
  kill -9 "$api_pid" 2>/dev/null || true
}

run stopped stop
run hanging hang

echo "$PASSED passed, $FAILED failed"
if ((FAILED > 0)); then
  for n in stopped hanging; do
    echo "---- $n-ksched.log (last 20 lines)"
    tail -20 "$WORK/$n-ksched.log" || true
  done
  exit 1
fi
