#include "pkg/scheduler/plugins/volumebinding/volume_binding.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <optional>
#include <set>

#include "pkg/api/node_selector.h"
#include "pkg/config/errors.h"
#include "pkg/config/args_as.h"
#include "pkg/scheduler/plugins/volumebinding/pv_translation.h"
#include "pkg/scheduler/plugins/volumebinding/storage_capacity.h"

namespace ksched::scheduler::plugins::volumebinding {

using framework::ActionType;
using framework::Code;
using framework::QueueingHint;
using framework::Status;

namespace {

// The state's key, interned once: Filter and Score read it per node, where
// finding the slot by name (a lock and a hash) cost more than their work.
const framework::StateKey& Key() {
  static const framework::StateKey key(kStateKey);
  return key;
}

// A volume utilization in percent (kube's volumebinding maxUtilization).
constexpr int64_t kMaxUtilization = 100;
constexpr std::string_view kAnnMigratedPlugins = "storage.alpha.kubernetes.io/migrated-plugins";

// The claim a pod volume refers to: its PVC, or the generic ephemeral
// volume's "<pod>-<volume>" claim. Empty name: not a claim.
struct ClaimRef {
  std::string name;
  bool ephemeral = false;
};

ClaimRef ClaimOf(const api::Pod& pod, const api::Volume& v) {
  if (v.persistent_volume_claim) return {v.persistent_volume_claim->claim_name, false};
  if (v.ephemeral) return {pod.metadata.name + "-" + v.name, true};
  return {};
}

// An ephemeral claim must be controlled by the pod it is named after.
util::Status VolumeIsForPod(const api::Pod& pod, const api::PersistentVolumeClaim& pvc) {
  for (const api::OwnerReference& ref : pvc.metadata.owner_references) {
    if (ref.controller.value_or(false) && ref.uid == pod.metadata.uid) return util::Status();
  }
  return util::InvalidArgument("PVC " + ClaimKey(pvc) + " was not created for pod " + pod.metadata.namespace_ + "/" +
                               pod.metadata.name + " (pod is not owner)");
}

Status ErrorStatus(const util::Status& s) { return Status::Error(s.message()); }

uint64_t VersionOrZero(const api::ObjectMeta& meta) {
  util::StatusOr<uint64_t> v = ObjectVersion(meta);
  return v.ok() ? *v : 0;
}

}  // namespace

VolumeBinding::VolumeBinding(const framework::SharedListers& listers, framework::VolumeClient* volumes,
                             const util::Clock& clock, util::Duration bind_timeout, bool enable_queueing_hints)
    : listers_(listers),
      volumes_(volumes),
      clock_(clock),
      bind_timeout_(bind_timeout),
      enable_queueing_hints_(enable_queueing_hints),
      pv_cache_(listers.PersistentVolumes(), "v1.PersistentVolume"),
      pvc_cache_(listers.PersistentVolumeClaims(), "v1.PersistentVolumeClaim") {}

util::StatusOr<bool> VolumeBinding::PodHasPVCs(const api::Pod& pod) const {
  bool has_pvc = false;
  for (const api::Volume& v : pod.spec.volumes) {
    ClaimRef claim = ClaimOf(pod, v);
    if (!v.persistent_volume_claim && !v.ephemeral) continue;
    has_pvc = true;
    auto pvc = listers_.PersistentVolumeClaims().Get(pod.metadata.namespace_, claim.name);
    if (pvc == nullptr) {
      // Right after a pod with an ephemeral volume is created its claim is
      // normally still missing.
      if (claim.ephemeral) {
        return util::NotFound("waiting for ephemeral volume controller to create the persistentvolumeclaim \"" +
                              claim.name + "\"");
      }
      return util::NotFound("persistentvolumeclaim \"" + claim.name + "\" not found");
    }
    if (pvc->status.phase == "Lost") {
      return util::InvalidArgument("persistentvolumeclaim \"" + pvc->metadata.name +
                                   "\" bound to non-existent persistentvolume \"" + pvc->spec.volume_name + "\"");
    }
    if (pvc->metadata.deletion_timestamp) {
      return util::InvalidArgument("persistentvolumeclaim \"" + pvc->metadata.name + "\" is being deleted");
    }
    if (claim.ephemeral) {
      util::Status s = VolumeIsForPod(pod, *pvc);
      if (!s.ok()) return s;
    }
  }
  return has_pvc;
}

util::StatusOr<bool> VolumeBinding::IsDelayBindingMode(const api::PersistentVolumeClaim& pvc) const {
  const std::string class_name = ClaimClass(pvc);
  if (class_name.empty()) return false;
  auto sc = listers_.StorageClasses().Get("", class_name);
  if (sc == nullptr) return false;
  if (!sc->volume_binding_mode) {
    return util::InvalidArgument("VolumeBindingMode not set for StorageClass \"" + class_name + "\"");
  }
  return *sc->volume_binding_mode == "WaitForFirstConsumer";
}

util::StatusOr<PodVolumeClaims> VolumeBinding::GetPodVolumeClaims(const api::Pod& pod) const {
  PodVolumeClaims out;
  for (const api::Volume& v : pod.spec.volumes) {
    ClaimRef claim = ClaimOf(pod, v);
    if (claim.name.empty()) continue;
    util::StatusOr<PVCPtr> pvc = pvc_cache_.Get(pod.metadata.namespace_, claim.name);
    if (!pvc.ok()) {
      return util::Status(pvc.status().code(), "error getting PVC \"" + pod.metadata.namespace_ + "/" + claim.name +
                                                   "\": " + pvc.status().message());
    }
    if (claim.ephemeral) {
      util::Status s = VolumeIsForPod(pod, **pvc);
      if (!s.ok()) return s;
    }
    if (IsClaimFullyBound(**pvc)) {
      out.bound.push_back(*pvc);
      continue;
    }
    util::StatusOr<bool> delay = IsDelayBindingMode(**pvc);
    if (!delay.ok()) return delay.status();
    // A claim pre-bound to a PV (volumeName set) waits for the PV
    // controller, like an Immediate one.
    if (*delay && (*pvc)->spec.volume_name.empty()) {
      out.unbound_delay_binding.push_back(*pvc);
    } else {
      out.unbound_immediate.push_back(*pvc);
    }
  }
  if (!out.unbound_delay_binding.empty()) {
    std::vector<PVPtr> all = pv_cache_.List();
    for (const PVCPtr& pvc : out.unbound_delay_binding) {
      const std::string class_name = ClaimClass(*pvc);
      if (out.unbound_volumes_delay_binding.count(class_name) > 0) continue;
      std::vector<PVPtr>& pvs = out.unbound_volumes_delay_binding[class_name];
      for (const PVPtr& pv : all) {
        if (VolumeClass(*pv) == class_name) pvs.push_back(pv);
      }
    }
  }
  return out;
}

std::pair<framework::PreFilterResult, Status> VolumeBinding::PreFilter(framework::CycleState& state,
                                                                       const api::Pod& pod,
                                                                       const framework::NodeInfoList&) {
  util::StatusOr<bool> has_pvc = PodHasPVCs(pod);
  if (!has_pvc.ok()) {
    return {framework::PreFilterResult(), Status(Code::kUnschedulableAndUnresolvable, has_pvc.status().message())};
  }
  if (!*has_pvc) {
    auto s = std::make_shared<StateData>();
    s->skip = true;
    state.Write(Key(), s);
    return {framework::PreFilterResult(), Status(Code::kSkip)};
  }
  util::StatusOr<PodVolumeClaims> claims = GetPodVolumeClaims(pod);
  if (!claims.ok()) return {framework::PreFilterResult(), ErrorStatus(claims.status())};
  if (!claims->unbound_immediate.empty()) {
    return {framework::PreFilterResult(), Status(Code::kUnschedulableAndUnresolvable, std::string(kErrUnboundImmediate))};
  }
  // No node narrowing: kube's PreFilter returns no PreFilterResult (local
  // PVs' nodes are found by Filter's node affinity check, as any PV's).
  auto s = std::make_shared<StateData>();
  s->claims = std::move(claims).value();
  state.Write(Key(), s);
  return {framework::PreFilterResult(), Status()};
}

util::StatusOr<VolumeBinding::ProvisionCheck> VolumeBinding::CheckVolumeProvisions(const std::vector<PVCPtr>& claims,
                                                                                  const api::Node& node) const {
  ProvisionCheck out;
  for (const PVCPtr& claim : claims) {
    const std::string class_name = ClaimClass(*claim);
    if (class_name.empty()) return util::InvalidArgument("no class for claim \"" + ClaimKey(*claim) + "\"");
    auto sc = listers_.StorageClasses().Get("", class_name);
    if (sc == nullptr) return util::NotFound("failed to find storage class \"" + class_name + "\"");
    if (sc->provisioner.empty() || sc->provisioner == kNotSupportedProvisioner ||
        !api::MatchTopologySelectorTerms(sc->allowed_topologies, node.metadata.labels)) {
      return ProvisionCheck{false, true, {}};
    }
    CapacityCheck capacity = HasEnoughCapacity(listers_, *claim, *sc, node);
    if (!capacity.sufficient) return ProvisionCheck{true, false, {}};
    out.provisions.push_back({claim, std::move(capacity.capacity)});
  }
  out.satisfied = out.sufficient_storage = true;
  return out;
}

util::StatusOr<std::pair<PodVolumes, std::vector<std::string>>> VolumeBinding::FindPodVolumes(
    const PodVolumeClaims& claims, const api::Node& node) const {
  PodVolumes volumes;
  bool bound_satisfied = true;
  bool bound_pvs_found = true;
  bool unbound_satisfied = true;
  bool sufficient_storage = true;
  auto reasons = [&] {
    std::vector<std::string> out;
    if (!bound_satisfied) out.emplace_back(kErrReasonNodeConflict);
    if (!unbound_satisfied) out.emplace_back(kErrReasonBindConflict);
    if (!sufficient_storage) out.emplace_back(kErrReasonNotEnoughSpace);
    if (!bound_pvs_found) out.emplace_back(kErrReasonPVNotExist);
    return out;
  };

  // An in-tree PV is checked as its CSI driver's where the node migrated
  // its plugin.
  std::shared_ptr<const api::CSINode> csi_node;
  if (!claims.bound.empty()) csi_node = listers_.CSINodes().Get("", node.metadata.name);
  for (const PVCPtr& pvc : claims.bound) {
    util::StatusOr<PVPtr> pv = pv_cache_.Get("", pvc->spec.volume_name);
    if (!pv.ok()) {
      if (pv.status().code() != util::StatusCode::kNotFound) return pv.status();
      bound_pvs_found = false;
      break;
    }
    pv = TranslatePVForNode(*pv, csi_node.get());
    if (!pv.ok()) return pv.status();
    if (!CheckNodeAffinity(**pv, node.metadata.labels)) {
      bound_satisfied = false;
      break;
    }
  }

  if (!claims.unbound_delay_binding.empty()) {
    std::vector<PVCPtr> to_match;
    std::vector<PVCPtr> to_provision;
    for (const PVCPtr& claim : claims.unbound_delay_binding) {
      auto it = claim->metadata.annotations.find(std::string(kAnnSelectedNode));
      if (it == claim->metadata.annotations.end()) {
        to_match.push_back(claim);
        continue;
      }
      // Provisioning already started for another node.
      if (it->second != node.metadata.name) {
        unbound_satisfied = false;
        return std::make_pair(std::move(volumes), reasons());
      }
      to_provision.push_back(claim);
    }
    if (!to_match.empty()) {
      // Smallest requests first, so each gets the smallest PV that fits.
      std::stable_sort(to_match.begin(), to_match.end(), [](const PVCPtr& a, const PVCPtr& b) {
        return RequestedStorage(*a).Cmp(RequestedStorage(*b)) < 0;
      });
      std::set<std::string> chosen;
      static const std::vector<PVPtr> kNone;
      for (const PVCPtr& claim : to_match) {
        auto it = claims.unbound_volumes_delay_binding.find(ClaimClass(*claim));
        const std::vector<PVPtr>& pvs = it != claims.unbound_volumes_delay_binding.end() ? it->second : kNone;
        util::StatusOr<PVPtr> pv = FindMatchingVolume(*claim, pvs, node.metadata.labels, chosen);
        if (!pv.ok()) return pv.status();
        if (*pv == nullptr) {
          to_provision.push_back(claim);
          unbound_satisfied = false;
          continue;
        }
        chosen.insert((*pv)->metadata.name);
        volumes.static_bindings.push_back({*pv, claim});
      }
    }
    if (!to_provision.empty()) {
      util::StatusOr<ProvisionCheck> provision = CheckVolumeProvisions(to_provision, node);
      if (!provision.ok()) return provision.status();
      unbound_satisfied = provision->satisfied;
      sufficient_storage = provision->sufficient_storage;
      volumes.dynamic_provisions = std::move(provision->provisions);
    }
  }
  return std::make_pair(std::move(volumes), reasons());
}

Status VolumeBinding::Filter(framework::CycleState& state, const api::Pod&, const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");
  StateData* s = state.Lookup<StateData>(Key());
  if (s == nullptr) return Status::Error("reading \"" + std::string(kStateKey) + "\" from cycleState: not found");
  if (s->skip) return Status();
  auto found = FindPodVolumes(s->claims, *node);
  if (!found.ok()) return ErrorStatus(found.status());
  if (!found->second.empty()) return Status(Code::kUnschedulableAndUnresolvable, std::move(found->second));
  std::lock_guard<std::mutex> l(s->mu);
  s->volumes_by_node[node->metadata.name] = std::move(found->first);
  return Status();
}

Status VolumeBinding::Reserve(framework::CycleState& state, const api::Pod& pod, std::string_view node_name) {
  auto s = state.Get<StateData>(Key());
  if (s == nullptr) return Status::Error("reading \"" + std::string(kStateKey) + "\" from cycleState: not found");
  std::lock_guard<std::mutex> l(s->mu);
  auto it = s->volumes_by_node.find(node_name);
  if (it == s->volumes_by_node.end()) {
    // The pod has no claims (or Filter skipped them).
    s->all_bound = true;
    return Status();
  }
  // Nothing to assume when every claim is bound by now.
  bool all_bound = true;
  for (const api::Volume& v : pod.spec.volumes) {
    ClaimRef claim = ClaimOf(pod, v);
    if (claim.name.empty()) continue;
    util::StatusOr<PVCPtr> pvc = pvc_cache_.Get(pod.metadata.namespace_, claim.name);
    if (!pvc.ok() || !IsClaimFullyBound(**pvc)) {
      all_bound = false;
      break;
    }
  }
  if (all_bound) {
    s->all_bound = true;
    return Status();
  }
  PodVolumes& volumes = it->second;
  PodVolumes assumed;
  for (const BindingInfo& b : volumes.static_bindings) {
    auto [pv, dirty] = BindVolumeToClaim(*b.pv, *b.pvc);
    auto next = std::make_shared<const api::PersistentVolume>(std::move(pv));
    if (dirty) {
      util::Status st = pv_cache_.Assume(next);
      if (!st.ok()) {
        RevertAssumed(assumed);
        return ErrorStatus(st);
      }
    }
    assumed.static_bindings.push_back({next, b.pvc});
  }
  for (const DynamicProvision& provision : volumes.dynamic_provisions) {
    auto next = std::make_shared<api::PersistentVolumeClaim>(*provision.pvc);
    next->metadata.annotations[std::string(kAnnSelectedNode)] = std::string(node_name);
    util::Status st = pvc_cache_.Assume(next);
    if (!st.ok()) {
      RevertAssumed(assumed);
      return ErrorStatus(st);
    }
    assumed.dynamic_provisions.push_back({std::move(next), provision.node_capacity});
  }
  volumes = std::move(assumed);
  s->all_bound = false;
  return Status();
}

void VolumeBinding::RevertAssumed(const PodVolumes& volumes) {
  for (const BindingInfo& b : volumes.static_bindings) pv_cache_.Restore("", b.pv->metadata.name);
  for (const DynamicProvision& p : volumes.dynamic_provisions) {
    pvc_cache_.Restore(p.pvc->metadata.namespace_, p.pvc->metadata.name);
  }
}

void VolumeBinding::Unreserve(framework::CycleState& state, const api::Pod&, std::string_view node_name) {
  auto s = state.Get<StateData>(Key());
  if (s == nullptr) return;
  std::lock_guard<std::mutex> l(s->mu);
  auto it = s->volumes_by_node.find(node_name);
  if (it == s->volumes_by_node.end()) return;
  RevertAssumed(it->second);
}

util::StatusOr<bool> VolumeBinding::CheckBindings(const api::Pod& pod, const PodVolumes& volumes) const {
  // A deleted pod no longer needs its volumes.
  if (listers_.Pods().Get(pod.metadata.namespace_, pod.metadata.name) == nullptr) {
    return util::NotFound("pod does not exist any more: pod \"" + pod.metadata.namespace_ + "/" + pod.metadata.name +
                          "\" not found");
  }
  for (const BindingInfo& b : volumes.static_bindings) {
    util::StatusOr<PVPtr> pv = pv_cache_.GetAPIObj("", b.pv->metadata.name);
    if (!pv.ok()) return util::NotFound("failed to check binding: " + pv.status().message());
    util::StatusOr<PVCPtr> pvc = pvc_cache_.GetAPIObj(b.pvc->metadata.namespace_, b.pvc->metadata.name);
    if (!pvc.ok()) return util::NotFound("failed to check binding: " + pvc.status().message());
    // Our write has not come back through the informer yet.
    if (VersionOrZero(b.pv->metadata) > VersionOrZero((*pv)->metadata)) return false;
    if (!(*pv)->spec.claim_ref || (*pv)->spec.claim_ref->uid.empty()) {
      return util::Internal("ClaimRef got reset for pv \"" + (*pv)->metadata.name + "\"");
    }
    if (!IsClaimFullyBound(**pvc)) return false;
  }
  for (const DynamicProvision& provision : volumes.dynamic_provisions) {
    const PVCPtr& claim = provision.pvc;
    util::StatusOr<PVCPtr> pvc = pvc_cache_.GetAPIObj(claim->metadata.namespace_, claim->metadata.name);
    if (!pvc.ok()) return util::NotFound("failed to check provisioning pvc: " + pvc.status().message());
    if (VersionOrZero(claim->metadata) > VersionOrZero((*pvc)->metadata)) return false;
    auto it = (*pvc)->metadata.annotations.find(std::string(kAnnSelectedNode));
    if (it == (*pvc)->metadata.annotations.end() || it->second != pod.spec.node_name) {
      // The provisioner drops the annotation to ask for a new node.
      return util::Internal("provisioning failed for PVC \"" + (*pvc)->metadata.name + "\"");
    }
    if (!(*pvc)->spec.volume_name.empty()) {
      util::StatusOr<PVPtr> pv = pv_cache_.GetAPIObj("", (*pvc)->spec.volume_name);
      // The new PV may not have reached the informer yet.
      if (!pv.ok()) return false;
    }
    if (!IsClaimFullyBound(**pvc)) return false;
  }
  return true;
}

Status VolumeBinding::PreBindPreFlight(framework::CycleState& state, const api::Pod&, std::string_view node_name) {
  auto s = state.Get<StateData>(Key());
  if (s == nullptr) return Status::Error("reading \"" + std::string(kStateKey) + "\" from cycleState: not found");
  if (s->all_bound) return Status(Code::kSkip);
  std::lock_guard<std::mutex> l(s->mu);
  if (s->volumes_by_node.find(node_name) == s->volumes_by_node.end()) {
    return Status::Error("no pod volume found for node \"" + std::string(node_name) + "\"");
  }
  return Status();
}

Status VolumeBinding::PreBind(framework::CycleState& state, const api::Pod& pod, std::string_view node_name) {
  auto s = state.Get<StateData>(Key());
  if (s == nullptr) return Status::Error("reading \"" + std::string(kStateKey) + "\" from cycleState: not found");
  if (s->all_bound) return Status();
  PodVolumes volumes;
  {
    std::lock_guard<std::mutex> l(s->mu);
    auto it = s->volumes_by_node.find(node_name);
    if (it == s->volumes_by_node.end()) {
      return Status::Error("no pod volumes found for node \"" + std::string(node_name) + "\"");
    }
    volumes = it->second;
  }
  if (volumes_ == nullptr) return Status::Error("binding volumes: no API client");
  // The PV controller finishes what these writes start; nothing is rolled
  // back in the API if the binding later fails.
  for (BindingInfo& b : volumes.static_bindings) {
    util::StatusOr<api::PersistentVolume> stored = volumes_->UpdatePersistentVolume(*b.pv);
    if (!stored.ok()) return ErrorStatus(stored.status());
    b.pv = std::make_shared<const api::PersistentVolume>(std::move(stored).value());
  }
  for (DynamicProvision& provision : volumes.dynamic_provisions) {
    util::StatusOr<api::PersistentVolumeClaim> stored = volumes_->UpdatePersistentVolumeClaim(*provision.pvc);
    if (!stored.ok()) return ErrorStatus(stored.status());
    provision.pvc = std::make_shared<const api::PersistentVolumeClaim>(std::move(stored).value());
  }
  // Poll once a second (the first check after one interval, as kube does)
  // until bound, failed or out of time.
  util::Status waited = waits_.PollUntil(clock_, kBindPollInterval, bind_timeout_, /*immediate=*/false,
                                         [&] { return CheckBindings(pod, volumes); }, state.PreBindCancellation());
  if (!waited.ok()) return Status::FromError(util::Status(waited.code(), "binding volumes: " + waited.message()));
  return Status();
}

void VolumeBinding::WakeBindingWaits(const framework::ClusterEvent& event) {
  if (event.resource == framework::resource::kPersistentVolume ||
      event.resource == framework::resource::kPersistentVolumeClaim) {
    waits_.Wake();
  }
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> VolumeBinding::EventsToRegister() const {
  // Without hints the node pre-check may swallow a Node/Add
  // (kubernetes#109437), so taint updates are registered too.
  ActionType node_actions = ActionType::kAdd | ActionType::kUpdateNodeLabel;
  if (!enable_queueing_hints_) node_actions |= ActionType::kUpdateNodeTaint;
  namespace r = framework::resource;
  std::vector<framework::ClusterEventWithHint> events;
  events.push_back({framework::ClusterEvent(r::kStorageClass, ActionType::kAdd | ActionType::kUpdate),
                    &VolumeBinding::IsSchedulableAfterStorageClassChange});
  events.push_back({framework::ClusterEvent(r::kPersistentVolumeClaim, ActionType::kAdd | ActionType::kUpdate),
                    &VolumeBinding::IsSchedulableAfterPVCChange});
  events.push_back({framework::ClusterEvent(r::kPersistentVolume, ActionType::kAdd | ActionType::kUpdate), nullptr});
  events.push_back({framework::ClusterEvent(r::kNode, node_actions), nullptr});
  events.push_back({framework::ClusterEvent(r::kCSINode, ActionType::kAdd | ActionType::kUpdate),
                    &VolumeBinding::IsSchedulableAfterCSINodeChange});
  events.push_back({framework::ClusterEvent(r::kCSIDriver, ActionType::kUpdate),
                    &VolumeBinding::IsSchedulableAfterCSIDriverChange});
  events.push_back({framework::ClusterEvent(r::kCSIStorageCapacity, ActionType::kAdd | ActionType::kUpdate),
                    &VolumeBinding::IsSchedulableAfterCSIStorageCapacityChange});
  return events;
}

util::StatusOr<QueueingHint> VolumeBinding::IsSchedulableAfterPVCChange(const api::Pod& pod,
                                                                        const framework::EventObject&,
                                                                        const framework::EventObject& new_obj) {
  const api::PersistentVolumeClaim* pvc = new_obj.As<api::PersistentVolumeClaim>();
  if (pvc == nullptr) return util::InvalidArgument("VolumeBinding: unexpected object in a PVC event");
  if (pvc->metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::kQueueSkip;
  for (const api::Volume& v : pod.spec.volumes) {
    ClaimRef claim = ClaimOf(pod, v);
    if (!claim.name.empty() && claim.name == pvc->metadata.name) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> VolumeBinding::IsSchedulableAfterStorageClassChange(
    const api::Pod&, const framework::EventObject& old_obj, const framework::EventObject& new_obj) {
  const api::StorageClass* sc = new_obj.As<api::StorageClass>();
  if (sc == nullptr) return util::InvalidArgument("VolumeBinding: unexpected object in a StorageClass event");
  const api::StorageClass* old_sc = old_obj.As<api::StorageClass>();
  if (old_sc == nullptr) return QueueingHint::kQueue;
  auto same = [](const std::vector<api::TopologySelectorTerm>& a, const std::vector<api::TopologySelectorTerm>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      const auto& x = a[i].match_label_expressions;
      const auto& y = b[i].match_label_expressions;
      if (x.size() != y.size()) return false;
      for (size_t j = 0; j < x.size(); ++j) {
        if (x[j].key != y[j].key || x[j].values != y[j].values) return false;
      }
    }
    return true;
  };
  return same(old_sc->allowed_topologies, sc->allowed_topologies) ? QueueingHint::kQueueSkip : QueueingHint::kQueue;
}

util::StatusOr<QueueingHint> VolumeBinding::IsSchedulableAfterCSINodeChange(const api::Pod&,
                                                                            const framework::EventObject& old_obj,
                                                                            const framework::EventObject& new_obj) {
  const api::CSINode* node = new_obj.As<api::CSINode>();
  if (node == nullptr) return util::InvalidArgument("VolumeBinding: unexpected object in a CSINode event");
  const api::CSINode* old_node = old_obj.As<api::CSINode>();
  if (old_node == nullptr) return QueueingHint::kQueue;
  auto annotation = [](const api::CSINode& n) {
    auto it = n.metadata.annotations.find(std::string(kAnnMigratedPlugins));
    return it != n.metadata.annotations.end() ? std::optional<std::string>(it->second) : std::nullopt;
  };
  return annotation(*old_node) != annotation(*node) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> VolumeBinding::IsSchedulableAfterCSIDriverChange(const api::Pod& pod,
                                                                              const framework::EventObject& old_obj,
                                                                              const framework::EventObject& new_obj) {
  const api::CSIDriver* driver = new_obj.As<api::CSIDriver>();
  const api::CSIDriver* old_driver = old_obj.As<api::CSIDriver>();
  if (driver == nullptr || old_driver == nullptr) {
    return util::InvalidArgument("VolumeBinding: unexpected objects in a CSIDriver update");
  }
  for (const api::Volume& v : pod.spec.volumes) {
    if (!v.csi || v.csi->driver != driver->metadata.name) continue;
    // Turning capacity tracking off can only let the pod fit.
    if (old_driver->spec.storage_capacity.value_or(false) && !driver->spec.storage_capacity.value_or(false)) {
      return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> VolumeBinding::IsSchedulableAfterCSIStorageCapacityChange(
    const api::Pod&, const framework::EventObject& old_obj, const framework::EventObject& new_obj) {
  const api::CSIStorageCapacity* capacity = new_obj.As<api::CSIStorageCapacity>();
  if (capacity == nullptr) return util::InvalidArgument("VolumeBinding: unexpected object in a CSIStorageCapacity event");
  const api::CSIStorageCapacity* old_capacity = old_obj.As<api::CSIStorageCapacity>();
  // Any new segment's capacity may be the one the pod lacked.
  if (old_capacity == nullptr) return QueueingHint::kQueue;
  // An update helps only when the largest volume it admits grew. (Like kube,
  // a changed nodeTopology or class alone does not requeue.)
  const api::Quantity* limit = VolumeLimit(*capacity);
  const api::Quantity* old_limit = VolumeLimit(*old_capacity);
  if (limit != nullptr && (old_limit == nullptr || limit->Value() > old_limit->Value())) return QueueingHint::kQueue;
  return QueueingHint::kQueueSkip;
}

ScoringVolumeBinding::ScoringVolumeBinding(const framework::SharedListers& listers, framework::VolumeClient* volumes,
                                           const util::Clock& clock, util::Duration bind_timeout,
                                           bool enable_queueing_hints,
                                           const std::vector<config::UtilizationShapePoint>& shape)
    : VolumeBinding(listers, volumes, clock, bind_timeout, enable_queueing_hints),
      shape_(helper::ScaledShape(shape, framework::kMaxNodeScore)) {}

std::pair<int64_t, Status> ScoringVolumeBinding::Score(framework::CycleState& state, const api::Pod&,
                                                       const framework::NodeInfo& node_info) {
  StateData* s = state.Lookup<StateData>(Key());
  if (s == nullptr) return {0, Status::Error("reading \"" + std::string(kStateKey) + "\" from cycleState: not found")};
  // A pod without claims (PreFilter set skip, and nothing writes the state
  // after PreFilter) has no volumes on any node.
  if (s->skip) return {0, Status()};
  // Per storage class: {requested, capacity} in bytes.
  std::map<std::string, std::pair<int64_t, int64_t>> classes;
  {
    // Filter wrote this node's entry before scoring began; read it in place.
    std::lock_guard<std::mutex> l(s->mu);
    auto it = s->volumes_by_node.find(node_info.node()->metadata.name);
    if (it == s->volumes_by_node.end()) return {0, Status()};
    const PodVolumes& volumes = it->second;
    if (!volumes.static_bindings.empty()) {
      for (const BindingInfo& b : volumes.static_bindings) {
        auto& [requested, capacity] = classes[b.pv->spec.storage_class_name];
        requested += RequestedStorage(*b.pvc).Value();
        auto pv_capacity = b.pv->spec.capacity.find("storage");
        if (pv_capacity != b.pv->spec.capacity.end()) capacity += pv_capacity->second.Value();
      }
    } else {
      for (const DynamicProvision& p : volumes.dynamic_provisions) {
        if (p.node_capacity == nullptr) continue;
        auto& [requested, capacity] = classes[ClaimClass(*p.pvc)];
        // The class's capacity on this node, whatever the number of its
        // claims; their requests add up.
        capacity = p.node_capacity->capacity ? p.node_capacity->capacity->Value() : 0;
        requested += RequestedStorage(*p.pvc).Value();
      }
    }
  }
  if (classes.empty()) return {0, Status()};
  int64_t sum = 0;
  for (const auto& [name, usage] : classes) {
    const auto [requested, capacity] = usage;
    const int64_t utilization =
        capacity == 0 || requested > capacity ? kMaxUtilization : requested * kMaxUtilization / capacity;
    sum += helper::BrokenLinear(shape_, utilization);
  }
  return {std::llround(static_cast<double>(sum) / static_cast<double>(classes.size())), Status()};
}

Status ScoringVolumeBinding::ScoreNodes(framework::CycleState& state, const api::Pod& pod,
                                        std::span<const framework::NodeInfo* const> nodes,
                                        framework::NodeScore* out) {
  const StateData* s = state.Lookup<StateData>(Key());
  if (s == nullptr || !s->skip) return ScorePlugin::ScoreNodes(state, pod, nodes, out);
  for (size_t i = 0; i < nodes.size(); ++i) out[i].score = 0;
  return Status();
}

util::StatusOr<std::unique_ptr<VolumeBinding>> New(const config::PluginArgs& args, framework::Handle& handle) {
  return New(args, handle, handle.Clock());
}

util::StatusOr<std::unique_ptr<VolumeBinding>> New(const config::PluginArgs& args, framework::Handle& handle,
                                                   const util::Clock& wait_clock) {
  util::StatusOr<VolumeBindingArgs> vb_args = config::ArgsAs<VolumeBindingArgs>(args);
  if (!vb_args.ok()) return vb_args.status();
  const int64_t timeout = vb_args->bind_timeout_seconds.value_or(kDefaultBindTimeoutSeconds);
  const bool hints = handle.Features().scheduler_queueing_hints;
  if (handle.Features().storage_capacity_scoring) {
    // Defaulting gives a shape whenever the gate is on; args built in code
    // may lack one.
    const std::vector<config::UtilizationShapePoint> shape =
        vb_args->shape && !vb_args->shape->empty() ? *vb_args->shape : DefaultStorageCapacityShape();
    return std::unique_ptr<VolumeBinding>(std::make_unique<ScoringVolumeBinding>(
        handle.Listers(), handle.Volumes(), wait_clock, std::chrono::seconds(timeout), hints, shape));
  }
  return std::make_unique<VolumeBinding>(handle.Listers(), handle.Volumes(), wait_clock,
                                         std::chrono::seconds(timeout), hints);
}

framework::Status VolumeBinding::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  out.push_back({framework::signer::kVolumes, framework::VolumesSignature(pod)});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::volumebinding
