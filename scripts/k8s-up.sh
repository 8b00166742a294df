#!/usr/bin/env bash
# k8s-up.sh DIR [--kubelets N] — starts a real Kubernetes control plane (etcd,
# kube-apiserver, kube-controller-manager from build/k8s/bin) on free loopback
# ports, configured where it matters to a scheduler the way kubeadm configures
# a cluster: TLS only with a generated CA, service-account token signing,
# --authorization-mode=Node,RBAC and the default admission plugins.
#
# Writes into DIR:
#   admin.kubeconfig   cluster-admin (client certificate in system:masters)
#   scheduler.kubeconfig  the identity kubeadm gives kube-scheduler
#                      (system:kube-scheduler)
#   ca.crt             the cluster CA, for kubeconfigs of service accounts
#   env                shell assignments: APISERVER_URL, ETCD_URL, K8S_BIN, ...
#   pids               the processes this script started (k8s-down.sh stops them)
#   NAME.log, NAME.cmd each component's log and command line
# Returns when /readyz answers ok, printing how long start-up took.
#
# Without --kubelets there are no kubelets, so only the controllers a
# scheduler test needs run; never the node-lifecycle controller, which would
# taint every node unreachable. K8S_BIN (default build/k8s/bin) selects the
# binaries.
#
# --kcm-qps N lets kube-controller-manager's client send N requests a second
# (its default is 20): benchmarks whose pods get claims from templates need
# the resource-claim controller to keep up with the scheduler.
#
# --kubelets N adds N real nodes (scripts/k8s-nodes.sh, sourced below): each a
# kubelet with its own containerd, all in a network namespace this script
# creates for the cluster, plus one kube-proxy; the API server then listens on
# that namespace's link address instead of 127.0.0.1. K8S_KUBELET_BIN
# (default K8S_BIN) selects kubelet and kube-proxy.
set -euo pipefail

usage="usage: k8s-up.sh DIR [--kubelets N] [--kcm-qps N]"
dir="${1:?$usage}"
shift
kubelets=0
kcm_qps=()
while [ $# -gt 0 ]; do
  case "$1" in
    --kubelets) kubelets="${2:?$usage}"; shift 2 ;;
    --kubelets=*) kubelets="${1#*=}"; shift ;;
    --kcm-qps) [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "k8s-up: --kcm-qps takes a number" >&2; exit 1; }
      kcm_qps=(--kube-api-qps="$2" --kube-api-burst="$2"); shift 2 ;;
    *) echo "k8s-up: unknown argument $1; $usage" >&2; exit 1 ;;
  esac
done
[[ "$kubelets" =~ ^[0-9]+$ ]] && ((kubelets <= 14)) || { echo "k8s-up: --kubelets takes 0..14" >&2; exit 1; }
repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="${K8S_BIN:-$repo/build/k8s/bin}"
for b in etcd kube-apiserver kube-controller-manager; do
  [ -x "$bin/$b" ] || { echo "k8s-up: $bin/$b missing; run 'make k8s'" >&2; exit 1; }
done
command -v openssl >/dev/null || { echo "k8s-up: openssl is needed" >&2; exit 1; }

mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
if [ -s "$dir/pids" ]; then
  echo "k8s-up: $dir/pids exists; run k8s-down.sh $dir first" >&2
  exit 1
fi
start_ns=$(date +%s%N)
: >"$dir/pids"
if ((kubelets > 0)); then
  # shellcheck source=k8s-nodes.sh
  source "$repo/scripts/k8s-nodes.sh"
  nodes_prepare # the namespace, its link, and api_host (the API server's address)
else
  api_host=127.0.0.1
fi

# --- certificates ------------------------------------------------------------
pki="$dir/pki"
mkdir -p "$pki"
ossl() { openssl "$@" 2>>"$dir/openssl.log"; }
# P-256 keys: an RSA key costs ~0.4 s of CPU to make, and every scenario
# starts two control planes of seven keys each.
curve=ec_paramgen_curve:prime256v1
newkey=(-newkey ec -pkeyopt "$curve")
ossl req -x509 "${newkey[@]}" -nodes -days 3650 -subj "/CN=ksched-test-ca" \
  -keyout "$pki/ca.key" -out "$pki/ca.crt"
cp "$pki/ca.crt" "$dir/ca.crt"

# sign NAME SUBJECT [EXTENSIONS]: a key and a certificate signed by the CA.
sign() {
  local name="$1" subj="$2" ext="${3:-extendedKeyUsage=clientAuth}"
  ossl req "${newkey[@]}" -nodes -subj "$subj" -keyout "$pki/$name.key" -out "$pki/$name.csr"
  printf '%s\n' "$ext" >"$pki/$name.ext"
  ossl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 3650 -extfile "$pki/$name.ext" -out "$pki/$name.crt"
}
sign apiserver "/CN=kube-apiserver" \
  "$(printf 'extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,IP:%s,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local' "$api_host")"
sign admin "/O=system:masters/CN=kubernetes-admin"
sign controller-manager "/CN=system:kube-controller-manager"
sign scheduler "/CN=system:kube-scheduler"
sign apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
ossl genpkey -algorithm EC -pkeyopt "$curve" -out "$pki/sa.key"
ossl pkey -in "$pki/sa.key" -pubout -out "$pki/sa.pub"

# --- ports ---------------------------------------------------------------------
# free_ports N: N ports free now (see start_up below for the race).
free_ports() { python3 "$repo/scripts/free-ports.py" "$1"; }

# kubeconfig FILE USER-CERT-NAME: a kubeconfig for the CA and a client cert.
kubeconfig() {
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: $apiserver_url
    certificate-authority: $pki/ca.crt
users:
- name: $2
  user:
    client-certificate: $pki/$2.crt
    client-key: $pki/$2.key
contexts:
- name: test
  context: {cluster: test, user: $2}
current-context: test
EOF
}

# launch NAME COMMAND...: starts a component in the background, logging to
# DIR/NAME.log, records its pid, and keeps its command line in DIR/NAME.cmd
# (tests restart a component from it). NAME may be a path (node-1/kubelet);
# its last part is the binary's name, which k8s-down.sh checks.
launch() {
  local name="$1"
  shift
  printf '%q ' "$@" >"$dir/$name.cmd"
  "$@" >"$dir/$name.log" 2>&1 &
  echo "$! $name" >>"$dir/pids"
}

# fail MESSAGE: stops what was started and exits.
fail() {
  echo "k8s-up: $1" >&2
  bash "$repo/scripts/k8s-down.sh" "$dir" >>"$dir/k8s-down.log" 2>&1 || true
  exit 1
}

# all_running: every process started so far still runs.
all_running() {
  local pid name
  while read -r pid name; do
    kill -0 "$pid" 2>/dev/null || { echo "$name exited"; return 1; }
  done <"$dir/pids"
}

# wait_until SECONDS WHAT COMMAND...: retries every 100 ms; fails at once
# when a component has exited, except that it returns 1 when WHAT itself
# exited because its port was taken (start_up starts it again).
wait_until() {
  local timeout="$1" what="$2" exited name
  local deadline=$((SECONDS + timeout))
  shift 2
  until "$@" >/dev/null 2>&1; do
    if ! exited="$(all_running)"; then
      name="${exited% exited}"
      [ "$name" = "$what" ] && grep -q "address already in use" "$dir/$name.log" && return 1
      fail "$exited while waiting for $what; see $dir/$name.log"
    fi
    ((SECONDS < deadline)) || fail "$what not ready after $timeout s; see $dir/*.log"
    sleep 0.1
  done
}

# listens PID PORT: process PID holds a TCP socket listening on PORT. A health
# check alone could be answered by another control plane's component that
# took the port first.
listens() {
  local inode
  # /proc/net/tcp{,6}: local address ends in :PORT (hex), state 0A is LISTEN.
  for inode in $(awk -v p="$(printf ':%04X' "$2")" '$2 ~ p "$" && $4 == "0A" { print $10 }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null); do
    find "/proc/$1/fd" -lname "socket:\[$inode\]" 2>/dev/null | grep -q . && return 0
  done
  return 1
}

# start_up NAME SECONDS HEALTH...: start_NAME picks ports (setting `port` to
# the one NAME serves on) and launches NAME; start_up then waits until NAME
# listens there and HEALTH succeeds. free-ports.py releases the ports it
# picks, so another control plane starting in parallel can bind one first:
# NAME then exits, and is started again on new ports, up to 3 times.
start_up() {
  local name="$1" timeout="$2" attempt
  shift 2
  health=("$@")
  for attempt in 1 2 3; do
    "start_${name//-/_}"
    started_pid="$(awk -v n="$name" '$2 == n { print $1 }' "$dir/pids")"
    wait_until "$timeout" "$name" started_and_healthy && return 0
    echo "k8s-up: $name lost a port to another process; starting it again" >&2
    mv "$dir/$name.log" "$dir/$name.log.$attempt"
    awk -v n="$name" '$2 != n' "$dir/pids" >"$dir/pids.new"
    mv "$dir/pids.new" "$dir/pids"
  done
  fail "$name could not bind its ports in 3 attempts; see $dir/$name.log.*"
}
started_and_healthy() { listens "$started_pid" "$port" && "${health[@]}"; }

# --- etcd ----------------------------------------------------------------------
start_etcd() {
  rm -rf "$dir/etcd-data" # a failed start may have begun one with other ports
  { read -r etcd_port; read -r etcd_peer_port; } < <(free_ports 2)
  port=$etcd_port
  launch etcd "$bin/etcd" --name=default --data-dir="$dir/etcd-data" \
    --listen-client-urls="http://127.0.0.1:$etcd_port" \
    --advertise-client-urls="http://127.0.0.1:$etcd_port" \
    --listen-peer-urls="http://127.0.0.1:$etcd_peer_port" \
    --initial-advertise-peer-urls="http://127.0.0.1:$etcd_peer_port" \
    --initial-cluster="default=http://127.0.0.1:$etcd_peer_port" \
    --listen-metrics-urls="" --log-level=warn --unsafe-no-fsync=true
}
etcd_healthy() { curl -fsS "http://127.0.0.1:$etcd_port/health"; }
start_up etcd 30 etcd_healthy

# --- kube-apiserver --------------------------------------------------------------
# The flags kubeadm sets that change what a client sees; the default admission
# plugins plus NodeRestriction, as kubeadm enables them, less
# TaintNodesByCondition: it taints every new Node not-ready, and only the
# node-lifecycle controller, which cannot run without kubelets, lifts it.
apiserver_args=(
  --bind-address="$api_host" --advertise-address="$api_host"
  --etcd-servers="http://127.0.0.1:$etcd_port"
  --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key"
  --client-ca-file="$pki/ca.crt"
  --kubelet-client-certificate="$pki/apiserver-kubelet-client.crt"
  --kubelet-client-key="$pki/apiserver-kubelet-client.key"
  # Kubelets by their node IP, never by a name to resolve.
  --kubelet-preferred-address-types=InternalIP
  --service-account-issuer=https://kubernetes.default.svc.cluster.local
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key"
  --service-cluster-ip-range=10.96.0.0/12
  --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction --disable-admission-plugins=TaintNodesByCondition
  --allow-privileged=true --enable-bootstrap-token-auth=true
  --profiling=false --v="${K8S_APISERVER_V:-1}"
)
# Without nodes no in-cluster client uses the kubernetes Service, and v1.37
# refuses a loopback advertise address for its endpoint reconciler; with
# nodes the Service leads pods to the namespace's link address.
((kubelets > 0)) || apiserver_args+=(--endpoint-reconciler-type=none)
# The kubeconfigs name the API server's port, so they are written with it.
start_kube_apiserver() {
  apiserver_port="$(free_ports 1)"
  port=$apiserver_port
  apiserver_url="https://$api_host:$apiserver_port"
  kubeconfig "$dir/admin.kubeconfig" admin
  kubeconfig "$dir/controller-manager.kubeconfig" controller-manager
  kubeconfig "$dir/scheduler.kubeconfig" scheduler
  # shellcheck disable=SC2086 # K8S_APISERVER_EXTRA_ARGS is a list of flags
  launch kube-apiserver "$bin/kube-apiserver" "${apiserver_args[@]}" \
    --secure-port="$apiserver_port" ${K8S_APISERVER_EXTRA_ARGS:-}
}
admin_curl() {
  curl -fsS --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" "$apiserver_url$1"
}
start_up kube-apiserver 90 admin_curl /readyz

# --- kube-controller-manager ----------------------------------------------------
# Controllers a scheduler test needs: service accounts and their tokens, the
# PV binder (static and WaitForFirstConsumer binding), the garbage collector,
# resource claims (DRA templates), namespaces, PDB status (disruption), the
# CA ConfigMap, and the workload controllers that own pods in scenarios.
controllers=serviceaccount-controller,serviceaccount-token-controller,persistentvolume-binder-controller
controllers+=,garbage-collector-controller,resourceclaim-controller,ephemeral-volume-controller
controllers+=,namespace-controller,disruption-controller,root-ca-certificate-publisher-controller
controllers+=,replicaset-controller,deployment-controller,statefulset-controller,job-controller
controllers+=,endpointslice-controller,persistentvolumeclaim-protection-controller
controllers+=,persistentvolume-protection-controller
# Real nodes heartbeat, so the node-lifecycle controller runs with them, as
# in any cluster: a stopped kubelet's Node turns NotReady and is tainted.
((kubelets == 0)) || controllers+=,node-lifecycle-controller
start_kube_controller_manager() {
  kcm_port="$(free_ports 1)"
  port=$kcm_port
  launch kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig="$dir/controller-manager.kubeconfig" \
    --authentication-kubeconfig="$dir/controller-manager.kubeconfig" \
    --authorization-kubeconfig="$dir/controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$kcm_port" \
    --controllers="$controllers" --use-service-account-credentials=true \
    --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
    --cluster-signing-cert-file="$pki/ca.crt" --cluster-signing-key-file="$pki/ca.key" \
    --leader-elect=false --profiling=false --v=1 "${kcm_qps[@]}"
}
kcm_healthy() { curl -fsSk "https://127.0.0.1:$kcm_port/healthz"; }
start_up kube-controller-manager 60 kcm_healthy
# The default ServiceAccount of "default" proves the SA controllers run.
wait_until 60 "the default ServiceAccount" admin_curl /api/v1/namespaces/default/serviceaccounts/default

if ((kubelets > 0)); then
  # A cluster with nodes runs the default kube-scheduler, as any does
  # (leader-elected, kubeadm's identity); secondary schedulers share the nodes.
  start_kube_scheduler() {
    sched_port="$(free_ports 1)"
    port=$sched_port
    launch kube-scheduler "$bin/kube-scheduler" --kubeconfig="$dir/scheduler.kubeconfig" \
      --authentication-kubeconfig="$dir/scheduler.kubeconfig" \
      --authorization-kubeconfig="$dir/scheduler.kubeconfig" \
      --bind-address=127.0.0.1 --secure-port="$sched_port" --profiling=false --v=1
  }
  sched_healthy() { curl -fsSk "https://127.0.0.1:$sched_port/healthz"; }
  start_up kube-scheduler 60 sched_healthy
  nodes_start
fi

cat >"$dir/env" <<EOF
APISERVER_URL=$apiserver_url
APISERVER_PORT=$apiserver_port
ETCD_URL=http://127.0.0.1:$etcd_port
K8S_BIN=$bin
KUBECONFIG_ADMIN=$dir/admin.kubeconfig
CA_CRT=$dir/ca.crt
KUBELETS=$kubelets
EOF
((kubelets == 0)) || nodes_env >>"$dir/env"
nodes_note=""
((kubelets == 0)) || nodes_note="; $kubelets node(s) Ready in network namespace $nodes_ns"
echo "k8s-up: control plane at $apiserver_url ready in $(( ($(date +%s%N) - start_ns) / 1000000 )) ms (kubeconfig $dir/admin.kubeconfig)$nodes_note"
