#!/usr/bin/env bash
# k8s-load-image.sh DIR ARCHIVE — imports an image archive (docker-archive or
# OCI tar, e.g. `podman save`) into the containerd of every node of the
# cluster k8s-up.sh DIR --kubelets N started, as node-images.sh's images are:
# the kubelets then find it locally and never pull it (imagePullPolicy
# IfNotPresent or Never, with the archive's exact name and tag).
set -euo pipefail

dir="${1:?usage: k8s-load-image.sh DIR ARCHIVE}"
archive="${2:?usage: k8s-load-image.sh DIR ARCHIVE}"
[ -s "$dir/nodes/slot" ] || { echo "k8s-load-image: $dir has no nodes (k8s-up.sh DIR --kubelets N)" >&2; exit 1; }
[ -r "$archive" ] || { echo "k8s-load-image: cannot read $archive" >&2; exit 1; }
slot="$(cat "$dir/nodes/slot")"
kubelets="$(. "$dir/env" && echo "$KUBELETS")"
for i in $(seq 1 "$kubelets"); do
  ctr -a "/run/ksched-k8s/k$slot/node-$i.sock" -n k8s.io images import "$archive" >/dev/null ||
    { echo "k8s-load-image: importing $archive into node-$i failed" >&2; exit 1; }
done
