#!/usr/bin/env bash
# build-k8s.sh VERSION OUTDIR — builds the real etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, kubelet and kube-proxy of a release
# line (the module test/k8s/release-1.NN, v1.34 to v1.37) into OUTDIR from the
# Go module proxy, and helm from test/k8s for every version (the chart tests
# render charts/ksched with it). Incremental through Go's build cache, which
# every clone shares (the sources are in the module cache).
set -euo pipefail

version="${1:?usage: build-k8s.sh VERSION OUTDIR}"
out="${2:?usage: build-k8s.sh VERSION OUTDIR}"
repo="$(cd "$(dirname "$0")/.." && pwd)"

case "$version" in
  v1.34|v1.35|v1.36|v1.37) module_dir="$repo/test/k8s/release-${version#v}" ;;
  *) echo "build-k8s: no module for K8S_VERSION=$version (v1.34, v1.35, v1.36 or v1.37)" >&2; exit 1 ;;
esac
command -v go >/dev/null || {
  echo "build-k8s: Go is missing; install Go >= 1.24 (scripts/install-deps.sh says how)" >&2
  exit 1
}

mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$module_dir"
start=$SECONDS
# One `go install` for the six: the package graph loads once, and a binary
# whose build ID is current is not linked again, so a second run is a no-op.
# etcd's main package installs as "server" (its module is .../server/v3).
# The components report the release they are (kubectl version, /version,
# user agents), as release builds do, instead of v0.0.0-master.
release="$(go list -m -f '{{.Version}}' k8s.io/kubernetes)"
minor="$(echo "$release" | cut -d. -f2)"
ldflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$release -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
done
GOBIN="$out" go install -ldflags "$ldflags" go.etcd.io/etcd/server/v3 k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler \
  k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy
# helm is pinned in test/k8s whatever the version: one helm for every
# control plane, linked as its release builds are (its version, and the
# Kubernetes release of its client-go as the default for `helm template` and
# lint).
cd "$repo/test/k8s"
helm_release="$(go list -m -f '{{.Version}}' helm.sh/helm/v3)"
helm_minor="$(go list -m -f '{{.Version}}' k8s.io/client-go | cut -d. -f2)"
helm_ldflags="-X helm.sh/helm/v3/internal/version.version=$helm_release -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
  helm_ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$helm_minor"
done
GOBIN="$out" go install -ldflags "$helm_ldflags" helm.sh/helm/v3/cmd/helm
ln -sfn server "$out/etcd"
echo "build-k8s: $version in $out ($((SECONDS - start)) s)"
