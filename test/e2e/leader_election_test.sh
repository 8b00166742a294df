#!/usr/bin/env bash
# End-to-end test of leader election: two ksched processes against
# kube-apiserver-lite, a workload of pods, and three ways the leader goes:
#   1. kill -9 the leader mid-workload: the standby takes the Lease over once
#      it expires (lease 3 s) and finishes the workload;
#   2. SIGTERM the leader: it drains, releases the Lease and exits 0; the
#      standby takes over within about one retry period (500 ms), far
#      sooner than the lease duration;
#   3. the API server goes away: the leader cannot renew within its renew
#      deadline, stops scheduling and exits non-zero.
# Then: every pod was bound exactly once (the server's request log counts
# the successful POST .../binding per pod; kube-apiserver-lite answers 409
# to a second one), and no pod changed nodes after it was first bound.
#
# Usage: test/e2e/leader_election_test.sh path/to/ksched path/to/kube-apiserver-lite
# Run from the project root (ctest does). Prints "N passed, M failed"; exits
# non-zero on any failure. Takes about 15 s.
set -euo pipefail

KSCHED="${1:-build/ksched}"
APISERVER="${2:-build/kube-apiserver-lite}"
WORK="$(mktemp -d)"
PIDS=()

cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [[ -n "${KEEP_WORK:-}" ]]; then echo "logs kept in $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

[[ -x "$KSCHED" ]] || { echo "ksched binary not found: $KSCHED" >&2; exit 2; }
[[ -x "$APISERVER" ]] || { echo "kube-apiserver-lite binary not found: $APISERVER" >&2; exit 2; }

now_ms() { date +%s%3N; }

# check, free_port, wait_for, json_get; PASSED and FAILED.
source "$(dirname "$0")/lib.sh"

"$APISERVER" --port=0 --v=4 >"$WORK/apiserver.log" 2>&1 &
APISERVER_PID=$!
PIDS+=("$APISERVER_PID")
wait_for 10 grep -q "listening on" "$WORK/apiserver.log" || { cat "$WORK/apiserver.log" >&2; exit 1; }
URL="$(sed -n 's/^.*kube-apiserver-lite listening on //p' "$WORK/apiserver.log" | head -1)"
k() { kubectl --server "$URL" --cache-dir "$WORK/kcache" --request-timeout=10s "$@"; }

{
  echo "apiVersion: v1"
  echo "kind: Namespace"
  echo "metadata: {name: ksched-system}"
  for i in 1 2 3 4; do
    cat <<YAML
---
apiVersion: v1
kind: Node
metadata:
  name: node-$i
  labels: {kubernetes.io/hostname: node-$i}
status:
  capacity: {cpu: "16", memory: 64Gi, pods: "110"}
  allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
YAML
  done
} >"$WORK/cluster.yaml"
k create -f "$WORK/cluster.yaml" >/dev/null

cat >"$WORK/config.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  resourceName: ksched-e2e
  resourceNamespace: ksched-system
profiles:
- schedulerName: ksched
YAML

# pods FIRST LAST: creates pods p-FIRST..p-LAST for ksched.
pods() {
  local i
  for ((i = $1; i <= $2; i++)); do
    cat <<YAML
---
apiVersion: v1
kind: Pod
metadata: {name: p-$i, namespace: default}
spec:
  schedulerName: ksched
  containers:
  - name: c
    image: registry.k8s.io/pause:3.10
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
  done >"$WORK/pods-$1.yaml"
  k create -f "$WORK/pods-$1.yaml" >/dev/null
}
unbound() { k get pods -n default -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeName}{"\n"}{end}' | grep -c '=$' || true; }
all_bound() { [[ "$(unbound)" == 0 ]]; }
placements() { k get pods -n default -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeName}{"\n"}{end}' | sort; }

# start NAME: a ksched with short leader-election periods (flags override
# the file) and a plain-HTTP port for /readyz and /metrics.
declare -A PID PORT
start() {
  PORT[$1]="$(free_port)"
  "$KSCHED" --master "$URL" --config "$WORK/config.yaml" --secure-port=0 --http-port="${PORT[$1]}" \
    --leader-elect-lease-duration=3s --leader-elect-renew-deadline=2s --leader-elect-retry-period=500ms \
    >"$WORK/$1.log" 2>&1 &
  PID[$1]=$!
  PIDS+=("${PID[$1]}")
}
leads() { grep -q "leader acquired" "$WORK/$1.log"; }
readyz() { curl -fsS "http://127.0.0.1:${PORT[$1]}/readyz?verbose"; }
says_standby() { readyz "$1" | grep -q "leader-election ok: standby"; }
says_leader() { readyz "$1" | grep -q "leader-election ok: leader"; }
master_status() { curl -fsS "http://127.0.0.1:${PORT[$1]}/metrics" | grep "^leader_election_master_status{name=\"ksched-e2e\"} $2"; }

# ---- a leads, b stands by
start a
check "a acquires the lease" wait_for 10 leads a
start b
check "b is ready and reports standby on /readyz" wait_for 10 says_standby b
check "a reports leader on /readyz" says_leader a
statuses() { master_status a 1 && master_status b 0; }
check "leader_election_master_status: a 1, b 0" statuses
not_leading() { ! leads "$1"; }
check "b does not schedule while a leads" not_leading b

pods 1 20
check "a binds the first 20 pods" wait_for 10 all_bound
placements >"$WORK/placements-1.txt"

# ---- kill -9 the leader mid-workload
pods 21 60
kill -9 "${PID[a]}"
killed_at=$(now_ms)
check "b takes over after the lease expires" wait_for 10 leads b
took=$(($(now_ms) - killed_at))
echo "     takeover after kill -9: ${took} ms (lease 3 s)"
check "takeover within 6 s of the kill" test "$took" -lt 6000
check "b binds the rest of the 60 pods" wait_for 10 all_bound
placements >"$WORK/placements-2.txt"

# ---- SIGTERM the leader: release, fast takeover
start c
check "c stands by" wait_for 10 says_standby c
pods 61 80
kill -TERM "${PID[b]}"
term_at=$(now_ms)
set +e
wait "${PID[b]}"
b_rc=$?
set -e
check "b exits 0 after SIGTERM" test "$b_rc" -eq 0
check "b released the lease" grep -q "released lease ksched-system/ksched-e2e" "$WORK/b.log"
check "c takes over" wait_for 5 leads c
took=$(($(now_ms) - term_at))
echo "     takeover after SIGTERM: ${took} ms (retry period 500 ms, lease 3 s)"
check "takeover after a release is faster than the lease duration" test "$took" -lt 2500
check "all 80 pods bound" wait_for 10 all_bound
placements >"$WORK/placements-3.txt"

# ---- every pod bound exactly once, none moved
bindings_ok() {
  local i n bad=0
  for ((i = 1; i <= 80; i++)); do
    n=$(grep -cE "POST /api/v1/namespaces/default/pods/p-$i/binding 20[01] " "$WORK/apiserver.log" || true)
    if [[ "$n" != 1 ]]; then
      echo "p-$i: $n successful bindings"
      bad=1
    fi
  done
  return $bad
}
check "every pod was bound exactly once" bindings_ok
# Every "pod=node" line of an earlier snapshot is still in the last one.
no_moves() {
  local f missing=0
  for f in placements-1 placements-2; do
    while read -r line; do
      grep -qxF "$line" "$WORK/placements-3.txt" || { echo "moved: $line"; missing=1; }
    done < <(grep -v '=$' "$WORK/$f.txt")
  done
  return $missing
}
check "no pod changed nodes" no_moves
conflicts=$(grep -cE "POST /api/v1/namespaces/default/pods/p-[0-9]+/binding 409 " "$WORK/apiserver.log" || true)
echo "     binding conflicts answered 409: $conflicts"

# ---- the API server goes away: the leader cannot renew and exits non-zero
kill -9 "$APISERVER_PID"
lost_at=$(now_ms)
set +e
timeout 15 tail --pid="${PID[c]}" -f /dev/null
wait "${PID[c]}"
c_rc=$?
set -e
took=$(($(now_ms) - lost_at))
echo "     leader exited ${took} ms after the API server went away, with status $c_rc"
check "a leader that cannot renew exits non-zero" test "$c_rc" -ne 0 -a "$c_rc" -ne 124
check "it says so" grep -q "leader election lost" "$WORK/c.log"

echo "$PASSED passed, $FAILED failed"
if ((FAILED > 0)); then
  for n in a b c; do
    echo "---- $n.log (last 15 lines)"
    tail -15 "$WORK/$n.log" || true
  done
  exit 1
fi
