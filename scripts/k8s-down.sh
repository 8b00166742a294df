#!/usr/bin/env bash
# k8s-down.sh DIR — stops exactly the processes k8s-up.sh DIR started (their
# pids are in DIR/pids), newest first: SIGTERM, then SIGKILL after 10 s.
# Then, for a cluster with --kubelets, removes what its nodes leave behind
# (containers, shims, mounts, network namespaces: k8s-nodes.sh's
# nodes_teardown). Leaves DIR's files for inspection; a second call does
# nothing.
set -euo pipefail

dir="${1:?usage: k8s-down.sh DIR}"
dir="$(cd "$dir" 2>/dev/null && pwd)" || exit 0
repo="$(cd "$(dirname "$0")/.." && pwd)"
pids_file="$dir/pids"
# shellcheck source=k8s-nodes.sh
source "$repo/scripts/k8s-nodes.sh"
if [ ! -s "$pids_file" ]; then
  nodes_teardown "$dir"
  exit 0
fi

# A pid is ours only while it still runs the binary it was started as (the
# last part of its recorded name), so a recycled pid is never signalled.
ours() {
  local pid="$1" name="${2##*/}"
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "/$name "
}

# stop etcd|others: SIGTERM to the recorded etcd, or to every other recorded
# process, then SIGKILL to any still running after 10 s.
selected() { if [ "$2" = etcd ]; then [ "$1" = etcd ]; else [ "$1" = others ]; fi; }
stop() {
  local line pid name
  for line in "${lines[@]}"; do
    read -r pid name <<<"$line"
    selected "$1" "$name" || continue
    if ours "$pid" "$name"; then kill -TERM "$pid" 2>/dev/null || true; fi
  done
  for line in "${lines[@]}"; do
    read -r pid name <<<"$line"
    selected "$1" "$name" || continue
    for _ in $(seq 100); do
      ours "$pid" "$name" || break
      sleep 0.1
    done
    if ours "$pid" "$name"; then kill -KILL "$pid" 2>/dev/null || true; fi
  done
}
mapfile -t lines < <(tac "$pids_file")
# etcd last: an API server that reconciles the kubernetes Service's endpoints
# (clusters with nodes) removes its lease on the way out, and would wait for
# a stopped etcd until it is killed.
stop others
stop etcd
: >"$pids_file"
nodes_teardown "$dir"
