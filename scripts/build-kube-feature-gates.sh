#!/usr/bin/env bash
# build-kube-feature-gates.sh OUTDIR — builds test/k8s/cmd/kube-feature-gates
# once per reference Kubernetes release into OUTDIR/kube-feature-gates-v1.NN.
# The same source is built from test/k8s with -modfile=release-1.NN/go.mod:
# it imports nothing of ksched.dev/test/k8s, so the release's own module file resolves all its
# imports, and it links exactly the modules the release's kube-scheduler does
# (release-1.NN/programs, which requires the parent module, raises a few of
# them, e.g. pflag and x/time at v1.35). That also shares Go's build cache
# with `make k8s K8S_VERSION=v1.NN`: after the binaries, a generator is a
# link. The first build of a release compiles kube-scheduler's packages.
set -euo pipefail

out="${1:?usage: build-kube-feature-gates.sh OUTDIR}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
command -v go >/dev/null || {
  echo "build-kube-feature-gates: Go is missing; install Go >= 1.24 (scripts/install-deps.sh says how)" >&2
  exit 1
}
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$repo/test/k8s"
for minor in 34 35 36 37; do
  go build -modfile="release-1.$minor/go.mod" -o "$out/kube-feature-gates-v1.$minor" ./cmd/kube-feature-gates
done
