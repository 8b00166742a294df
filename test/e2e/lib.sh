# Helpers shared by the e2e scripts; source it after setting WORK (a scratch
# directory). Counts checks in PASSED and FAILED.

PASSED=0
FAILED=0

# check NAME COMMAND...: runs the command in a subshell with errexit on (a
# function called from an `if` would run with errexit ignored), counts and
# reports the result.
check() {
  local name="$1" rc
  shift
  set +e
  (
    set -e
    "$@"
  ) >"$WORK/check.out" 2>&1
  rc=$?
  set -e
  if ((rc == 0)); then
    PASSED=$((PASSED + 1))
    echo "ok   $name"
  else
    FAILED=$((FAILED + 1))
    echo "FAIL $name"
    sed 's/^/     /' "$WORK/check.out"
  fi
}

# free_port: prints a TCP port free on 127.0.0.1 right now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_for SECONDS COMMAND...: retries every 100 ms until the command succeeds;
# fails after SECONDS.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

# json_get FILE PYTHON-EXPRESSION-ON-d: prints the value.
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
