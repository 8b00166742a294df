#!/usr/bin/env bash
# Lays out ksched's runtime root filesystem: the binary, exactly the shared
# objects `ldd` resolves for it (the dynamic loader included), the CA bundle,
# the IANA time zones (tzdata's /usr/share/zoneinfo, which DRA selectors'
# timestamp getters may name; pkg/cel/time_zone.cc) and passwd/group
# entries for 65532. Nothing else: no shell, no package manager. Runs inside the image build's first stage (scripts/Containerfile,
# Dockerfile), where the libraries come from Debian packages.
#
# Usage: image-rootfs.sh path/to/ksched OUT_DIR
set -euo pipefail

bin=$1
out=$2
rm -rf "$out"
mkdir -p "$out/usr/local/bin" "$out/etc/ssl/certs" "$out/usr/lib/ssl"

# -r resolves every symbol too: a library older than the one ksched was
# linked against fails here, not at the first start in a cluster.
report=$(ldd -r "$bin" 2>&1)
if grep -qE 'not found|undefined symbol|not a dynamic' <<<"$report"; then
  echo "image-rootfs: ldd -r $bin:" >&2
  echo "$report" >&2
  exit 1
fi

# Lines are "libx.so.1 => /path/libx.so.1 (0x...)", "/lib64/ld-linux... (0x...)"
# or "linux-vdso.so.1 (0x...)" (in the kernel, no file).
mapfile -t libs < <(awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' <<<"$report" | sort -u)
for lib in "${libs[@]}"; do
  # The loader looks a library up by the name ldd lists (the soname), so
  # the file goes there with the symlink resolved.
  mkdir -p "$out$(dirname "$lib")"
  cp -L "$lib" "$out$lib"
  chmod 0755 "$out$lib"
done

install -m 0755 "$bin" "$out/usr/local/bin/ksched"
install -m 0644 /etc/ssl/certs/ca-certificates.crt "$out/etc/ssl/certs/ca-certificates.crt"
# OpenSSL's default verify file (OPENSSLDIR is /usr/lib/ssl on Debian), for
# SSL_CTX_set_default_verify_paths.
ln -s /etc/ssl/certs/ca-certificates.crt "$out/usr/lib/ssl/cert.pem"
[[ -f /usr/share/zoneinfo/UTC ]] || { echo "image-rootfs: /usr/share/zoneinfo is missing (tzdata)" >&2; exit 1; }
mkdir -p "$out/usr/share"
cp -a /usr/share/zoneinfo "$out/usr/share/zoneinfo"

echo 'root:x:0:0:root:/root:/sbin/nologin' >"$out/etc/passwd"
echo 'ksched:x:65532:65532:ksched:/nonexistent:/sbin/nologin' >>"$out/etc/passwd"
printf 'root:x:0:\nksched:x:65532:\n' >"$out/etc/group"
# glibc's resolver (built into libc.so.6): /etc/hosts, then DNS.
echo 'hosts: files dns' >"$out/etc/nsswitch.conf"
chmod 0644 "$out/etc/passwd" "$out/etc/group" "$out/etc/nsswitch.conf"

echo "image-rootfs: ksched, ${#libs[@]} shared objects, CA bundle, $(find "$out/usr/share/zoneinfo" ! -type d | wc -l) time zone files:"
(cd "$out" && find . ! -type d ! -path './usr/share/zoneinfo/*' | sort | sed 's/^\./  /')
