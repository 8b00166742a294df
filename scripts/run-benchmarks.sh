#!/usr/bin/env bash
# Runs every benchmark binary in BUILD/bench/ and writes JSON results to
# BUILD/bench-results/. Figures quoted in docs/performance.md come from here.
set -euo pipefail
build=${1:-build}
out="$build/bench-results"
mkdir -p "$out"
shopt -s nullglob
ran=0
for b in "$build"/bench/*; do
  [ -x "$b" ] || continue
  name=$(basename "$b")
  echo "== $name"
  if [ "$name" = scheduler_perf ]; then
    # Not a Google Benchmark binary: kube's scheduler_perf workloads
    # (SchedulingBasic, NodeAffinity, PodAntiAffinity, TopologySpreading,
    # Unschedulable at full size, in process and end to end), three times
    # round-robin with each workload's median (single runs scatter by about
    # +-10 % on these VMs; ~2-3 min on 2 cores). Run from the repository
    # root, which it reads the fixtures from (../shared/fixtures/
    # scheduler_perf). SCHEDULER_PERF_ARGS replaces "--repeat 3", e.g.
    # "--scale 0.1" for a quick pass.
    "$b" --out "$out/$name.json" ${SCHEDULER_PERF_ARGS:---repeat 3}
  else
    "$b" --benchmark_out="$out/$name.json" --benchmark_out_format=json ${BENCH_ARGS:-}
  fi
  ran=$((ran + 1))
done
echo "bench: $ran benchmark binaries ran; JSON in $out/"
