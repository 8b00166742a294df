#!/usr/bin/env bash
# k8s-matrix.sh BUILD_DIR [VERSION...] — ksched against each reference
# release (default v1.35 v1.36 v1.37): builds that release's components and
# programs (`make k8s K8S_VERSION=...`), runs the real-control-plane suite
# (ksched with default flags, so it takes the server's minor), plugincompare,
# celcompare and kubeexplain linked against that release, and writes the
# results as a table per release into docs/conformance.md, between the
# markers `<!-- k8s-matrix vX.Y -->` and `<!-- /k8s-matrix vX.Y -->`.
# Logs go to BUILD_DIR/k8s/matrix/VERSION/. Exits 1 when a check fails at
# some release (its table says which), after every release has run.
#
# Each check's row is kept in BUILD_DIR/k8s/matrix/VERSION/row-CHECK.md with
# the date it ran; a check skipped this time keeps its last row.
#
# Environment: PLUGINCOMPARE_SEEDS (1000), K8S_MATRIX_SUITE=0 skips the
# suite (about 15 minutes per release).
set -uo pipefail

build="${1:?usage: k8s-matrix.sh BUILD_DIR [VERSION...]}"
shift
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(v1.35 v1.36 v1.37)
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "$build" && pwd)"
default_version="$(sed -n 's/^K8S_DEFAULT_VERSION := //p' "$repo/Makefile")"
doc="$repo/docs/conformance.md"
status=0

# last_log FILE PATTERN: the text after "file.go:NN: " of the last t.Logf
# line matching PATTERN.
last_log() { grep -E "$2" "$1" | tail -1 | sed -E 's/^ *[a-z_]+\.go:[0-9]+: //'; }

# verdict NAME LOG RC: "passed" or "FAILED (see LOG)" (run in a
# substitution, so the caller records the failure: `[ $rc = 0 ] || status=1`).
verdict() {
  if [ "$3" = 0 ]; then echo "passed"; else echo "**FAILED** (\`${2#"$build"/}\`)"; fi
}

for version in "${versions[@]}"; do
  out="$build/k8s/$version"
  [ "$version" = "$default_version" ] && out="$build/k8s"
  logs="$build/k8s/matrix/$version"
  mkdir -p "$logs"
  echo "k8s-matrix: $version: building (make k8s K8S_VERSION=$version)"
  if ! make -C "$repo" --no-print-directory k8s K8S_VERSION="$version" BUILD_DIR="$build" >"$logs/build.log" 2>&1; then
    echo "k8s-matrix: $version: build failed, see $logs/build.log" >&2
    status=1
    continue
  fi
  release="$("$out/bin/kube-apiserver" --version | awk '{print $2}')"
  commit="$(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD || echo '+changes')"
  # row CHECK TEXT: the check's row, dated, in its own file.
  row() { echo "| $2 | $(date -u +%Y-%m-%d), $commit |" >"$logs/row-$1.md"; }

  if [ "${K8S_MATRIX_SUITE:-1}" != 0 ]; then
    echo "k8s-matrix: $version: the suite"
    (cd "$repo" && KSCHED_REPO="$repo" KSCHED_BUILD="$build" K8S_BIN="$out/bin" K8S_RUNS="$logs/runs" \
      "$out/suite.test" -test.v -test.timeout 120m) >"$logs/suite.log" 2>&1
    rc=$?
    passed=$(grep -c '^--- PASS: Test' "$logs/suite.log")
    failed=$(grep -c '^--- FAIL: Test' "$logs/suite.log")
    skipped=$(grep -c '^--- SKIP: Test' "$logs/suite.log")
    failures=$(grep '^--- FAIL: Test' "$logs/suite.log" | awk '{print $3}' | paste -sd, - | sed 's/,/, /g')
    row 1-suite "suite: every scenario with ksched (default flags) and kube-scheduler | $passed passed, $failed failed${failures:+ ($failures)}, $skipped skipped: $(verdict suite "$logs/suite.log" $rc)"
    [ "$rc" = 0 ] || status=1
  fi

  echo "k8s-matrix: $version: plugincompare"
  (cd "$repo/test/k8s/plugincompare" && PLUGINCOMPARE_KEEP_GOING=1 KSCHED_BUILD="$build" "$out/plugincompare.test" -test.v -test.timeout 30m) \
    >"$logs/plugincompare.log" 2>&1
  rc=$?
  summary=$(last_log "$logs/plugincompare.log" 'seeds from [0-9]+ \(')
  known=$(grep -E 'known divergence at' "$logs/plugincompare.log" | sed -E 's/.*: ([0-9]+) seeds \(first ([0-9]+)\) show "([^"]*)".*/\1 seeds (first \2) show `\3`/' | paste -sd';' - | sed 's/;/; /g')
  row 2-plugincompare "plugincompare, ksched at $version against its framework | ${summary:-no summary}${known:+; known: $known}: $(verdict plugincompare "$logs/plugincompare.log" $rc)"
  [ "$rc" = 0 ] || status=1

  echo "k8s-matrix: $version: celcompare"
  (cd "$repo/test/k8s/celcompare" && KSCHED_BUILD="$build" "$out/celcompare.test" -test.v -test.timeout 20m) \
    >"$logs/celcompare.log" 2>&1
  rc=$?
  summary=$(last_log "$logs/celcompare.log" '[0-9]+ cases \(')
  row 3-celcompare "celcompare, DRA selectors against its CEL library | ${summary:-no summary}: $(verdict celcompare "$logs/celcompare.log" $rc)"
  [ "$rc" = 0 ] || status=1

  echo "k8s-matrix: $version: kubeexplain"
  (cd "$repo/test/k8s/kubeexplain" && "$out/kubeexplain.test" -test.v) >"$logs/kubeexplain.log" 2>&1
  rc=$?
  row 4-kubeexplain "kubeexplain, the oracle's own tests | $(grep -c '^--- PASS' "$logs/kubeexplain.log") passed: $(verdict kubeexplain "$logs/kubeexplain.log" $rc)"
  [ "$rc" = 0 ] || status=1

  table="$logs/table.md"
  {
    echo "<!-- k8s-matrix $version -->"
    echo "### $release"
    echo
    echo "| check | result | run (date, ksched) |"
    echo "| --- | --- | --- |"
    cat "$logs"/row-*.md
    echo "<!-- /k8s-matrix $version -->"
  } >"$table"
  cat "$table"

  # Splice the table into the doc: replace the marked block, or append it
  # to the section "## Results per release".
  if grep -q "^<!-- k8s-matrix $version -->" "$doc"; then
    awk -v begin="<!-- k8s-matrix $version -->" -v end="<!-- /k8s-matrix $version -->" -v file="$table" '
      $0 == begin { while ((getline line < file) > 0) print line; skip = 1; next }
      $0 == end { skip = 0; next }
      !skip' "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
  else
    echo "k8s-matrix: no block for $version in $doc; add the markers under ## Results per release" >&2
    status=1
  fi
done
exit $status
