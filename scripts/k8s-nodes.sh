# k8s-nodes.sh — real nodes for a test cluster; sourced by k8s-up.sh
# (--kubelets N) and k8s-down.sh, never run by itself.
#
# A cluster takes a slot k (0..30) under /run/ksched-k8s/kK, which fixes its
# addresses, all in 198.18.0.0/15 (reserved for testing), so two clusters run
# side by side:
#   network namespace ksched-kK, created here; every node of the cluster
#     (containerd, kubelet) and its one kube-proxy run in it, so kube-proxy's
#     iptables rules, the CNI bridges and the pods' routes never touch the
#     host's tables;
#   a veth link in the /28 number k of 198.19.240.0/20: the host end has its
#     first address, where the API server listens; the namespace end has one
#     more per node (node i: first + i), where that node's kubelet serves on
#     the usual ports (10250, healthz 10248);
#   pods of node i (1..14): 198.18.0.0/15's /24 number 16k+i-1, on a CNI
#     bridge cni<i>, the cluster's pods within one /20 (kube-proxy's
#     --cluster-cidr).
# The namespace has no default route and the host forwards nothing to it, so
# traffic never leaves the machine. Pods reach the API server through the
# kubernetes Service (kube-proxy's DNAT) and a masquerade rule inside the
# namespace that makes their packets come from the link address.
#
# Each node has its own containerd (root, state, runc root, CNI config under
# DIR/nodes/node-I, its socket in /run/ksched-k8s/kK) and loads the two
# images scripts/node-images.sh builds: no image is ever pulled. A kubelet's
# root directory is /run/ksched-k8s/kK/node-I: it serves unix sockets there,
# whose paths must stay under 108 bytes whatever DIR is.

nodes_run=/run/ksched-k8s

# nodes_addr INDEX: the dotted /24 prefix ("198.18.3") of /24 number INDEX in
# 198.18.0.0/15.
nodes_addr() { echo "198.$((18 + $1 / 256)).$(($1 % 256))"; }

# nodes_link_ip I: address I+1 of the slot's link /28 in 198.19.240.0/20
# (0: the host end; I >= 1: node I).
nodes_link_ip() {
  local n=$((16 * nodes_slot + 1 + $1))
  echo "198.19.$((240 + n / 256)).$((n % 256))"
}

# nodes_in_ns COMMAND...: runs COMMAND in the cluster's network namespace
# only (its mount namespace stays the host's: kubelet and containerd must
# see each other's mounts).
nodes_in_ns() { nsenter --net="/run/netns/$nodes_ns" "$@"; }

# nodes_claim_slot: the lowest free slot; a slot whose k8s-up.sh has
# finished and whose cluster's processes are all gone (a run that died before
# k8s-down.sh) is cleaned and reused.
nodes_claim_slot() {
  local k owner
  for k in $(seq 0 30); do
    mkdir -p "$nodes_run" # (a teardown below removes it when it was the last slot)
    if mkdir "$nodes_run/k$k" 2>/dev/null; then
      nodes_own_slot "$k"
      return 0
    fi
    owner="$(cat "$nodes_run/k$k/owner" 2>/dev/null || true)"
    if [ -n "$owner" ] && ! nodes_starting "$k" && ! nodes_owner_alive "$owner"; then
      nodes_teardown "$owner" >/dev/null 2>&1 || true
      # Its directory may be gone: the slot's own names go regardless.
      ip netns del "ksched-k$k" 2>/dev/null || true
      ip link del "ksk${k}h" 2>/dev/null || true
      nodes_umount_under "$nodes_run/k$k/"
      rm -rf "${nodes_run:?}/k$k"
      mkdir -p "$nodes_run"
      if mkdir "$nodes_run/k$k" 2>/dev/null; then
        nodes_own_slot "$k"
        return 0
      fi
    fi
  done
  echo "k8s-up: no free node slot in $nodes_run (31 clusters with nodes run?)" >&2
  return 1
}

# nodes_own_slot K: records this k8s-up.sh and its DIR as slot K's owner.
nodes_own_slot() {
  echo "$$" >"$nodes_run/k$1/starter"
  echo "$dir" >"$nodes_run/k$1/owner"
  nodes_slot=$1
}

# nodes_starting K: the k8s-up.sh that claimed slot K still runs (its
# cluster's processes may not have started yet).
nodes_starting() {
  local pid
  pid="$(cat "$nodes_run/k$1/starter" 2>/dev/null)" || return 1
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "k8s-up.sh "
}

# nodes_owner_alive DIR: a process DIR/pids lists still runs.
nodes_owner_alive() {
  local pid name
  [ -s "$1/pids" ] || return 1
  while read -r pid name; do
    [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "/${name##*/} " && return 0
  done <"$1/pids"
  return 1
}

# nodes_vars: the slot's names and addresses (needs nodes_slot).
nodes_vars() {
  nodes_ns="ksched-k$nodes_slot"
  nodes_veth="ksk${nodes_slot}h"
  nodes_host_ip="$(nodes_link_ip 0)"
  nodes_cluster_cidr="$(nodes_addr $((16 * nodes_slot))).0/20"
  nodes_sock_dir="$nodes_run/k$nodes_slot"
}

# nodes_add_node_ips: every node's address on the namespace's link end.
nodes_add_node_ips() {
  local i
  for i in $(seq 1 "$kubelets"); do
    nodes_in_ns ip addr add "$(nodes_link_ip "$i")/28" dev eth0 || return 1
  done
}

# nodes_prepare: claims a slot, creates the namespace and its link; sets
# api_host to the link's host address. Before any process starts.
nodes_prepare() {
  local kbin="${K8S_KUBELET_BIN:-$bin}" b
  for b in kubelet kube-proxy; do
    [ -x "$kbin/$b" ] || { echo "k8s-up: $kbin/$b missing; run 'make k8s'" >&2; exit 1; }
  done
  for b in containerd containerd-shim-runc-v2 ctr runc nsenter ip iptables gcc; do
    command -v "$b" >/dev/null || {
      echo "k8s-up: --kubelets needs $b (apt-get install containerd runc containernetworking-plugins busybox-static iptables gcc)" >&2
      exit 1
    }
  done
  [ -x /usr/lib/cni/bridge ] || { echo "k8s-up: --kubelets needs containernetworking-plugins" >&2; exit 1; }
  nodes_claim_slot || exit 1
  nodes_vars
  mkdir -p "$dir/nodes"
  echo "$nodes_slot" >"$dir/nodes/slot"
  if ! {
    ip netns add "$nodes_ns" &&
      ip link add "$nodes_veth" type veth peer name eth0 netns "$nodes_ns" &&
      ip addr add "$nodes_host_ip/28" dev "$nodes_veth" && ip link set "$nodes_veth" up &&
      nodes_in_ns ip link set lo up &&
      nodes_add_node_ips &&
      nodes_in_ns ip link set eth0 up &&
      nodes_in_ns sysctl -qw net.ipv4.ip_forward=1 &&
      nodes_in_ns iptables -t nat -A POSTROUTING -s "$nodes_cluster_cidr" -d "$nodes_host_ip/32" -j MASQUERADE
  } >>"$dir/nodes/setup.log" 2>&1; then
    echo "k8s-up: could not create network namespace $nodes_ns; see $dir/nodes/setup.log" >&2
    bash "$repo/scripts/k8s-down.sh" "$dir" >/dev/null 2>&1 || true
    exit 1
  fi
  api_host="$nodes_host_ip"
}

# nodes_start: images, then per node a containerd and a kubelet, then
# kube-proxy; waits until every Node is Ready. After the control plane.
nodes_start() {
  local kbin="${K8S_KUBELET_BIN:-$bin}" i nd sock cidr name ip
  bash "$repo/scripts/node-images.sh" "$dir/nodes/images" >/dev/null 2>>"$dir/nodes/setup.log" ||
    fail "node-images.sh failed; see $dir/nodes/setup.log"
  for i in $(seq 1 "$kubelets"); do
    name="node-$i"
    nd="$dir/nodes/$name"
    sock="$nodes_sock_dir/$name.sock"
    cidr="$(nodes_addr $((16 * nodes_slot + i - 1))).0/24"
    mkdir -p "$nd/cni/net.d" "$nd/cni/ipam" "$nd/pod-logs" "$nd/volume-plugins"
    cat >"$nd/containerd.toml" <<EOF
version = 2
root = "$nd/containerd/root"
state = "$nd/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.internal.v1.tracing", "io.containerd.tracing.processor.v1.otlp"]
[grpc]
  address = "$sock"
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$nd/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "ksched.test/pause:1"
  netns_mounts_under_state_dir = true
  enable_selinux = false
  # Without CAP_SYS_RESOURCE (this machine is a container) runc cannot lower
  # oom_score_adj (the kubelet asks -998 for sandboxes): clamp at ours.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$nd/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$nd/cni/net.d"
EOF
    cat >"$nd/cni/net.d/10-ksched.conflist" <<EOF
{"cniVersion": "1.0.0", "name": "ksched-k$nodes_slot-$name", "plugins": [
  {"type": "bridge", "bridge": "cni$i", "isGateway": true, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "dataDir": "$nd/cni/ipam", "ranges": [[{"subnet": "$cidr"}]],
            "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}}]}
EOF
    # nsenter execs the command as given: a full path, so that k8s-down.sh
    # recognizes it in /proc/PID/cmdline.
    launch "nodes/$name/containerd" nsenter --net="/run/netns/$nodes_ns" \
      "$(command -v containerd)" --config "$nd/containerd.toml" --log-level warn
  done
  for i in $(seq 1 "$kubelets"); do
    sock="$nodes_sock_dir/node-$i.sock"
    wait_until 30 "containerd of node-$i" ctr -a "$sock" version
    for image in pause busybox; do
      ctr -a "$sock" -n k8s.io images import "$dir/nodes/images/$image.tar" >>"$dir/nodes/setup.log" 2>&1 ||
        fail "importing $image into node-$i failed; see $dir/nodes/setup.log"
    done
  done

  local infra_flag=()
  "$kbin/kubelet" --help 2>/dev/null | grep -q -- --pod-infra-container-image &&
    infra_flag=(--pod-infra-container-image=ksched.test/pause:1)
  for i in $(seq 1 "$kubelets"); do
    name="node-$i"
    nd="$dir/nodes/$name"
    ip="$(nodes_link_ip "$i")"
    sign "$name" "/O=system:nodes/CN=system:node:$name"
    sign "$name-serving" "/O=system:nodes/CN=system:node:$name" \
      "$(printf 'extendedKeyUsage=serverAuth\nsubjectAltName=IP:%s,DNS:%s' "$ip" "$name")"
    kubeconfig "$nd/kubelet.kubeconfig" "$name"
    # A kubelet inside a container: cgroup v1 (with a v2 unified mount) and
    # cgroupfs, no QoS/allocatable cgroups (two kubelets share the host's
    # cgroup tree), no swap/kernel-default/eviction checks, no read-only
    # port.
    cat >"$nd/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $ip
port: 10250
readOnlyPort: 0
healthzBindAddress: $ip
healthzPort: 10248
tlsCertFile: $pki/$name-serving.crt
tlsPrivateKeyFile: $pki/$name-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://$nodes_sock_dir/$name.sock
imageServiceEndpoint: unix://$nodes_sock_dir/$name.sock
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: []
failCgroupV1: false
failSwapOn: false
protectKernelDefaults: false
localStorageCapacityIsolation: false
evictionHard: {memory.available: "0%", nodefs.available: "0%", nodefs.inodesFree: "0%", imagefs.available: "0%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
clusterDomain: cluster.local
resolvConf: ""
podLogsDir: $nd/pod-logs
volumePluginDir: $nd/volume-plugins
rotateCertificates: false
serializeImagePulls: false
EOF
    launch "nodes/$name/kubelet" nsenter --net="/run/netns/$nodes_ns" \
      "$kbin/kubelet" --config="$nd/kubelet.yaml" --kubeconfig="$nd/kubelet.kubeconfig" \
      --root-dir="$nodes_sock_dir/$name" --cert-dir="$nd/kubelet-pki" --hostname-override="$name" \
      --node-ip="$ip" "${infra_flag[@]}" --v=1
  done

  # One kube-proxy for the cluster: every node shares the namespace, hence
  # its iptables tables (a real node runs its own for its own tables).
  sign kube-proxy "/CN=system:kube-proxy"
  kubeconfig "$dir/nodes/kube-proxy.kubeconfig" kube-proxy
  cat >"$dir/nodes/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $dir/nodes/kube-proxy.kubeconfig}
mode: iptables
clusterCIDR: $nodes_cluster_cidr
hostnameOverride: node-1
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
  launch nodes/kube-proxy nsenter --net="/run/netns/$nodes_ns" \
    "$kbin/kube-proxy" --config="$dir/nodes/kube-proxy.yaml" --v=1

  for i in $(seq 1 "$kubelets"); do
    wait_until 90 "node-$i Ready" nodes_ready "node-$i"
  done
}

# nodes_ready NAME: the Node's Ready condition is True.
nodes_ready() {
  admin_curl "/api/v1/nodes/$1" | python3 -c '
import json, sys
conds = json.load(sys.stdin).get("status", {}).get("conditions", [])
sys.exit(0 if any(c["type"] == "Ready" and c["status"] == "True" for c in conds) else 1)'
}

# nodes_env: lines for DIR/env.
nodes_env() {
  cat <<EOF
NODES_NETNS=$nodes_ns
NODES_CLUSTER_CIDR=$nodes_cluster_cidr
NODES_HOST_IP=$nodes_host_ip
NODES_NODE_IPS="$(for i in $(seq 1 "$kubelets"); do nodes_link_ip "$i"; done | paste -sd' ')"
NODES_IMAGE_PAUSE=ksched.test/pause:1
NODES_IMAGE_BUSYBOX=ksched.test/busybox:1
EOF
}

# nodes_umount_under PREFIX: unmounts every mount below PREFIX, deepest
# first; lazily, so a mount still busy goes when its last user does.
nodes_umount_under() {
  findmnt -rn -o TARGET | { grep -F -- "$1" || true; } | sort -r | while read -r m; do
    umount -l "$(printf '%b' "$m")" 2>/dev/null || true
  done
}

# nodes_teardown DIR: after the processes in DIR/pids are stopped, removes
# what the nodes of DIR's cluster leave behind: containers (runc state) and
# their shims, mounts under DIR (overlay rootfs, shm, volumes, pod network
# namespaces), pod log links, the cluster's network namespace (its veth,
# bridges and iptables rules go with it) and the slot. Idempotent.
nodes_teardown() {
  local d="$1" slot rr id pid addr m c
  # Best effort: one failing step must not leave the rest behind.
  local -
  set +e
  [ -s "$d/nodes/slot" ] || return 0
  slot="$(cat "$d/nodes/slot")"
  # The shim gives runc the runtime's Root plus containerd's namespace.
  for rr in "$d"/nodes/node-*/runc/*; do
    [ -d "$rr" ] || continue
    for id in $(runc --root "$rr" list -q 2>/dev/null); do
      runc --root "$rr" kill --all "$id" KILL >/dev/null 2>&1 || true
    done
    for id in $(runc --root "$rr" list -q 2>/dev/null); do
      for _ in $(seq 50); do
        runc --root "$rr" delete --force "$id" >/dev/null 2>&1 && break
        sleep 0.1
      done
    done
  done
  # Shims outlive containerd by design: each serves one pod, names its
  # containerd's socket (ours: under the slot's directory) on its command
  # line, and listens on the address its task directory records.
  for pid in $(pgrep -f -- "containerd-shim-runc-v2 .*-address $nodes_run/k$slot/" 2>/dev/null); do
    kill -KILL "$pid" 2>/dev/null || true
  done
  for addr in "$d"/nodes/node-*/containerd/state/io.containerd.runtime.v2.task/*/*/address; do
    [ -f "$addr" ] && rm -f "$(sed 's|^unix://||' "$addr")"
  done
  nodes_umount_under "$d/nodes/"
  nodes_umount_under "$nodes_run/k$slot/"
  for m in /var/log/containers/*.log; do
    [ -L "$m" ] && readlink "$m" | grep -qF -- "$d/nodes/" && rm -f "$m"
  done
  ip netns del "ksched-k$slot" 2>/dev/null || true
  ip link del "ksk${slot}h" 2>/dev/null || true
  if [ "$(cat "$nodes_run/k$slot/owner" 2>/dev/null)" = "$d" ]; then
    rm -rf "$nodes_run/k$slot"
  fi
  rm -f "$d/nodes/slot"
  # The last cluster with nodes removes what kubelets and runc share on the
  # host (each kubelet serves device plugins at a fixed path; runc puts
  # containers under /k8s.io in every cgroup hierarchy), where empty.
  if ! compgen -G "$nodes_run/k*" >/dev/null; then
    rm -f /var/lib/kubelet/device-plugins/kubelet.sock /var/lib/kubelet/device-plugins/kubelet_internal_checkpoint
    rmdir /var/lib/kubelet/device-plugins /var/lib/kubelet /var/log/containers /var/log/pods \
      /run/containerd/s /run/containerd "$nodes_run" 2>/dev/null || true
    for c in /sys/fs/cgroup/*/k8s.io; do
      [ -d "$c" ] && rmdir "$c" 2>/dev/null || true
    done
  fi
}
