#!/usr/bin/env bash
# ksched's container image (scripts/image.sh): built from BUILD_DIR/ksched in
# a network namespace with no interface (so nothing can come from a registry
# or anywhere else), it runs as the chart's Deployment runs it -- user 65532,
# read-only root filesystem -- printing ksched's version and its help, and
# holds the binary, the shared objects it links, the CA bundle and
# passwd/group, nothing else.
#
# Usage: test/e2e/image_test.sh BUILD_DIR (from the project root; ctest does).
# Exits 77 (skipped) without podman or a running Docker engine. The first
# run bootstraps the Debian base (minutes, from the apt mirror); later runs
# take seconds.
set -uo pipefail

build=${1:-build}
ksched=$build/ksched
image_sh=scripts/image.sh
[[ -x "$ksched" ]] || { echo "ksched binary not found: $ksched" >&2; exit 2; }
if ! eng=$(bash "$image_sh" engine 2>/dev/null); then
  echo "SKIP: neither podman nor a running Docker engine (scripts/install-deps.sh installs podman)"
  exit 77
fi

# Its own name, so concurrent runs from other build directories, and the
# user's ksched:<version> from make image, are left alone.
export KSCHED_IMAGE="localhost/ksched-e2e:$(realpath "$build" | sha256sum | cut -c1-12)"
trap 'bash "$image_sh" rmi >/dev/null 2>&1' EXIT

PASSED=0
FAILED=0
check() {
  local name=$1
  shift
  if "$@"; then
    PASSED=$((PASSED + 1))
    echo "ok   $name"
  else
    FAILED=$((FAILED + 1))
    echo "FAIL $name"
  fi
}

# The base may need the apt mirror (once); the image itself must not need
# the network at all.
bash "$image_sh" base "$build" || { echo "FAIL base image"; exit 1; }
offline_build() {
  if [[ "$(id -u)" == 0 ]] && command -v unshare >/dev/null && [[ "$eng" == podman ]]; then
    unshare --net bash "$image_sh" build "$build"
  else
    echo "(not root or not podman: built with the network available)"
    bash "$image_sh" build "$build"
  fi
}
check "build without network" offline_build
[[ $FAILED == 0 ]] || exit 1

want_version=$("$ksched" --version)
version_matches() {
  local got
  got=$(bash "$image_sh" run --version) || return 1
  [[ "$got" == "$want_version" ]] || { echo "  --version: got '$got', want '$want_version'"; return 1; }
  [[ "$got" == *"$(sed -n 's/^project(ksched VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"* ]]
}
check "--version as 65532, read-only: $want_version" version_matches

help_exits_0() {
  local out
  out=$(bash "$image_sh" run --help 2>&1) || { echo "$out" | tail -5; return 1; }
  grep -q -- '--kubeconfig' <<<"$out"
}
check "--help exits 0" help_exits_0

user_is_65532() {
  local user
  user=$(bash "$image_sh" user) || return 1
  [[ "$user" == 65532:65532 ]] || { echo "  image user: '$user'"; return 1; }
}
check "image's user is 65532:65532" user_is_65532

# Exactly: the binary, what ldd resolves for it (paths as ldd lists them),
# the CA bundle and OpenSSL's link to it, passwd, group, nsswitch.conf; and
# the time zones (the base's tzdata, whose file list is its own).
content_is_minimal() {
  local want got
  want=$({
    printf '%s\n' usr/local/bin/ksched etc/ssl/certs/ca-certificates.crt usr/lib/ssl/cert.pem \
      etc/passwd etc/group etc/nsswitch.conf
    ldd "$ksched" | awk '$2 == "=>" && $3 ~ /^\// {print substr($3, 2)} $1 ~ /^\// {print substr($1, 2)}'
  } | sort)
  got=$(bash "$image_sh" files) || return 1
  grep -qx usr/share/zoneinfo/Europe/Paris <<<"$got" || { echo "  no usr/share/zoneinfo/Europe/Paris"; return 1; }
  got=$(grep -v '^usr/share/zoneinfo/' <<<"$got")
  [[ "$got" == "$want" ]] || { diff <(echo "$want") <(echo "$got") | sed 's/^/  /'; return 1; }
}
check "files: ksched, its shared objects, CA bundle, time zones, passwd/group" content_is_minimal

size=$(bash "$image_sh" size)
echo "image size: $((size / 1000000)) MB ($size bytes)"
# kube-scheduler's distroless image is about 70 MB.
check "smaller than kube-scheduler's image (70 MB)" test "$size" -lt 70000000

echo "$PASSED passed, $FAILED failed"
[[ $FAILED == 0 ]]
