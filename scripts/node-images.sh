#!/usr/bin/env bash
# node-images.sh OUTDIR — builds the test nodes' two images as docker-archive
# tars that `ctr -n k8s.io images import` loads, without a registry or an
# image builder:
#   OUTDIR/pause.tar    ksched.test/pause:1, our static pause (the sandbox)
#   OUTDIR/busybox.tar  ksched.test/busybox:1, Debian's busybox-static with a
#                       link per applet in /bin (the workload image), and
#                       Debian's openssl with the libraries it links: busybox's
#                       own TLS offers only SHA-1 signatures, which Go >= 1.25
#                       servers (Kubernetes v1.37 and newer) refuse
# Prints the two image names. Layers are written with fixed owners and mtimes,
# so the same inputs give the same image IDs.
set -euo pipefail

out="${1:?usage: node-images.sh OUTDIR}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
busybox=/bin/busybox
[ -x "$busybox" ] && "$busybox" --list >/dev/null 2>&1 && file -L "$busybox" 2>/dev/null | grep -q static ||
  { echo "node-images: a static $busybox is needed (apt-get install busybox-static)" >&2; exit 1; }
command -v gcc >/dev/null || { echo "node-images: gcc is needed" >&2; exit 1; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# archive NAME REF ROOTFS CONFIG-JSON-FRAGMENT: OUTDIR/NAME.tar holding one
# layer (ROOTFS) and an image config with the given entrypoint/cmd fields.
archive() {
  local name="$1" ref="$2" rootfs="$3" fields="$4" img="$work/$1-img"
  mkdir -p "$img"
  tar --numeric-owner --owner=0 --group=0 --mtime=@0 --sort=name -cf "$img/layer.tar" -C "$rootfs" .
  local diff_id config_id
  diff_id="sha256:$(sha256sum "$img/layer.tar" | cut -d' ' -f1)"
  printf '{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/bin:/usr/bin"],%s},"rootfs":{"type":"layers","diff_ids":["%s"]}}' \
    "$fields" "$diff_id" >"$img/config.json"
  config_id="$(sha256sum "$img/config.json" | cut -d' ' -f1)"
  mv "$img/config.json" "$img/$config_id.json"
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["layer.tar"]}]' "$config_id" "$ref" >"$img/manifest.json"
  tar --numeric-owner --owner=0 --group=0 --mtime=@0 --sort=name -cf "$out/$name.tar" -C "$img" .
  echo "$ref"
}

mkdir -p "$work/pause/bin"
gcc -static -s -O2 -Wall -Wextra -Werror -o "$work/pause/bin/pause" "$repo/test/k8s/nodes/pause.c"
archive pause ksched.test/pause:1 "$work/pause" '"Entrypoint":["/bin/pause"]'

mkdir -p "$work/busybox/bin" "$work/busybox/tmp" "$work/busybox/etc"
cp "$busybox" "$work/busybox/bin/busybox"
for applet in $("$busybox" --list); do
  [ "$applet" = busybox ] || ln -s busybox "$work/busybox/bin/$applet"
done
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$work/busybox/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$work/busybox/etc/group"
chmod 1777 "$work/busybox/tmp"
openssl="$(command -v openssl)" || { echo "node-images: openssl is needed" >&2; exit 1; }
for f in "$openssl" $(ldd "$openssl" | grep -o '/[^ ]*'); do
  mkdir -p "$work/busybox$(dirname "$f")"
  cp -L "$f" "$work/busybox$f"
done
archive busybox ksched.test/busybox:1 "$work/busybox" '"Cmd":["sh"]'
