#!/usr/bin/env bash
# ksched's container image without a registry: the base is Debian 12
# bootstrapped from the apt mirror this machine uses (debootstrap), the image
# is built by podman (daemonless) or, without podman, by a running Docker
# engine, with --pull=never. Used by `make image` and test/e2e/image_test.sh.
#
#   scripts/image.sh build [BUILD_DIR]   image ksched:<version> from BUILD_DIR/ksched (build)
#   scripts/image.sh base [BUILD_DIR]    only the base (the one step that needs the mirror)
#   scripts/image.sh run ARGS...         run it as the Deployment does: user 65532,
#                                        read-only root filesystem, no network
#   scripts/image.sh files               the image's files, one path a line
#   scripts/image.sh size                its size in bytes
#   scripts/image.sh user                the user it runs as
#   scripts/image.sh rmi                 remove it
#   scripts/image.sh engine              the engine used (exit 1 if none)
#
# Caches (KSCHED_IMAGE_CACHE, default BUILD_DIR/image): minbase.tar, the
# debootstrapped rootfs; the base image localhost/ksched-base:bookworm in the
# engine's store, labelled with the Debian packages it holds. A build whose
# ksched links the same packages reuses both and takes seconds; new packages
# rebuild the base from minbase.tar; KSCHED_IMAGE_REFRESH_BASE=1 re-bootstraps
# (security updates).
#
# Environment: KSCHED_IMAGE (default ksched:<version>, the chart's default),
# KSCHED_IMAGE_ENGINE (podman|docker), KSCHED_PODMAN_ARGS (global podman
# flags, e.g. --storage-driver=vfs), KSCHED_DEBIAN_MIRROR.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^project(ksched VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
image=${KSCHED_IMAGE:-ksched:$version}
base=localhost/ksched-base:bookworm
read -r -a podman_args <<<"${KSCHED_PODMAN_ARGS:-}"

log() { echo "image: $*" >&2; }
die() { log "$*"; exit 1; }

engine() {
  if [ -n "${KSCHED_IMAGE_ENGINE:-}" ]; then
    echo "$KSCHED_IMAGE_ENGINE"
  elif command -v podman >/dev/null; then
    echo podman
  elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
    echo docker
  else
    return 1
  fi
}

# ce ARGS...: the container engine.
ce() {
  case $eng in
    podman) podman "${podman_args[@]}" "$@" ;;
    *) "$eng" "$@" ;;
  esac
}

# The Debian packages owning the shared objects ksched links, and
# ca-certificates: what the base must hold.
base_packages() {
  local bin=$1 lib owners
  local -a libs paths
  mapfile -t libs < <(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}')
  # usrmerge: a package may ship the path ldd prints or the one it resolves to.
  for lib in "${libs[@]}"; do paths+=("$lib" "$(readlink -f "$lib")"); done
  # One query for all (dpkg -S is slow per call); misses are checked below.
  owners=$(dpkg -S "${paths[@]}" 2>/dev/null || true)
  for lib in "${libs[@]}"; do
    sed 's/^.*: //' <<<"$owners" | grep -qxF -e "$lib" -e "$(readlink -f "$lib")" ||
      die "$lib (linked by $bin) belongs to no Debian package; the image holds only Debian's libraries"
  done
  { echo ca-certificates; sed 's/: .*//; s/, /\n/g' <<<"$owners"; } | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# The bookworm, bookworm-updates and bookworm-security repositories apt uses
# here, as sources.list lines.
apt_sources() {
  local mirror=${KSCHED_DEBIAN_MIRROR:-}
  if [ -n "$mirror" ]; then
    echo "deb $mirror bookworm main"
    echo "deb $mirror bookworm-updates main"
    return
  fi
  apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
    awk '$3 == "main" && ($2 == "bookworm" || $2 == "bookworm-updates" || $2 == "bookworm-security") {print "deb " $1 " " $2 " main"}' |
    sort -u
}

bootstrap_minbase() {
  local cache=$1 mirror dir
  command -v debootstrap >/dev/null || die "debootstrap is missing (scripts/install-deps.sh --image-only)"
  mirror=${KSCHED_DEBIAN_MIRROR:-$(apt_sources | awk '$3 == "bookworm" {print $2; exit}')}
  mirror=${mirror:-http://deb.debian.org/debian}
  dir=$cache/minbase
  rm -rf "$dir"
  log "debootstrap --variant=minbase bookworm from $mirror (a few minutes, once)"
  local t0=$SECONDS
  debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    { tail -20 "$cache/debootstrap.log" >&2; die "debootstrap failed (log: $cache/debootstrap.log)"; }
  tar -C "$dir" --numeric-owner -cf "$cache/minbase.tar.tmp" .
  mv "$cache/minbase.tar.tmp" "$cache/minbase.tar"
  rm -rf "$dir"
  log "debootstrap took $((SECONDS - t0)) s"
}

# ensure_base BIN CACHE: the base image holds minbase, every update of the
# configured repositories, and the packages ksched's libraries come from.
ensure_base() {
  local bin=$1 cache=$2 packages have rootfs
  packages=$(base_packages "$bin")
  have=$(ce image inspect --format '{{ index .Config.Labels "io.ksched.packages" }}' "$base" 2>/dev/null || true)
  if [ "$have" = "$packages" ] && [ "${KSCHED_IMAGE_REFRESH_BASE:-0}" != 1 ]; then
    return
  fi
  [ "$(id -u)" = 0 ] || die "building the base needs root (debootstrap, chroot): sudo $0 build"
  if [ ! -f "$cache/minbase.tar" ] || [ "${KSCHED_IMAGE_REFRESH_BASE:-0}" = 1 ]; then
    bootstrap_minbase "$cache"
  fi
  log "base $base: minbase + updates + $packages"
  local t0=$SECONDS old
  old=$(ce image inspect --format '{{.Id}}' "$base" 2>/dev/null || true)
  rootfs=$cache/base-rootfs
  rm -rf "$rootfs" && mkdir -p "$rootfs"
  tar -C "$rootfs" -xpf "$cache/minbase.tar"
  apt_sources >"$rootfs/etc/apt/sources.list"
  cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
  local apt=(env DEBIAN_FRONTEND=noninteractive chroot "$rootfs" apt-get -y -qq -o Dpkg::Use-Pty=0)
  {
    "${apt[@]}" update &&
      "${apt[@]}" upgrade &&
      "${apt[@]}" install --no-install-recommends $packages &&
      "${apt[@]}" clean
  } >"$cache/base.log" 2>&1 || { tail -20 "$cache/base.log" >&2; die "apt-get in the base failed (log: $cache/base.log)"; }
  rm -rf "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" --numeric-owner -cf - . |
    ce import --change "LABEL io.ksched.packages=\"$packages\"" - "$base" >>"$cache/base.log" 2>&1 ||
    die "$eng import failed (log: $cache/base.log)"
  rm -rf "$rootfs"
  [ -z "$old" ] || ce rmi "$old" >/dev/null 2>&1 || true
  log "base built in $((SECONDS - t0)) s"
}

# setup BUILD_DIR: sets bin and cache.
setup() {
  local build_dir=${1:-build}
  bin=$build_dir/ksched
  [ -x "$bin" ] || die "$bin not found: build it first (make build)"
  cache=${KSCHED_IMAGE_CACHE:-$build_dir/image}
  mkdir -p "$cache"
  cache=$(cd "$cache" && pwd)
}

build() {
  local bin cache ctx t0=$SECONDS
  setup "$@"
  ensure_base "$bin" "$cache"

  local old new
  old=$(ce image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
  ctx=$cache/context
  rm -rf "$ctx" && mkdir -p "$ctx"
  strip -o "$ctx/ksched" "$bin"
  cp "$root/scripts/image-rootfs.sh" "$root/scripts/Containerfile" "$ctx/"
  local args=(build --build-arg "BASE=$base" --build-arg "VERSION=$version" -t "$image" -f "$ctx/Containerfile")
  case $eng in
    # chroot isolation: the RUN step needs no OCI runtime, cgroups or
    # rlimits, so it works inside containers as well.
    podman) args+=(--pull=never --isolation=chroot --layers=false) ;;
    # Docker never pulls an image it has locally; BASE is local, the other
    # stage is scratch.
    docker) args+=(--pull=false) ;;
  esac
  ce "${args[@]}" "$ctx" >"$cache/build.log" 2>&1 || { cat "$cache/build.log" >&2; die "$eng build failed"; }
  grep '^  ' "$cache/build.log" >&2 || true
  # The name a Docker build gives ksched:<version>, which containerd also
  # resolves it to: for `podman save`, kind load, ctr import.
  if [ "$eng" = podman ] && [[ "$image" != */* ]]; then
    ce tag "$image" "docker.io/library/$image"
  fi
  # The previous build, now untagged (unless a container still uses it).
  new=$(ce image inspect --format '{{.Id}}' "$image")
  if [ -n "$old" ] && [ "$old" != "$new" ]; then ce rmi "$old" >/dev/null 2>&1 || true; fi
  log "$image built in $((SECONDS - t0)) s with $eng, $(($(size) / 1000000)) MB"
}

# run ARGS...: ksched in the image as the chart's Deployment runs it.
run() {
  local args=(run --rm --network=none --read-only --user 65532:65532)
  if [ "$eng" = podman ]; then
    # Inside a container without CAP_SYS_RESOURCE the runtime cannot raise
    # rlimits to podman's defaults: ask for modest ones.
    args+=(--ulimit nofile=4096:4096 --ulimit nproc=4096:4096)
    # crun refuses a hybrid cgroup layout (v1 hierarchies plus a v2
    # unified mount); runc runs there.
    if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" != cgroup2fs ] &&
      [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ] &&
      command -v runc >/dev/null; then
      args+=(--runtime=runc)
    fi
  fi
  ce "${args[@]}" "$image" "$@"
}

files() {
  local id
  id=$(ce create "$image")
  ce export "$id" | tar -t | grep -v '/$' | sort
  ce rm "$id" >/dev/null
}

size() { ce image inspect --format '{{.Size}}' "$image"; }

cmd=${1:-}
[ $# -gt 0 ] && shift
if ! eng=$(engine); then
  [ "$cmd" = build ] || [ "$cmd" = base ] ||
    die "no container engine: install podman (scripts/install-deps.sh) or start Docker"
  eng=podman
fi
# podman, runc and debootstrap on demand (a no-op when present).
if [ "$eng" = podman ] && { [ "$cmd" = build ] || [ "$cmd" = base ]; }; then
  bash "$root/scripts/install-deps.sh" --image-only >/dev/null
fi
case $cmd in
  build) build "$@" ;;
  base) setup "$@" && ensure_base "$bin" "$cache" ;;
  run) run "$@" ;;
  files) files ;;
  size) size ;;
  rmi) ce rmi "$image" >/dev/null ;;
  user) ce image inspect --format '{{.Config.User}}' "$image" ;;
  engine) echo "$eng" ;;
  *) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
