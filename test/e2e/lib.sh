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

# free_port: prints a TCP port free on 127.0.0.1 right now (outside the
# kernel's ephemeral range: scripts/free-ports.py).
free_port() {
  python3 "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/free-ports.py" 1
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

# k8s_up: sets K8S_KUBECONFIG (cluster-admin), K8S_DIR (k8s-up.sh's output,
# with ca.crt and env) and APISERVER_URL for a real control plane. Uses the
# one K8S_KUBECONFIG + K8S_DIR already name, or starts one with k8s-up.sh
# (K8S_SCRIPTS, default the repository's scripts/) from K8S_BIN (default
# build/k8s/bin) under $WORK/k8s, stopped again by k8s_down. Exits 77
# (skipped) when neither is possible.
K8S_STARTED=""
k8s_up() {
  local repo
  repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  if [ -n "${K8S_KUBECONFIG:-}" ]; then
    : "${K8S_DIR:?K8S_DIR (the directory k8s-up.sh wrote) must come with K8S_KUBECONFIG}"
  else
    export K8S_BIN="${K8S_BIN:-$repo/build/k8s/bin}"
    local scripts="${K8S_SCRIPTS:-$repo/scripts}"
    if [ ! -x "$K8S_BIN/kube-apiserver" ]; then
      echo "SKIP: no $K8S_BIN/kube-apiserver (build it, or set K8S_BIN)"
      exit 77
    fi
    if [ ! -x "$scripts/k8s-up.sh" ]; then
      echo "SKIP: no $scripts/k8s-up.sh (set K8S_SCRIPTS)"
      exit 77
    fi
    K8S_DIR="$WORK/k8s"
    K8S_DOWN="$scripts/k8s-down.sh"
    K8S_STARTED=1
    "$scripts/k8s-up.sh" "$K8S_DIR" >"$WORK/k8s-up.log" 2>&1 || {
      echo "k8s-up.sh failed:"
      tail -20 "$WORK/k8s-up.log"
      "$K8S_DOWN" "$K8S_DIR" >/dev/null 2>&1 || true
      exit 1
    }
    K8S_KUBECONFIG="$K8S_DIR/admin.kubeconfig"
  fi
  # shellcheck disable=SC1091
  APISERVER_URL="$(. "$K8S_DIR/env" && echo "$APISERVER_URL")"
}

# k8s_down: stops the control plane k8s_up started (if it started one).
k8s_down() {
  if [ -n "$K8S_STARTED" ]; then "$K8S_DOWN" "$K8S_DIR" >/dev/null 2>&1 || true; fi
}

# kc ARGS...: kubectl as cluster-admin on that control plane.
kc() { kubectl --kubeconfig "$K8S_KUBECONFIG" "$@"; }

# stop_pid PID: kills and reaps a background process; "" is none.
stop_pid() {
  if [ -n "$1" ]; then
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
  fi
}

# k8s_with_ksched_rbac: the start of a script that runs a local ksched
# (KSCHED_PID, and any pid in EXTRA_PID) on a real control plane with the
# manifests' RBAC: an EXIT trap that stops them and the control plane and
# removes WORK (unless KEEP_WORK), k8s_up, then the manifests' namespace and
# RBAC applied. Exits 77 without kubectl or a control plane. Sets REPO.
KSCHED_PID=""
EXTRA_PID=""
k8s_with_ksched_rbac() {
  trap k8s_with_ksched_rbac_cleanup EXIT
  command -v kubectl >/dev/null || { echo "SKIP: no kubectl"; exit 77; }
  REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  k8s_up
  kc apply -f "$REPO/manifests/00-namespace.yaml" -f "$REPO/manifests/01-rbac.yaml" >"$WORK/apply.log"
}
k8s_with_ksched_rbac_cleanup() {
  stop_pid "$EXTRA_PID"
  stop_pid "$KSCHED_PID"
  k8s_down
  if [[ -n "${KEEP_WORK:-}" ]]; then echo "logs kept in $WORK"; else rm -rf "$WORK"; fi
}

# token_kubeconfig FILE TOKEN [NAMESPACE]: writes a kubeconfig for k8s_up's
# control plane that authenticates with the bearer TOKEN.
token_kubeconfig() {
  cat >"$1" <<KC
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: $APISERVER_URL
    certificate-authority: $K8S_DIR/ca.crt
users:
- name: u
  user:
    token: $2
contexts:
- name: e2e
  context: {cluster: e2e, user: u${3:+, namespace: $3}}
current-context: e2e
KC
}

# start_secure_ksched ARGS...: starts $KSCHED ARGS serving HTTPS on a free
# loopback port (KSCHED_PID, its endpoint in EP, log $WORK/ksched.log) and
# waits until it is ready; exits 1 with its log if it is not within 30 s.
start_secure_ksched() {
  local port
  port="$(free_port)"
  "$KSCHED" "$@" --bind-address=127.0.0.1 --secure-port="$port" >"$WORK/ksched.log" 2>&1 &
  KSCHED_PID=$!
  EP="https://127.0.0.1:$port"
  wait_for 30 curl -sfk "$EP/readyz" || { echo "ksched did not become ready:"; tail -30 "$WORK/ksched.log"; exit 1; }
}
