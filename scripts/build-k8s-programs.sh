#!/usr/bin/env bash
# build-k8s-programs.sh VERSION OUTDIR — compiles our Go programs of test/k8s
# for a release line into OUTDIR: the suite, the harness's tests and the fault
# campaign (client-go only, so one build serves every control plane), pkg/cel's
# Unicode-table generator, and the programs that run
# kube-scheduler's framework in process (plugincompare, celcompare,
# kubeexplain and kube-explain), which must link the release they compare
# with. The default release (v1.37) compiles with test/k8s's go.mod; v1.35
# and v1.36 compile the same source with -modfile=release-1.NN/programs/go.mod
# (that release's module versions) and the build tag k8s_1_NN, which selects
# kubeexplain/compat_v1NN.go. v1.34 gets the suite only: ksched still
# emulates it, but nothing compares with its framework any more.
set -euo pipefail

version="${1:?usage: build-k8s-programs.sh VERSION OUTDIR}"
out="${2:?usage: build-k8s-programs.sh VERSION OUTDIR}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

cd "$repo/test/k8s"
go test -c -o "$out/suite.test" ./suite
go test -c -o "$out/harness.test" ./harness
go test -c -o "$out/chaos.test" ./chaos
go test -c -o "$out/eventlatency.test" ./eventlatency
go test -c -o "$out/draperf.test" ./draperf
go test -c -o "$out/startover.test" ./startover
go build -o "$out/gen-unicode-tables" ./cmd/gen-unicode-tables

tags=()
case "$version" in
  v1.37) ;;
  v1.35|v1.36)
    tags=(-tags "k8s_1_${version#v1.}" -modfile="release-${version#v}/programs/go.mod") ;;
  v1.34) exit 0 ;;
  *) echo "build-k8s-programs: no programs for $version (v1.34..v1.37)" >&2; exit 1 ;;
esac
go test -c "${tags[@]}" -o "$out/plugincompare.test" ksched.dev/test/k8s/plugincompare
go test -c "${tags[@]}" -o "$out/celcompare.test" ksched.dev/test/k8s/celcompare
go test -c "${tags[@]}" -o "$out/kubeexplain.test" ksched.dev/test/k8s/kubeexplain
go build "${tags[@]}" -o "$out/kube-explain" ksched.dev/test/k8s/cmd/kube-explain
