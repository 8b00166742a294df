// The memory a pod costs once decoded: the informers and the scheduler's
// cache hold one per pod in the cluster, so at a start over 10,000 pods the
// pods are half of ksched's heap. Counted by malloc (deterministic for a
// given glibc), not timed, so the check cannot flake; it fails when a change
// makes a pod more than 5 % larger. Rarely set members belong in Boxed<T>
// (boxed.h), which costs a pointer when absent.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/api/types.h"
#include "pkg/util/heap_in_use.h"

namespace ksched::api {
namespace {

// A scheduler_perf pod (templates/pod-default.yaml) shaped as the API
// server serves it once bound: defaulted, with the service account's
// projected volume, the two default tolerations and PodScheduled.
constexpr std::string_view kBoundPod = R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"pod-h8x2k",
"generateName":"pod-","namespace":"namespace-1","uid":"0f3c2a4e-5b6d-4c7e-8f90-a1b2c3d4e5f6",
"resourceVersion":"1234567","creationTimestamp":"2026-12-02T10:00:00Z","managedFields":[{"manager":"scheduler_perf",
"operation":"Update","apiVersion":"v1","time":"2026-12-02T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{
"f:spec":{"f:containers":{"k:{\"name\":\"pause\"}":{".":{},"f:image":{},"f:name":{}}}}}}]},
"spec":{"volumes":[{"name":"kube-api-access-x7k2p","projected":{"sources":[{"serviceAccountToken":{
"expirationSeconds":3607,"path":"token"}},{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt",
"path":"ca.crt"}]}},{"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1",
"fieldPath":"metadata.namespace"}}]}}],"defaultMode":420}}],"containers":[{"name":"pause",
"image":"registry.k8s.io/pause:3.10.1","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{
"limits":{"cpu":"100m","memory":"500Mi"},"requests":{"cpu":"100m","memory":"500Mi"}},"volumeMounts":[{
"name":"kube-api-access-x7k2p","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],
"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],
"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default",
"serviceAccount":"default","nodeName":"node-0-abcde","securityContext":{},"schedulerName":"ksched","tolerations":[{
"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{
"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],
"priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"status":{"phase":"Pending",
"conditions":[{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-12-02T10:00:01Z"}],
"qosClass":"Guaranteed"}})";

// Measured with GCC 12.2 and glibc 2.36 (Debian 12): the struct, and all a
// shared decoded pod holds. The pods decoded below come from one template,
// as a workload's do, and share their containers, tolerations and (bound in
// one second) PodScheduled condition (SharedList); unshared, a pod took
// 2,734 bytes.
constexpr size_t kPodStructBytes = 936;
constexpr size_t kBoundPodHeapBytes = 1281;

TEST(PodFootprint, TheStructStaysSmall) {
  EXPECT_LE(sizeof(Pod), kPodStructBytes * 105 / 100)
      << "api::Pod grew; box members most pods leave unset (Boxed<T>)";
}

// A scheduling cycle copies the pod it assumes (make_shared: the struct and
// two words of counts). glibc serves requests up to 1,000 bytes from its
// small bins; a larger one makes malloc consolidate its fast bins first,
// which each cycle paid when the struct was 1,096 bytes.
TEST(PodFootprint, TheAssumedCopyIsASmallBinRequest) {
  EXPECT_LE(sizeof(Pod) + 2 * sizeof(void*), 1000u) << "api::Pod grew past malloc's small bins";
}

struct Decoded {
  size_t heap_bytes_per_pod = 0;
  std::shared_ptr<const Pod> last;
};

// 1,000 pods decoded from `text` and kept alive, as an informer keeps them:
// the heap each costs.
Decoded DecodeMany(std::string_view text) {
  constexpr int kPods = 1000;
  std::vector<std::shared_ptr<const Pod>> pods;
  pods.reserve(kPods);
  // One decode first, so lazily built state (statics, caches) is not counted.
  EXPECT_TRUE(FromJsonText<Pod>(text).ok());
  const size_t before = util::HeapBytesInUse();
  for (int i = 0; i < kPods; ++i) {
    util::StatusOr<Pod> pod = FromJsonText<Pod>(text);
    if (!pod.ok()) {
      ADD_FAILURE() << pod.status().message();
      return {};
    }
    pods.push_back(std::make_shared<const Pod>(std::move(pod).value()));
  }
  return {(util::HeapBytesInUse() - before) / kPods, pods.back()};
}

TEST(PodFootprint, ADecodedBoundPodStaysSmall) {
  if (!util::kHeapBytesCounted) GTEST_SKIP() << "malloc is not glibc's under a sanitizer";
  const Decoded bound = DecodeMany(kBoundPod);
  ASSERT_NE(bound.last, nullptr);
  const size_t per_pod = bound.heap_bytes_per_pod;
  EXPECT_LE(per_pod, kBoundPodHeapBytes * 105 / 100)
      << "a decoded bound pod takes " << per_pod << " bytes (was " << kBoundPodHeapBytes << ")";
  EXPECT_GE(per_pod, kPodStructBytes) << "malloc's counts look wrong";
  EXPECT_EQ(bound.last->spec.node_name, "node-0-abcde");
}

// The same pod once its kubelet ran it: the kubelet's four conditions are
// not kept, so it costs what the bound pod does (about 900 bytes more if
// they were).
TEST(PodFootprint, ARunningPodCostsNoMoreThanABoundOne) {
  if (!util::kHeapBytesCounted) GTEST_SKIP() << "malloc is not glibc's under a sanitizer";
  std::string running(kBoundPod);
  const std::string scheduled = R"("conditions":[)";
  const size_t at = running.find(scheduled);
  ASSERT_NE(at, std::string::npos);
  running.insert(at + scheduled.size(),
                 R"({"type":"PodReadyToStartContainers","status":"True","lastProbeTime":null,)"
                 R"("lastTransitionTime":"2026-12-02T10:00:03Z"},{"type":"Initialized","status":"True",)"
                 R"("lastProbeTime":null,"lastTransitionTime":"2026-12-02T10:00:01Z"},{"type":"Ready",)"
                 R"("status":"True","lastProbeTime":null,"lastTransitionTime":"2026-12-02T10:00:04Z"},)"
                 R"({"type":"ContainersReady","status":"True","lastProbeTime":null,)"
                 R"("lastTransitionTime":"2026-12-02T10:00:04Z"},)");
  const size_t bound = DecodeMany(kBoundPod).heap_bytes_per_pod;
  const Decoded decoded = DecodeMany(running);
  ASSERT_NE(decoded.last, nullptr);
  const size_t running_bytes = decoded.heap_bytes_per_pod;
  // 64 bytes: the dropped conditions' freed strings are reused for the
  // pod's later, smaller allocations, which malloc then serves whole (48
  // bytes); the four conditions would add about 900.
  EXPECT_LE(running_bytes, bound + 64) << "the kubelet's conditions are kept (" << running_bytes << " against "
                                       << bound << " bytes)";
  ASSERT_EQ(decoded.last->status.conditions.size(), 1u);
  EXPECT_EQ(decoded.last->status.conditions[0].type, "PodScheduled");
}

}  // namespace
}  // namespace ksched::api
