#!/usr/bin/env bash
# Installs ksched's build and test dependencies from Debian 12 packages.
# Idempotent: packages already present are left alone and nothing runs when
# everything is installed. Needs root or sudo for apt-get.
#   install-deps.sh               everything below (with the test nodes' runtime and the browser)
#   install-deps.sh --no-image    without the image tools, the nodes' runtime and the browser (the
#                                 Dockerfile's build stage)
#   install-deps.sh --image-only  only the image tools (scripts/image.sh)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache
  clang libclang-rt-14-dev          # fuzz targets: clang, libFuzzer and the ASan/UBSan runtimes
  llvm-14                           # llvm-symbolizer, for the fuzz targets' stack traces
  libcpprest-dev libssl-dev         # REST client and the bundled API server
  nlohmann-json3-dev libyaml-cpp-dev
  prometheus-cpp-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  valgrind                          # callgrind: the instruction-count guard (ctest perf/instructions_per_pod)
  prometheus                        # promtool for the metrics checks
  curl procps python3               # scripts and e2e tests
  openssl                           # the k8s suite's cluster CA and certificates
  tzdata                            # /usr/share/zoneinfo: CEL's timestamp getters with a time zone (pkg/cel/time_zone.cc)
)
# make image and its test (scripts/image.sh): a daemonless builder, runc
# (crun cannot run under a hybrid cgroup layout) and the base's bootstrap.
image_packages=(podman runc debootstrap)
# Real nodes in the test cluster (scripts/k8s-up.sh --kubelets): each node's
# container runtime, the CNI plugins, busybox for the workload image, and
# what builds the nodes' network namespace.
node_packages=(containerd runc containernetworking-plugins busybox-static iptables iproute2)
# The HTML report's browser test (test/e2e/html_report_test.sh, skipped
# without them): headless Chromium driven by Selenium. Not for a build stage.
browser_packages=(chromium chromium-driver python3-selenium)
case "${1:-}" in
  --no-image) ;;
  --image-only) packages=("${image_packages[@]}") ;;
  *) packages+=("${image_packages[@]}" "${node_packages[@]}" "${browser_packages[@]}") ;;
esac

# Go builds the real Kubernetes components of the k8s suite (make k8s) from
# the Go module proxy; Debian 12's golang is too old for them, so Go is not
# installed here, only checked: without it `make demo` and `make build` still
# work, and `make k8s` stops with the same message.
check_go() {
  local v
  if ! command -v go >/dev/null; then
    echo "install-deps: Go >= 1.24 is missing: the k8s suite (make k8s, make test) builds kube-apiserver," \
      "kube-controller-manager, kube-scheduler and etcd with it. Install Go from go.dev and put it on PATH." >&2
    return 1
  fi
  v="$(go env GOVERSION)"
  if ! printf '%s\n' "go1.24" "$v" | sort -V -C; then
    echo "install-deps: $v is too old; the k8s suite needs Go >= 1.24" >&2
    return 1
  fi
}
[ "${1:-}" = --image-only ] || check_go || true

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
