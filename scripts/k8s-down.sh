#!/usr/bin/env bash
# k8s-down.sh DIR — stops exactly the processes k8s-up.sh DIR started (their
# pids are in DIR/pids), newest first: SIGTERM, then SIGKILL after 10 s.
# Leaves DIR's files for inspection; a second call does nothing.
set -euo pipefail

dir="${1:?usage: k8s-down.sh DIR}"
pids_file="$dir/pids"
[ -s "$pids_file" ] || exit 0

# A pid is ours only while it still runs the binary it was started as, so a
# recycled pid is never signalled.
ours() {
  local pid="$1" name="$2"
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "/$name "
}

mapfile -t lines < <(tac "$pids_file")
for line in "${lines[@]}"; do
  read -r pid name <<<"$line"
  if ours "$pid" "$name"; then kill -TERM "$pid" 2>/dev/null || true; fi
done
for line in "${lines[@]}"; do
  read -r pid name <<<"$line"
  for _ in $(seq 100); do
    ours "$pid" "$name" || break
    sleep 0.1
  done
  if ours "$pid" "$name"; then kill -KILL "$pid" 2>/dev/null || true; fi
done
: >"$pids_file"
