#include "pkg/scheduler/plugins/volumerestrictions/volume_restrictions.h"

#include <algorithm>
#include <set>
#include <string>

namespace ksched::scheduler::plugins::volumerestrictions {

using framework::ActionType;
using framework::Code;
using framework::QueueingHint;
using framework::Status;

namespace {

// Interned once: the per-node reads index a slot.
const framework::StateKey kPreFilterStateKeySlot(kPreFilterStateKey);

constexpr std::string_view kReadWriteOncePod = "ReadWriteOncePod";

// The pod's ReadWriteOncePod claims ("namespace/name") and how many of them
// some pod in the snapshot already uses. Mutated only by PreFilter and by
// AddPod/RemovePod on a cloned state, so Clone copies it.
class PreFilterState final : public framework::StateData {
 public:
  std::shared_ptr<framework::StateData> Clone() const override { return std::make_shared<PreFilterState>(*this); }

  std::set<std::string, std::less<>> read_write_once_pod_pvcs;
  int conflicting_pvc_ref_count = 0;
};

bool NeedsRestrictionsCheck(const api::Volume& v) {
  return v.gce_persistent_disk || v.aws_elastic_block_store || v.rbd || v.iscsi;
}

bool HaveOverlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const std::string& x : a) {
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  }
  return false;
}

}  // namespace

bool IsVolumeConflict(const api::Volume& a, const api::Volume& b) {
  if (a.gce_persistent_disk && b.gce_persistent_disk) {
    // Many read-only mounts of one PD are fine; any writer excludes others.
    if (a.gce_persistent_disk->pd_name == b.gce_persistent_disk->pd_name &&
        !(a.gce_persistent_disk->read_only && b.gce_persistent_disk->read_only)) {
      return true;
    }
  }
  if (a.aws_elastic_block_store && b.aws_elastic_block_store) {
    // EBS attaches to one instance only, read-only or not.
    if (a.aws_elastic_block_store->volume_id == b.aws_elastic_block_store->volume_id) return true;
  }
  if (a.iscsi && b.iscsi) {
    if (a.iscsi->iqn == b.iscsi->iqn && !(a.iscsi->read_only && b.iscsi->read_only)) return true;
  }
  if (a.rbd && b.rbd) {
    // The same image: same pool and name, reached through a shared monitor.
    if (HaveOverlap(a.rbd->monitors, b.rbd->monitors) && a.rbd->pool == b.rbd->pool &&
        a.rbd->image == b.rbd->image && !(a.rbd->read_only && b.rbd->read_only)) {
      return true;
    }
  }
  return false;
}

bool SatisfyVolumeConflicts(const api::Pod& pod, const framework::NodeInfo& node_info) {
  for (const api::Volume& v : pod.spec.volumes) {
    if (!NeedsRestrictionsCheck(v)) continue;
    for (const framework::PodInfoPtr& pi : node_info.pods()) {
      for (const api::Volume& existing : pi->pod().spec.volumes) {
        if (IsVolumeConflict(v, existing)) return false;
      }
    }
  }
  return true;
}

std::pair<framework::PreFilterResult, Status> VolumeRestrictions::PreFilter(framework::CycleState& state,
                                                                            const api::Pod& pod,
                                                                            const framework::NodeInfoList&) {
  bool needs_check = std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(), NeedsRestrictionsCheck);
  auto s = std::make_shared<PreFilterState>();
  for (const api::Volume& v : pod.spec.volumes) {
    if (!v.persistent_volume_claim) continue;
    const std::string& claim = v.persistent_volume_claim->claim_name;
    auto pvc = listers_.PersistentVolumeClaims().Get(pod.metadata.namespace_, claim);
    if (pvc == nullptr) {
      return {framework::PreFilterResult(),
              Status(Code::kUnschedulableAndUnresolvable, "persistentvolumeclaim \"" + claim + "\" not found")};
    }
    const auto& modes = pvc->spec.access_modes;
    if (std::find(modes.begin(), modes.end(), kReadWriteOncePod) != modes.end()) {
      s->read_write_once_pod_pvcs.insert(framework::NamespacedName(pod.metadata.namespace_, claim));
    }
  }
  const framework::StorageInfoLister& storage = snapshot_().StorageInfos();
  for (const std::string& key : s->read_write_once_pod_pvcs) {
    if (storage.IsPVCUsedByPods(key)) ++s->conflicting_pvc_ref_count;
  }
  if (!needs_check && s->conflicting_pvc_ref_count == 0) {
    return {framework::PreFilterResult(), Status(Code::kSkip)};
  }
  state.Write(kPreFilterStateKeySlot, std::move(s));
  return {framework::PreFilterResult(), Status()};
}

Status VolumeRestrictions::UpdateWithPod(framework::CycleState& state, const api::Pod& pod, int delta) {
  PreFilterState* s = state.Lookup<PreFilterState>(kPreFilterStateKeySlot);
  if (s == nullptr) {
    return Status::Error("reading \"" + std::string(kPreFilterStateKey) + "\" from cycleState: not found");
  }
  for (const api::Volume& v : pod.spec.volumes) {
    if (!v.persistent_volume_claim) continue;
    std::string key = framework::NamespacedName(pod.metadata.namespace_, v.persistent_volume_claim->claim_name);
    if (s->read_write_once_pod_pvcs.count(key) > 0) s->conflicting_pvc_ref_count += delta;
  }
  return Status();
}

Status VolumeRestrictions::AddPod(framework::CycleState& state, const api::Pod&,
                                  const framework::PodInfoPtr& pod_info_to_add, const framework::NodeInfo&) {
  return UpdateWithPod(state, pod_info_to_add->pod(), 1);
}

Status VolumeRestrictions::RemovePod(framework::CycleState& state, const api::Pod&,
                                     const framework::PodInfoPtr& pod_info_to_remove, const framework::NodeInfo&) {
  return UpdateWithPod(state, pod_info_to_remove->pod(), -1);
}

Status VolumeRestrictions::Filter(framework::CycleState& state, const api::Pod& pod,
                                  const framework::NodeInfo& node_info) {
  if (!SatisfyVolumeConflicts(pod, node_info)) {
    return Status(Code::kUnschedulable, std::string(kErrReasonDiskConflict));
  }
  PreFilterState* s = state.Lookup<PreFilterState>(kPreFilterStateKeySlot);
  if (s == nullptr) {
    return Status::Error("reading \"" + std::string(kPreFilterStateKey) + "\" from cycleState: not found");
  }
  if (s->conflicting_pvc_ref_count > 0) {
    return Status(Code::kUnschedulable, std::string(kErrReasonReadWriteOncePodConflict));
  }
  return Status();
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> VolumeRestrictions::EventsToRegister() const {
  // Without hints the queue's node pre-check can swallow a Node/Add, so label
  // and taint updates are registered too (kubernetes#109437).
  ActionType node_actions = ActionType::kAdd;
  if (!enable_queueing_hints_) node_actions |= ActionType::kUpdateNodeTaint | ActionType::kUpdateNodeLabel;
  std::vector<framework::ClusterEventWithHint> events;
  // spec.volumes is immutable: only deletions release a disk or a claim.
  events.push_back({framework::ClusterEvent(framework::resource::kPod, ActionType::kDelete),
                    &VolumeRestrictions::IsSchedulableAfterPodDeleted});
  events.push_back({framework::ClusterEvent(framework::resource::kNode, node_actions), nullptr});
  // The PVC must exist for its access modes to be checked.
  events.push_back({framework::ClusterEvent(framework::resource::kPersistentVolumeClaim, ActionType::kAdd),
                    &VolumeRestrictions::IsSchedulableAfterPVCAdded});
  return events;
}

util::StatusOr<QueueingHint> VolumeRestrictions::IsSchedulableAfterPodDeleted(const api::Pod& pod,
                                                                              const framework::EventObject& old_obj,
                                                                              const framework::EventObject&) {
  const api::Pod* deleted = old_obj.As<api::Pod>();
  if (deleted == nullptr) {
    return util::InvalidArgument("VolumeRestrictions: unexpected object in a pod delete event: want a Pod");
  }
  if (deleted->metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::kQueueSkip;
  for (const api::Volume& v : pod.spec.volumes) {
    if (!NeedsRestrictionsCheck(v)) continue;
    for (const api::Volume& d : deleted->spec.volumes) {
      if (IsVolumeConflict(v, d)) return QueueingHint::kQueue;
    }
  }
  // A shared claim may have blocked the pod through ReadWriteOncePod.
  std::set<std::string_view> claims;
  for (const api::Volume& d : deleted->spec.volumes) {
    if (d.persistent_volume_claim) claims.insert(d.persistent_volume_claim->claim_name);
  }
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.persistent_volume_claim && claims.count(v.persistent_volume_claim->claim_name) > 0) {
      return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> VolumeRestrictions::IsSchedulableAfterPVCAdded(const api::Pod& pod,
                                                                            const framework::EventObject&,
                                                                            const framework::EventObject& new_obj) {
  const api::PersistentVolumeClaim* pvc = new_obj.As<api::PersistentVolumeClaim>();
  if (pvc == nullptr) {
    return util::InvalidArgument("VolumeRestrictions: unexpected object in a PVC add event: want a PersistentVolumeClaim");
  }
  if (pvc->metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::kQueueSkip;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.persistent_volume_claim && v.persistent_volume_claim->claim_name == pvc->metadata.name) {
      return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kQueueSkip;
}

std::unique_ptr<VolumeRestrictions> New(framework::Handle& handle) {
  framework::Handle* h = &handle;
  return std::make_unique<VolumeRestrictions>(
      handle.Listers(), [h]() -> const framework::SharedLister& { return h->SnapshotSharedLister(); },
      handle.Features().scheduler_queueing_hints);
}

framework::Status VolumeRestrictions::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  out.push_back({framework::signer::kVolumes, framework::VolumesSignature(pod)});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::volumerestrictions
