#!/usr/bin/env bash
# Runs every libFuzzer target of test/fuzz (<name>_fuzz.cc, built into
# BUILD_DIR, default build-fuzz) for FUZZ_SECONDS (default 300) each, under
# ASan/UBSan, FUZZ_JOBS (default: the CPUs) at a time. `make test` runs it
# briefly, `make fuzz` at length.
#
# Inputs: test/fuzz/corpus/<name>/ and test/fuzz/regressions/<name>/ (read
# only), the shared API and scheduler-config fixtures for the targets that
# read them, and BUILD_DIR/fuzz/<name>/corpus/, where libFuzzer keeps the
# inputs it finds, so later runs start from there. With FUZZ_SMOKE=1 (make
# test) the found inputs go to smoke-corpus/ instead, emptied first: replaying
# a corpus that long runs have grown would not fit a short run's time.
#
# A target that crashes, leaks, times out or breaks a property leaves its
# reproducer under BUILD_DIR/fuzz/<name>/artifacts/; the script prints its
# path and the command that replays it, goes on with the other targets, and
# exits 1. A reproducer worth keeping becomes a regression: copy it into
# test/fuzz/regressions/<name>/ under a name that says what it exercises
# (fuzz_replay_test replays it in the normal build).
set -euo pipefail
build=${1:-build-fuzz}
seconds=${FUZZ_SECONDS:-300}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
fixtures="$root/../shared/fixtures"

export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# Extra seed folders for a target, made at run time from ../shared (never
# copied into the repository).
extra_seeds() {
  local name=$1 work=$2
  case "$name" in
    json_decoder)
      [ -d "$fixtures/k8s-api" ] && echo "$fixtures/k8s-api" ;;
    scheduler_config)
      [ -d "$fixtures/scheduler-config" ] && echo "$fixtures/scheduler-config" ;;
    watch_event)
      # Each API object fixture as the object of an ADDED event.
      if [ -d "$fixtures/k8s-api" ]; then
        mkdir -p "$work/fixture-seeds"
        for f in "$fixtures"/k8s-api/*.json; do
          { printf '{"type":"ADDED","object":'; cat "$f"; printf '}'; } >"$work/fixture-seeds/$(basename "$f")"
        done
        echo "$work/fixture-seeds"
      fi ;;
  esac
  return 0
}

# One target's run; prints its one-line result (and, on failure, the end of
# its log and how to replay the reproducer) and returns 1 when it failed.
run_target() {
  local source=$1 target name binary work corpus log before artifact
  target=$(basename "$source" .cc)
  name=${target%_fuzz}
  binary="$build/$target"
  work="$build/fuzz/$name"
  corpus="$work/corpus"
  if [ "${FUZZ_SMOKE:-0}" = 1 ]; then
    corpus="$work/smoke-corpus"
    rm -rf "$corpus"
  fi
  mkdir -p "$corpus" "$work/artifacts"
  local seeds=("$root/test/fuzz/corpus/$name")
  [ -d "$root/test/fuzz/regressions/$name" ] && seeds+=("$root/test/fuzz/regressions/$name")
  while IFS= read -r dir; do seeds+=("$dir"); done < <(extra_seeds "$name" "$work")
  log="$work/last-run.log"
  before=$(ls "$work/artifacts" | wc -l)
  if (cd "$work" && "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$work/artifacts/" -print_final_stats=1 "$corpus" "${seeds[@]}") >"$log" 2>&1; then
    echo "fuzz: $name ok, ${seconds}s: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') runs," \
      "working corpus $(ls "$corpus" | wc -l) inputs"
    return 0
  fi
  echo "fuzz: $name FAILED; the end of $log:"
  tail -n 40 "$log"
  if [ "$(ls "$work/artifacts" | wc -l)" -gt "$before" ]; then
    artifact=$(ls -t "$work/artifacts" | head -n 1)
    echo "fuzz: reproducer: $work/artifacts/$artifact"
    echo "fuzz: replay it:  $binary $work/artifacts/$artifact"
  fi
  return 1
}

sources=("$root"/test/fuzz/*_fuzz.cc)
for source in "${sources[@]}"; do
  binary="$build/$(basename "$source" .cc)"
  if [ ! -x "$binary" ]; then
    echo "fuzz: $binary is not built (cmake --build $build --target fuzz_targets)" >&2
    exit 1
  fi
done

# FUZZ_JOBS targets at once (default: one per CPU); each one's report is
# printed whole, in the targets' order, once all have run.
jobs=${FUZZ_JOBS:-$(nproc)}
reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
for i in "${!sources[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  (if run_target "${sources[$i]}" >"$reports/$i" 2>&1; then :; else touch "$reports/$i.failed"; fi) &
done
wait
failed=()
for i in "${!sources[@]}"; do
  if [ -e "$reports/$i.failed" ]; then
    failed+=("$(basename "${sources[$i]}" _fuzz.cc)")
    cat "$reports/$i" >&2
  else
    cat "$reports/$i"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
  exit 1
fi
