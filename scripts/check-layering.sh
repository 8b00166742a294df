#!/usr/bin/env bash
# The include layering: libraries (pkg/) include nothing from binaries
# (cmd/) or tests (test/); binaries include nothing from tests. Prints every
# offending include and fails if there is one.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bad=0
check() {  # check DIR PATTERN WHY
  local hits
  hits=$(grep -rnE --include='*.h' --include='*.cc' "^#include \"($2)/" "$1" || true)
  if [ -n "$hits" ]; then
    echo "layering: $1 must not include $3:"
    echo "$hits"
    bad=1
  fi
}
check pkg 'cmd|test' 'binaries (cmd/) or tests (test/)'
check cmd 'test' 'tests (test/)'
[ "$bad" -eq 0 ] && echo "layering: ok"
exit "$bad"
