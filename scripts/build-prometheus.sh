#!/usr/bin/env bash
# build-prometheus.sh OUTDIR — builds Prometheus from its Go module, pinned in
# test/k8s/prometheus, into OUTDIR/prometheus: Debian's prometheus package is
# built without Kubernetes service discovery (kubernetes_sd_configs), which
# test/e2e/helm_nodes_test.sh uses as operators do. Incremental through Go's
# build cache; the first build downloads and compiles its modules (minutes).
set -euo pipefail

out="${1:?usage: build-prometheus.sh OUTDIR}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
command -v go >/dev/null || { echo "build-prometheus: Go is missing" >&2; exit 1; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$repo/test/k8s/prometheus"
start=$SECONDS
version="$(go list -m -f '{{.Version}}' github.com/prometheus/prometheus)"
GOBIN="$out" go install github.com/prometheus/prometheus/cmd/prometheus
echo "build-prometheus: $version in $out ($((SECONDS - start)) s)"
