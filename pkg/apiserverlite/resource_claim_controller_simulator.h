// ResourceClaimControllerSimulator (--simulate-kubelet): the part of
// kube-controller-manager's resource-claim controller (and of the garbage
// collector) that a scheduler of DRA pods relies on, so pods with
// ResourceClaimTemplates get their claims without a controller manager.
//
// `delay` after any pod, claim or template change, one pass:
//   - every pod not being deleted, for each spec.resourceClaims entry with a
//     resourceClaimTemplateName whose claim is not yet recorded in
//     status.resourceClaimStatuses (or whose recorded claim is gone or not
//     owned by the pod): reuses a claim the pod owns with the annotation
//     resource.kubernetes.io/pod-claim-name = the entry's name, else creates
//     one from the template, generateName "<pod>-<entry>-" (both parts
//     shortened proportionally past 57 characters), owned by the pod
//     (controller, blockOwnerDeletion), with the template's labels and
//     annotations plus that annotation; then records it in the pod's
//     status.resourceClaimStatuses (other entries kept). A missing template
//     is retried on the next change;
//   - every claim: a status.reservedFor pod entry whose pod is gone,
//     replaced (other uid) or done (Succeeded, Failed, or deleted before it
//     was bound) is removed; when that empties reservedFor and the claim has
//     the resource.kubernetes.io/delete-protection finalizer, the allocation
//     is cleared and the finalizer removed (a claim being deleted with that
//     finalizer and no reservations gets the same); a claim reserved for
//     nobody whose owning pod is gone, replaced or done is deleted.
// Only pods with spec.resourceClaims trigger a pass or are decoded in one.
// Not simulated: reserving an allocated claim for a pod that another
// scheduler bound without reserving it, and the controller's metrics.
//
// Thread-safety: observes the stores (under their mutexes it only schedules
// one coalesced timer) and writes from the TimerQueue thread, never holding
// two store mutexes at once. The stores and the timer queue must outlive
// the simulator's timers (the owner stops the queue first).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/apiserverlite/object_store.h"
#include "pkg/apiserverlite/resources.h"
#include "pkg/apiserverlite/timer_queue.h"
#include "pkg/util/clock.h"

namespace ksched::apiserver {

inline constexpr char kAnnPodClaimName[] = "resource.kubernetes.io/pod-claim-name";
inline constexpr char kClaimDeleteProtectionFinalizer[] = "resource.kubernetes.io/delete-protection";

class ResourceClaimControllerSimulator {
 public:
  // `claim_info` describes resourceclaims (for creating generated claims).
  ResourceClaimControllerSimulator(ObjectStore& pods, ObjectStore& claims, ObjectStore& templates,
                                   const ResourceInfo& claim_info, TimerQueue& timers, util::Duration delay);

  // Starts / stops observing the stores. After Detach no new timer is
  // scheduled; timers already scheduled still run.
  void Attach();
  void Detach();

  uint64_t claims_created() const { return claims_created_.load(); }
  uint64_t reservations_removed() const { return reservations_removed_.load(); }
  uint64_t claims_deallocated() const { return claims_deallocated_.load(); }
  uint64_t claims_deleted() const { return claims_deleted_.load(); }

 private:
  void OnEvent();
  // One pass over every pod and claim (timer thread).
  void Sync();
  void SyncPod(const nlohmann::json& pod);
  // The name of the claim for the pod's entry `pod_claim`, created if
  // needed; "" when there is none to record (a failure, retried later).
  std::string EnsureClaim(const nlohmann::json& pod, const std::string& pod_claim, const std::string& template_name);
  void SyncClaim(const std::string& key, const nlohmann::json& claim);

  ObjectStore& pods_;
  ObjectStore& claims_;
  ObjectStore& templates_;
  const ResourceInfo& claim_info_;
  TimerQueue& timers_;
  const util::Duration delay_;
  std::atomic<bool> sync_pending_{false};
  std::atomic<uint64_t> claims_created_{0};
  std::atomic<uint64_t> reservations_removed_{0};
  std::atomic<uint64_t> claims_deallocated_{0};
  std::atomic<uint64_t> claims_deleted_{0};
  uint64_t pod_observer_ = 0;
  uint64_t claim_observer_ = 0;
  uint64_t template_observer_ = 0;
};

}  // namespace ksched::apiserver
