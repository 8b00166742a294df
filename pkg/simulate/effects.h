// RecordedEffects: what the scheduler would write to the API server —
// bindings, pod status changes, victim evictions, volume bindings,
// ResourceClaim updates, Events —
// recorded instead of sent, for `ksched simulate` to apply to its
// in-memory cluster between scheduling cycles (the way the API server and
// the informers would feed them back to the daemon).
//
// It is the Scheduler's apiwriter::Writer, its BindingClient, its
// VolumeClient and its ResourceClaimClient. Binding succeeds at once.
// ResourceClaim writes (DynamicResources' finalizer, allocation and
// reservedFor) are applied to the listers at once with the API server's
// rules: the claim must exist (kNotFound), a non-empty resourceVersion must
// be the stored one (kConflict), an update of the claim keeps its stored
// status and a status update its stored metadata and spec, and each write
// gets the next numeric resourceVersion. A status write that allocates
// devices with bindingConditions reports them True in status.devices at
// once, as a driver that attaches every device immediately would: the
// simulation takes them as met, and a claim it allocated never times out
// waiting for them. Volume writes are applied to the
// listers at once, and the claim is bound as the PV controller would (a PV
// with a claimRef binds its claim; a claim given the selected-node
// annotation gets a provisioned PV "pvc-<claim uid>" of its requested
// size): VolumeBinding's PreBind then finds its claims bound without
// waiting on the clock.
//
// Thread-safety: every method is thread-safe (binding cycles run on the
// binding pool's threads); Take() returns and clears what was recorded.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/api/types.h"
#include "pkg/scheduler/apiwriter/writer.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/scheduler/framework/resource_claim_client.h"

namespace ksched::simulate {

struct Effects {
  struct Binding {
    std::string namespace_, name, uid, node;
  };
  struct StatusUpdate {
    std::string namespace_, name, uid;
    scheduler::apiwriter::PodStatusUpdate update;
  };
  struct Eviction {
    std::string namespace_, name, uid;
  };
  struct Preempted {
    api::ObjectReference victim;
    api::ObjectReference preemptor;
  };
  std::vector<Binding> bindings;
  std::vector<StatusUpdate> status_updates;
  std::vector<Eviction> evictions;
  std::vector<Preempted> preempted;
  struct ClaimUpdate {
    std::shared_ptr<const api::ResourceClaim> old_claim, new_claim;
  };
  std::vector<api::PersistentVolume> pv_updates;
  std::vector<api::PersistentVolumeClaim> pvc_updates;
  // ResourceClaim writes in write order, already applied to the listers
  // (old_claim nullptr: created; new_claim nullptr: deleted).
  std::vector<ClaimUpdate> claim_updates;

  bool Empty() const {
    return bindings.empty() && status_updates.empty() && evictions.empty() && preempted.empty() &&
           pv_updates.empty() && pvc_updates.empty() && claim_updates.empty();
  }
};

class RecordedEffects final : public scheduler::apiwriter::Writer,
                              public scheduler::framework::BindingClient,
                              public scheduler::framework::VolumeClient,
                              public scheduler::framework::ResourceClaimClientSource,
                              public scheduler::framework::ResourceClaimClient {
 public:
  // `listers` (not owned, must outlive this) receive the volume writes.
  explicit RecordedEffects(scheduler::framework::InMemorySharedListers& listers) : listers_(listers) {}

  // ---- apiwriter::Writer
  void UpdatePodStatus(const api::Pod& pod, const scheduler::apiwriter::PodStatusUpdate& update) override;
  void ForgetPod(const std::string&, const std::string&) override {}
  // Records the eviction; `done` is told at once that it succeeded (the
  // simulation applies it before the next cycle).
  void DeleteVictim(const api::Pod& victim, const std::string& message, VictimDone done = {}) override;
  void RecordEvent(const scheduler::apiwriter::EventRecord& record) override;
  // ---- framework::BindingClient
  util::Status Bind(const api::Pod& pod, std::string_view node_name) override;
  scheduler::framework::VolumeClient* Volumes() override { return this; }
  // ---- framework::VolumeClient
  util::StatusOr<api::PersistentVolume> UpdatePersistentVolume(const api::PersistentVolume& pv) override;
  util::StatusOr<api::PersistentVolumeClaim> UpdatePersistentVolumeClaim(
      const api::PersistentVolumeClaim& pvc) override;
  // ---- framework::ResourceClaimClientSource
  scheduler::framework::ResourceClaimClient* ResourceClaims() override { return this; }
  // ---- framework::ResourceClaimClient
  util::StatusOr<api::ResourceClaim> GetResourceClaim(const std::string& ns, const std::string& name) override;
  util::StatusOr<api::ResourceClaim> UpdateResourceClaim(const api::ResourceClaim& claim) override;
  util::StatusOr<api::ResourceClaim> UpdateResourceClaimStatus(const api::ResourceClaim& claim) override;
  util::StatusOr<api::ResourceClaim> RemoveResourceClaimReservation(const std::string& ns, const std::string& name,
                                                                    const std::string& claim_uid,
                                                                    const std::string& pod_uid) override;
  // A pod's extended resource claim (DRAExtendedResource): named
  // generateName + a counter, uid "sim-claim-<n>", recorded as an update
  // from nothing; a deletion as an update to nothing.
  util::StatusOr<api::ResourceClaim> CreateResourceClaim(const api::ResourceClaim& claim) override;
  util::Status DeleteResourceClaim(const std::string& ns, const std::string& name) override;
  // Applied to the pod in the listers at once (it is not bound yet).
  util::Status PatchPodExtendedResourceClaimStatus(const std::string& ns, const std::string& name,
                                                   const api::PodExtendedResourceClaimStatus& status) override;

  Effects Take();

 private:
  // Checks the write against the stored claim (exists, resourceVersion),
  // lets `change` build the next version from a copy of it (an error from
  // `change` refuses the write), stores that with the next resourceVersion
  // and records the update.
  util::StatusOr<api::ResourceClaim> WriteClaim(
      const std::string& ns, const std::string& name, const std::string& resource_version,
      const std::function<util::Status(const api::ResourceClaim& stored, api::ResourceClaim& next)>& change);

  // Binds `pvc` to the PV named `pv_name` in the listers.
  void BindClaim(const api::PersistentVolumeClaim& pvc, const std::string& pv_name);

  scheduler::framework::InMemorySharedListers& listers_;
  std::mutex mu_;
  Effects effects_;  // guarded by mu_
  // Serialises claim read-modify-writes (binding threads may write
  // concurrently); taken before mu_.
  std::mutex claims_mu_;
  uint64_t created_claims_ = 0;  // guarded by claims_mu_
};

}  // namespace ksched::simulate
