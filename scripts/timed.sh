#!/usr/bin/env bash
# timed.sh NAME COMMAND...: runs COMMAND, then prints "timed: NAME took N s"
# (also when it fails) and exits with its status. CI's log says where a
# run's time went with it.
set -uo pipefail
name="${1:?usage: timed.sh NAME COMMAND...}"
shift
start=$(date +%s)
"$@"
rc=$?
echo "timed: $name took $(( $(date +%s) - start )) s (exit $rc)"
exit $rc
