#!/usr/bin/env bash
# Runs each libFuzzer target for FUZZ_SECONDS (default 60), seeded with the
# shared API fixtures and a few quantities. Crashes leave reproducers in
# fuzz-corpus/<target>/.
set -euo pipefail
build=${1:-build-fuzz}
seconds=${FUZZ_SECONDS:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
corpus="$root/fuzz-corpus"
mkdir -p "$corpus/json_decoder_fuzz" "$corpus/quantity_fuzz"
cp -n "$root"/../shared/fixtures/k8s-api/*.json "$corpus/json_decoder_fuzz/" 2>/dev/null || true
i=0
for q in 0 1 100m 1.5Gi 2e3 -1Ki 0.001 1E 12345678901234567890 .5 1n; do
  printf '%s' "$q" > "$corpus/quantity_fuzz/seed$i"; i=$((i+1))
done
for f in json_decoder_fuzz quantity_fuzz; do
  echo "fuzz: $f for ${seconds}s"
  (cd "$corpus/$f" && "$root/$build/$f" -max_total_time="$seconds" -artifact_prefix="$corpus/$f/crash-" "$corpus/$f")
done
