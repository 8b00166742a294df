#!/usr/bin/env bash
# build-kube-feature-gates.sh OUTDIR — builds test/k8s/cmd/kube-feature-gates
# once per reference Kubernetes release into OUTDIR/kube-feature-gates-v1.NN:
# v1.34 from test/k8s, the others from test/k8s/release-1.NN/programs (the
# same source compiled against that release). The first build of a release
# compiles kube-scheduler's packages at it; later ones come from Go's build
# cache.
set -euo pipefail

out="${1:?usage: build-kube-feature-gates.sh OUTDIR}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
command -v go >/dev/null || {
  echo "build-kube-feature-gates: Go is missing; install Go >= 1.24 (scripts/install-deps.sh says how)" >&2
  exit 1
}
mkdir -p "$out"
out="$(cd "$out" && pwd)"
for minor in 34 35 36 37; do
  if [[ $minor == 34 ]]; then
    dir="$repo/test/k8s"
  else
    dir="$repo/test/k8s/release-1.$minor/programs"
  fi
  (cd "$dir" && go build -o "$out/kube-feature-gates-v1.$minor" ksched.dev/test/k8s/cmd/kube-feature-gates)
done
