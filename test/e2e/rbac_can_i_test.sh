#!/usr/bin/env bash
# ksched's RBAC on a real API server: applies manifests/00-namespace.yaml and
# 01-rbac.yaml, then asks `kubectl auth can-i --as=<ksched's ServiceAccount>`
# about every call ksched makes (each must be "yes") and about calls it must
# not be able to make (each must be "no": the default scheduler's Lease,
# nodes, secrets, ...).
#
# Control plane: K8S_KUBECONFIG (cluster-admin) and K8S_DIR of a running one,
# or one started here with k8s-up.sh from K8S_BIN (see lib.sh). Exits 77
# when there is none.
set -euo pipefail

WORK="$(mktemp -d)"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
cleanup() {
  k8s_down
  rm -rf "$WORK"
}
trap cleanup EXIT

command -v kubectl >/dev/null || { echo "SKIP: no kubectl"; exit 77; }
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
k8s_up
AS=system:serviceaccount:ksched-system:ksched

kc apply -f "$REPO/manifests/00-namespace.yaml" -f "$REPO/manifests/01-rbac.yaml" >"$WORK/apply.log"

# can VERB RESOURCE [kubectl auth can-i flags]: prints yes or no.
can() { kc auth can-i "$@" --as="$AS" 2>/dev/null || true; }
expect() {
  local want="$1"
  shift
  local got
  got="$(can "$@")"
  [ "$got" = "$want" ] || { echo "kubectl auth can-i $* --as=$AS: $got, want $want"; return 1; }
}

# Every call ksched makes (see manifests/01-rbac.yaml and
# cmd/ksched/manifests_test.cc's KschedCalls).
for r in pods nodes persistentvolumes persistentvolumeclaims namespaces storageclasses.storage.k8s.io \
  csinodes.storage.k8s.io csidrivers.storage.k8s.io csistoragecapacities.storage.k8s.io \
  volumeattachments.storage.k8s.io poddisruptionbudgets.policy \
  services replicationcontrollers replicasets.apps statefulsets.apps \
  deviceclasses.resource.k8s.io resourceclaims.resource.k8s.io \
  resourceclaimtemplates.resource.k8s.io resourceslices.resource.k8s.io devicetaintrules.resource.k8s.io; do
  for v in list watch; do check "yes: $v $r (informer, all namespaces)" expect yes "$v" "$r" -A; done
done
check "yes: create pods/binding" expect yes create pods --subresource=binding -n team-a
check "yes: patch pods/status" expect yes patch pods --subresource=status -n team-a
check "yes: delete pods (preemption)" expect yes delete pods -n team-a
for r in events events.events.k8s.io; do
  check "yes: create $r" expect yes create "$r" -n team-a
  check "yes: patch $r" expect yes patch "$r" -n team-a
done
check "yes: patch persistentvolumes" expect yes patch persistentvolumes/pv-1
check "yes: patch persistentvolumeclaims" expect yes patch persistentvolumeclaims/data -n team-a
check "yes: get resourceclaims" expect yes get resourceclaims.resource.k8s.io/gpu -n team-a
check "yes: update resourceclaims" expect yes update resourceclaims.resource.k8s.io/gpu -n team-a
check "yes: update resourceclaims/status" \
  expect yes update resourceclaims.resource.k8s.io/gpu --subresource=status -n team-a
check "yes: patch resourceclaims/status" \
  expect yes patch resourceclaims.resource.k8s.io/gpu --subresource=status -n team-a
# Extended resources backed by DRA: the scheduler creates the pod's claim
# and deletes it after a failed binding.
check "yes: create resourceclaims" expect yes create resourceclaims.resource.k8s.io -n team-a
check "yes: delete resourceclaims" expect yes delete resourceclaims.resource.k8s.io/gpu -n team-a
check "yes: create tokenreviews" expect yes create tokenreviews.authentication.k8s.io
check "yes: create subjectaccessreviews" expect yes create subjectaccessreviews.authorization.k8s.io
check "yes: get the client CA configmap" \
  expect yes get configmaps/extension-apiserver-authentication -n kube-system
check "yes: create leases in ksched-system" expect yes create leases.coordination.k8s.io -n ksched-system
check "yes: get lease ksched" expect yes get leases.coordination.k8s.io/ksched -n ksched-system
check "yes: update lease ksched" expect yes update leases.coordination.k8s.io/ksched -n ksched-system
check "yes: get /version" expect yes get /version

# What ksched must not be able to do.
check "no: update lease kube-scheduler in kube-system" \
  expect no update leases.coordination.k8s.io/kube-scheduler -n kube-system
check "no: get lease kube-scheduler in kube-system" \
  expect no get leases.coordination.k8s.io/kube-scheduler -n kube-system
check "no: update another lease in ksched-system" \
  expect no update leases.coordination.k8s.io/other -n ksched-system
check "no: delete nodes" expect no delete nodes
check "no: patch nodes" expect no patch nodes
check "no: get secrets" expect no get secrets -n ksched-system
check "no: list secrets" expect no list secrets -A
check "no: create pods" expect no create pods -n team-a
check "no: update pods" expect no update pods -n team-a
check "no: get another configmap in kube-system" expect no get configmaps/kube-proxy -n kube-system
check "no: create clusterrolebindings" expect no create clusterrolebindings
check "no: get /metrics of other components" expect no get /metrics
check "no: create serviceaccounts/token" expect no create serviceaccounts --subresource=token -n ksched-system

echo "rbac_can_i: $PASSED passed, $FAILED failed"
((FAILED == 0))
