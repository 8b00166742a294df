#!/usr/bin/env bash
# kube-scheduler-perf.sh [WORKLOAD...] — kube-scheduler's own benchmark,
# k8s.io/kubernetes/test/integration/scheduler_perf at the version pinned in
# test/k8s/go.mod, on this machine: kube-scheduler in process with its own
# API server and etcd (build/k8s/bin/etcd), each workload once
# (-benchtime=1ns), as upstream's CI runs it.
#
# WORKLOAD is TestCase/workload as in scheduler_perf's --list (default: the
# side-by-side set). The test binaries are built into build/k8s/scheduler_perf
# (Go's build cache makes a rebuild take seconds). A workload below its
# threshold fails upstream's benchmark; here it is reported and its figures
# kept, since this machine is not upstream's CI. Upstream's data items go to
# OUT (default build/bench-results/kube-scheduler-perf); a summary, one
# record per workload with pods_per_s (SchedulingThroughput's Average) and
# the attempt latency percentiles, to OUT/../kube_scheduler_perf.json.
#
# SCALE=F multiplies every node and pod count of the workload (its params
# named *Nodes or *Pods) by F, as ksched's scheduler_perf --scale does:
# the test runs from a copy of its package directory, links to upstream's
# files but for a performance-config.yaml scaled from upstream's.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$repo/build}"
bin="${K8S_BIN:-$build/k8s/bin}"
out="${OUT:-$build/bench-results/kube-scheduler-perf}"
scale="${SCALE:-1}"
[ -x "$bin/etcd" ] || { echo "kube-scheduler-perf: $bin/etcd missing; run 'make k8s'" >&2; exit 1; }
workloads=("$@")
if [ ${#workloads[@]} -eq 0 ]; then
  workloads=(SchedulingBasic/5000Nodes_10000Pods SchedulingNodeAffinity/5000Nodes_10000Pods
    SchedulingPodAntiAffinity/5000Nodes_2000Pods TopologySpreading/5000Nodes_5000Pods
    Unschedulable/5kNodes/100Init/10kPods PreemptionAsync/5000Nodes
    SchedulingPodAffinity/5000Nodes_5000Pods SchedulingBasic/5000Nodes_50000Pods)
fi
tests="$build/k8s/scheduler_perf"

# scaled_config SRC TOPIC F DIR: DIR mirrors SRC/TOPIC (links to its files,
# its parent's entries linked beside it) with performance-config.yaml's
# *Nodes and *Pods params multiplied by F.
scaled_config() {
  local src="$1" topic="$2" factor="$3" dir="$4" f
  rm -rf "$(dirname "$dir")"
  mkdir -p "$dir"
  for f in "$src"/*; do [ "$(basename "$f")" = "$topic" ] || ln -s "$f" "$(dirname "$dir")/"; done
  for f in "$src/$topic"/*; do [ "$(basename "$f")" = performance-config.yaml ] || ln -s "$f" "$dir/"; done
  python3 - "$src/$topic/performance-config.yaml" "$factor" "$dir/performance-config.yaml" <<'PY'
import re, sys, yaml
source, factor, target = sys.argv[1], float(sys.argv[2]), sys.argv[3]
cases = yaml.safe_load(open(source))
for case in cases:
    for workload in case.get("workloads", []):
        params = workload.get("params", {})
        for name, value in params.items():
            if re.search(r"(Nodes|Pods)$", name) and isinstance(value, int) and not isinstance(value, bool):
                params[name] = max(1, round(value * factor))
        workload.pop("threshold", None)  # upstream's floor is for its own sizes
yaml.safe_dump(cases, open(target, "w"), sort_keys=False)
PY
}
mkdir -p "$out" "$tests"
pkg=k8s.io/kubernetes/test/integration/scheduler_perf
src="$(cd "$repo/test/k8s" && go list -f '{{.Dir}}' "$pkg")"

for w in "${workloads[@]}"; do
  case_name="${w%%/*}"
  # The topic package whose performance-config.yaml defines the test case.
  config="$(grep -l -x -- "- name: $case_name" "$src"/*/performance-config.yaml | head -n 1 || true)"
  [ -n "$config" ] || { echo "kube-scheduler-perf: no test case $case_name under $src" >&2; exit 1; }
  topic="$(basename "$(dirname "$config")")"
  test_bin="$tests/scheduler_perf-$topic.test"
  (cd "$repo/test/k8s" && go test -c -o "$test_bin" "$pkg/$topic")
  # -bench matches level by level: anchor each part of the name.
  pattern="^BenchmarkPerfScheduling\$"
  IFS=/ read -r -a parts <<<"$w"
  for p in "${parts[@]}"; do pattern+="/^$p\$"; done
  echo "kube-scheduler-perf: $w ($topic)"
  # The test binary reads its performance-config.yaml and templates relative
  # to its package's directory.
  log="$out/$(echo "$w" | tr / _).log"
  run_dir="$src/$topic"
  if [ "$scale" != 1 ]; then
    run_dir="$build/k8s/scheduler_perf-scaled/$topic"
    scaled_config "$src" "$topic" "$scale" "$run_dir"
    echo "kube-scheduler-perf: node and pod counts times $scale (from $run_dir/performance-config.yaml)"
  fi
  if ! (cd "$run_dir" && PATH="$bin:$PATH" ARTIFACTS="$out" "$test_bin" -test.run='^$' -test.bench="$pattern" \
    -test.benchtime=1ns -test.timeout=2h -perf-scheduling-label-filter= -data-items-dir="$out" >"$log" 2>&1); then
    if grep -q "expected SchedulingThroughput Average to be higher" "$log"; then
      echo "kube-scheduler-perf: $w ran below its threshold; see $log"
    else
      echo "kube-scheduler-perf: $w failed; see $log" >&2
      exit 1
    fi
  fi
done

python3 - "$out" "$(dirname "$out")/kube_scheduler_perf.json" "$scale" <<'PY'
import glob, json, re, sys
out_dir, summary_path, scale = sys.argv[1], sys.argv[2], float(sys.argv[3])
records = {}
for path in sorted(glob.glob(out_dir + "/BenchmarkPerfScheduling_*.json")):
    for item in json.load(open(path)).get("dataItems", []):
        labels, data = item.get("labels", {}), item.get("data") or {}
        name = labels.get("Name", "").removeprefix("BenchmarkPerfScheduling/")
        # Per-namespace items end in the namespace (namespace-2, sched-1).
        workload = re.sub(r"/(namespace|sched)-[0-9]+$", "", name)
        r = records.setdefault(workload, {"workload": workload, "scale": scale, "source": path})
        if labels.get("Metric") == "SchedulingThroughput":
            r["pods_per_s"] = data.get("Average", 0)
            r["pods_per_s_p50"] = data.get("Perc50", 0)
        elif labels.get("Metric") == "scheduler_scheduling_attempt_duration_seconds" and labels.get("result") == "scheduled":
            r["attempt_p50_ms"] = data.get("Perc50", 0)
            r["attempt_p99_ms"] = data.get("Perc99", 0)
json.dump({"records": list(records.values())}, open(summary_path, "w"), indent=2)
for r in records.values():
    print(f"{r['workload']:<46} {r.get('pods_per_s', 0):>9.0f} pods/s  attempt p50/p99 "
          f"{r.get('attempt_p50_ms', 0):.2f}/{r.get('attempt_p99_ms', 0):.2f} ms")
print("summary in", summary_path)
PY
