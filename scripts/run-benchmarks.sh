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
  "$b" --benchmark_out="$out/$name.json" --benchmark_out_format=json ${BENCH_ARGS:-}
  ran=$((ran + 1))
done
echo "bench: $ran benchmark binaries ran; JSON in $out/"
