// PVControllerSimulator (--simulate-kubelet): the part of
// kube-controller-manager's PV controller (and of a dynamic provisioner)
// that a scheduler waits for, so pods with PVCs complete their binding
// without a controller manager.
//
// `delay` after any PV or PVC change it reconciles every claim that is not
// yet bound (no pv.kubernetes.io/bind-completed annotation):
//   - a PV whose claimRef names the claim (set by the scheduler's
//     VolumeBinding PreBind), or the PV the claim names in spec.volumeName,
//     is bound to it;
//   - a claim of an Immediate class (or no class) without the
//     selected-node annotation gets the smallest Available unclaimed PV of
//     its class with enough storage, the requested access modes and volume
//     mode, matching its selector; failing that, a class with a provisioner
//     provisions one;
//   - a claim with the volume.kubernetes.io/selected-node annotation and a
//     class whose provisioner is neither empty nor kubernetes.io/no-provisioner
//     gets a new PV "pvc-<claim uid>" of the requested size, pinned to that
//     node by a kubernetes.io/hostname affinity (the node's hostname label,
//     else its name), and is bound to it.
// Binding sets PV.spec.claimRef (with the claim's uid) and status.phase
// Bound, then PVC.spec.volumeName, the bind-completed (and, when the
// controller chose the PV, bound-by-controller) annotations, status.phase
// Bound, status.capacity and status.accessModes. New PVs without a claimRef
// move from Pending to Available, as the real controller does.
//
// Thread-safety: observes the stores (under their mutexes it only schedules
// one coalesced timer) and writes from the TimerQueue thread, never holding
// two store mutexes at once. The stores and the timer queue must outlive
// the simulator's timers (the owner stops the queue first).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/apiserverlite/object_store.h"
#include "pkg/apiserverlite/resources.h"
#include "pkg/apiserverlite/timer_queue.h"
#include "pkg/util/clock.h"

namespace ksched::apiserver {

class PVControllerSimulator {
 public:
  // `pv_info` describes persistentvolumes (for creating provisioned PVs).
  PVControllerSimulator(ObjectStore& pvs, ObjectStore& pvcs, ObjectStore& storage_classes, ObjectStore& nodes,
                        const ResourceInfo& pv_info, TimerQueue& timers, util::Duration delay);

  // Starts / stops observing the PV and PVC stores. After Detach no new
  // timer is scheduled; timers already scheduled still run.
  void Attach();
  void Detach();

  // Claims bound and PVs provisioned so far.
  uint64_t claims_bound() const { return claims_bound_.load(); }
  uint64_t volumes_provisioned() const { return volumes_provisioned_.load(); }

 private:
  void OnEvent(const EventPtr& event);
  // One reconciliation pass over every PV and claim (timer thread).
  void Sync();
  void MarkAvailable(const std::string& pv_name);
  // Binds the PV `pv_name` and the claim `pvc_key` to each other; false if
  // either changed in a way that forbids it.
  bool Bind(const std::string& pv_name, const std::string& pvc_key);
  // Creates "pvc-<uid>" for the claim (pinned to `node` unless empty) and
  // returns its name, or "" on failure.
  std::string Provision(const nlohmann::json& pvc, const nlohmann::json& storage_class, const std::string& node);
  std::string NodeHostname(const std::string& node) const;

  ObjectStore& pvs_;
  ObjectStore& pvcs_;
  ObjectStore& storage_classes_;
  ObjectStore& nodes_;
  const ResourceInfo& pv_info_;
  TimerQueue& timers_;
  const util::Duration delay_;
  std::atomic<bool> sync_pending_{false};
  std::atomic<uint64_t> claims_bound_{0};
  std::atomic<uint64_t> volumes_provisioned_{0};
  uint64_t pv_observer_ = 0;
  uint64_t pvc_observer_ = 0;
};

}  // namespace ksched::apiserver
