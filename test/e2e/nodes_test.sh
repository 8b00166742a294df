#!/usr/bin/env bash
# Real nodes: scripts/k8s-up.sh --kubelets. Two clusters side by side (A with
# two kubelets, B with one), each with its own network namespace and pod
# range. In each, a Pod of the local busybox image is placed by the cluster's
# default kube-scheduler, runs on a kubelet, and reaches its own API server
# through the kubernetes Service with its service-account token and the
# cluster CA, as in-cluster clients do (a SelfSubjectReview answers with the
# pod's identity, which only that cluster's API server can authenticate);
# `kubectl logs` reads it through the kubelet. Then k8s-down.sh leaves no
# process, container, mount, network namespace, link or iptables chain
# behind.
#
# Usage: test/e2e/nodes_test.sh (from the project root; K8S_BIN, default
# build/k8s/bin, holds the control plane, kubelet and kube-proxy;
# K8S_KUBELET_BIN, when set, kubelet and kube-proxy). Needs root,
# containerd, runc, the CNI plugins, busybox-static and gcc; exits 77
# (skipped) when one is missing. Prints "N passed, M failed".
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
export K8S_BIN="${K8S_BIN:-$repo/build/k8s/bin}"
for b in "$K8S_BIN/kube-apiserver" "${K8S_KUBELET_BIN:-$K8S_BIN}/kubelet" "${K8S_KUBELET_BIN:-$K8S_BIN}/kube-proxy"; do
  [ -x "$b" ] || { echo "SKIP: no $b (make k8s)"; exit 77; }
done
for b in containerd runc ctr nsenter iptables gcc busybox kubectl; do
  command -v "$b" >/dev/null || { echo "SKIP: $b is missing (scripts/install-deps.sh)"; exit 77; }
done
[ -x /usr/lib/cni/bridge ] || { echo "SKIP: containernetworking-plugins missing"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces, containers)"; exit 77; }

WORK="$(mktemp -d)"
# check, wait_for; PASSED and FAILED.
source "$repo/test/e2e/lib.sh"
clusters=()
cleanup() {
  local c
  for c in "${clusters[@]}"; do bash "$repo/scripts/k8s-down.sh" "$c" >/dev/null 2>&1 || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

iptables_before="$(iptables-save 2>/dev/null | grep -c '^:KUBE-' || true)"
start=$SECONDS

# up NAME N: a cluster with N kubelets in $WORK/NAME.
up() {
  clusters+=("$WORK/$1")
  local t=$SECONDS
  bash "$repo/scripts/k8s-up.sh" "$WORK/$1" --kubelets "$2" >"$WORK/$1-up.log" 2>&1 || {
    echo "k8s-up.sh $1 --kubelets $2 failed:"
    tail -20 "$WORK/$1-up.log"
    find "$WORK/$1" -name '*.log' -newer "$WORK/$1-up.log" -o -name '*.log' -size +0 | head -20 |
      while read -r f; do echo "== $f"; tail -5 "$f"; done
    exit 1
  }
  echo "cluster $1: $2 node(s) Ready in $((SECONDS - t)) s"
}
up a 2
up b 1

kc() { kubectl --kubeconfig "$WORK/$1/admin.kubeconfig" --request-timeout=20s "${@:2}"; }
env_of() { (. "$WORK/$1/env" && eval "echo \$$2"); }

# The pod asks its API server, through the Service, who it is.
probe_pod() {
  cat <<EOF
apiVersion: v1
kind: Pod
metadata: {name: probe, namespace: default}
spec:
  restartPolicy: Never
  containers:
  - name: probe
    image: $(env_of "$1" NODES_IMAGE_BUSYBOX)
    imagePullPolicy: IfNotPresent
    command:
    - sh
    - -c
    - |
      sa=/var/run/secrets/kubernetes.io/serviceaccount
      body='{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}'
      # kube-proxy may not have written the Service's rules yet: 20 tries.
      tries=0
      until printf 'POST /apis/authentication.k8s.io/v1/selfsubjectreviews HTTP/1.1\r\nHost: kubernetes.default.svc\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
          "\$(cat \$sa/token)" "\${#body}" "\$body" |
        timeout 5 openssl s_client -quiet -connect "\$KUBERNETES_SERVICE_HOST:\$KUBERNETES_SERVICE_PORT" \
          -CAfile \$sa/ca.crt -verify_ip "\$KUBERNETES_SERVICE_HOST" -verify_return_error 2>/dev/null; do
        tries=\$((tries + 1)); [ \$tries -lt 20 ] || exit 1; sleep 1
      done
      echo && echo probe-done && sleep 3600
EOF
}

nodes_ready() {
  local n
  n="$(kc "$1" get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True)"
  [ "$n" = "$2" ]
}
# authenticated_as_pod C: the probe's log (the HTTP response: headers, then
# the SelfSubjectReview) names the pod's service account and the pod.
authenticated_as_pod() {
  kc "$1" logs probe | python3 -c '
import json, sys
text = sys.stdin.read()
u = json.loads(text[text.index("{"):text.rindex("}") + 1])["status"]["userInfo"]
assert u["username"] == "system:serviceaccount:default:default", u
assert u["extra"]["authentication.kubernetes.io/pod-name"] == ["probe"], u'
}
# node_ips_distinct C: the Nodes' InternalIPs are the per-node addresses
# k8s-up.sh gave the kubelets (NODES_NODE_IPS), one each.
node_ips_distinct() {
  local ips
  ips="$(kc "$1" get nodes -o jsonpath='{range .items[*]}{.status.addresses[?(@.type=="InternalIP")].address}{"\n"}{end}' |
    sort -uV | paste -sd' ')"
  [ "$ips" = "$(env_of "$1" NODES_NODE_IPS)" ] || { echo "InternalIPs '$ips'"; return 1; }
}
pod_running() { [ "$(kc "$1" get pod probe -o jsonpath='{.status.phase}')" = Running ]; }
probe_done() { kc "$1" logs probe | grep -q probe-done; }

check "cluster a: both Nodes Ready" nodes_ready a 2
check "cluster b: its Node Ready" nodes_ready b 1
check "cluster a: each node has its own InternalIP" node_ips_distinct a
for c in a b; do
  probe_pod "$c" | kc "$c" apply -f - >/dev/null
done
for c in a b; do
  check "cluster $c: the default kube-scheduler binds the pod and it runs" wait_for 60 pod_running "$c"
  check "cluster $c: the pod's IP is in the cluster's pod range" bash -c "
    ip=\$(kubectl --kubeconfig '$WORK/$c/admin.kubeconfig' get pod probe -o jsonpath='{.status.podIP}')
    python3 -c 'import ipaddress,sys; sys.exit(0 if ipaddress.ip_address(sys.argv[1]) in ipaddress.ip_network(sys.argv[2]) else 1)' \"\$ip\" '$(env_of "$c" NODES_CLUSTER_CIDR)'"
  check "cluster $c: the pod reached its API server through the kubernetes Service (kubectl logs via the kubelet)" \
    wait_for 60 probe_done "$c"
  check "cluster $c: authenticated as the pod's service account, bound to the pod" authenticated_as_pod "$c"
done
check "the two clusters have distinct network namespaces" \
  test "$(env_of a NODES_NETNS)" != "$(env_of b NODES_NETNS)"
echo "both clusters up and probed in $((SECONDS - start)) s"

# Everything cluster C left on the machine: its processes, shims,
# containers, mounts, namespace, link.
leftovers() {
  local d="$WORK/$1" ns pid name found=0
  ns="$(env_of "$1" NODES_NETNS)"
  while read -r pid name; do
    if [ -d "/proc/$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "/${name##*/} "; then
      echo "process $pid ($name) still runs"; found=1
    fi
  done < <(cat "$d/pids.before-down")
  if pgrep -f -- "-address /run/ksched-k8s/k${ns#ksched-k}/" >/dev/null; then echo "a shim still runs"; found=1; fi
  for r in "$d"/nodes/node-*/runc/*; do
    [ -d "$r" ] && [ -n "$(runc --root "$r" list -q 2>/dev/null)" ] && { echo "containers left in $r"; found=1; }
  done
  if findmnt -rn -o TARGET | grep -qF -e "$d/" -e "/run/ksched-k8s/k${ns#ksched-k}/"; then echo "mounts left"; found=1; fi
  if ip netns list | grep -qw -- "$ns"; then echo "network namespace $ns left"; found=1; fi
  if ip link show "ksk${ns#ksched-k}h" >/dev/null 2>&1; then echo "link ksk${ns#ksched-k}h left"; found=1; fi
  if [ -e "/run/ksched-k8s/k${ns#ksched-k}" ]; then echo "slot directory left"; found=1; fi
  return $found
}
for c in a b; do
  cp "$WORK/$c/pids" "$WORK/$c/pids.before-down"
  t=$SECONDS
  bash "$repo/scripts/k8s-down.sh" "$WORK/$c" >"$WORK/$c-down.log" 2>&1
  echo "cluster $c: k8s-down.sh took $((SECONDS - t)) s"
  check "cluster $c: k8s-down.sh leaves nothing behind" leftovers "$c"
done
check "no KUBE-* iptables chain appeared in the host's tables" \
  test "$(iptables-save 2>/dev/null | grep -c '^:KUBE-' || true)" = "$iptables_before"
clusters=()
echo "total $((SECONDS - start)) s"
echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
