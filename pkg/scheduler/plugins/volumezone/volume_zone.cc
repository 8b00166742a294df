#include "pkg/scheduler/plugins/volumezone/volume_zone.h"

#include <array>

namespace ksched::scheduler::plugins::volumezone {

using framework::ActionType;
using framework::Code;
using framework::QueueingHint;
using framework::Status;

namespace {

// Interned once: the per-node reads index a slot.
const framework::StateKey kPreFilterStateKeySlot(kPreFilterStateKey);

constexpr std::string_view kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kBetaRegion = "failure-domain.beta.kubernetes.io/region";
constexpr std::string_view kZone = "topology.kubernetes.io/zone";
constexpr std::string_view kRegion = "topology.kubernetes.io/region";
constexpr std::array<std::string_view, 4> kTopologyLabels = {kBetaZone, kBetaRegion, kZone, kRegion};
constexpr std::string_view kBetaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";

std::string_view TranslateToGALabel(std::string_view key) {
  if (key == kBetaRegion) return kRegion;
  if (key == kBetaZone) return kZone;
  return key;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Splits a "z1__z2" label value; false when an element is empty.
bool LabelZonesToSet(std::string_view value, std::set<std::string>* out) {
  size_t pos = 0;
  while (true) {
    size_t next = value.find("__", pos);
    std::string_view zone = Trim(value.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
    if (zone.empty()) return false;
    out->insert(std::string(zone));
    if (next == std::string_view::npos) return true;
    pos = next + 2;
  }
}

// Written once by PreFilter and only read afterwards: clones share it.
class PreFilterState final : public framework::StateData, public std::enable_shared_from_this<PreFilterState> {
 public:
  explicit PreFilterState(std::vector<PVTopology> t) : topologies(std::move(t)) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<PreFilterState>(shared_from_this());
  }
  const std::vector<PVTopology> topologies;
};

std::string ClaimClass(const api::PersistentVolumeClaim& pvc) {
  auto it = pvc.metadata.annotations.find(std::string(kBetaStorageClassAnnotation));
  if (it != pvc.metadata.annotations.end()) return it->second;
  return pvc.spec.storage_class_name.value_or("");
}

Status NotFound(std::string_view resource, std::string_view name) {
  return Status(Code::kUnschedulableAndUnresolvable,
                std::string(resource) + " \"" + std::string(name) + "\" not found");
}

bool ReferencesClaim(const api::Pod& pod, const api::PersistentVolumeClaim& pvc) {
  if (pod.metadata.namespace_ != pvc.metadata.namespace_) return false;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.persistent_volume_claim && v.persistent_volume_claim->claim_name == pvc.metadata.name) return true;
  }
  return false;
}

}  // namespace

std::vector<PVTopology> GetPVTopologies(const api::PersistentVolume& pv) {
  std::vector<PVTopology> out;
  for (std::string_view key : kTopologyLabels) {
    auto it = pv.metadata.labels.find(std::string(key));
    if (it == pv.metadata.labels.end()) continue;
    PVTopology t{pv.metadata.name, std::string(key), {}};
    if (!LabelZonesToSet(it->second, &t.values)) continue;
    out.push_back(std::move(t));
  }
  return out;
}

std::pair<std::vector<PVTopology>, Status> VolumeZone::GetPVByPod(const api::Pod& pod) const {
  std::vector<PVTopology> out;
  for (const api::Volume& v : pod.spec.volumes) {
    if (!v.persistent_volume_claim) continue;
    const std::string& claim = v.persistent_volume_claim->claim_name;
    if (claim.empty()) return {{}, Status(Code::kUnschedulableAndUnresolvable, "PersistentVolumeClaim had no name")};
    auto pvc = listers_.PersistentVolumeClaims().Get(pod.metadata.namespace_, claim);
    if (pvc == nullptr) return {{}, NotFound("persistentvolumeclaim", claim)};
    const std::string& pv_name = pvc->spec.volume_name;
    if (pv_name.empty()) {
      std::string class_name = ClaimClass(*pvc);
      if (class_name.empty()) {
        return {{}, Status(Code::kUnschedulableAndUnresolvable,
                           "PersistentVolumeClaim had no pv name and storageClass name")};
      }
      auto sc = listers_.StorageClasses().Get("", class_name);
      if (sc == nullptr) return {{}, NotFound("storageclass.storage.k8s.io", class_name)};
      if (!sc->volume_binding_mode) {
        return {{}, Status(Code::kUnschedulableAndUnresolvable,
                           "VolumeBindingMode not set for StorageClass \"" + class_name + "\"")};
      }
      // VolumeBinding picks a PV for it on the chosen node.
      if (*sc->volume_binding_mode == "WaitForFirstConsumer") continue;
      return {{}, Status(Code::kUnschedulableAndUnresolvable, "PersistentVolume had no name")};
    }
    auto pv = listers_.PersistentVolumes().Get("", pv_name);
    if (pv == nullptr) return {{}, NotFound("persistentvolume", pv_name)};
    for (PVTopology& t : GetPVTopologies(*pv)) out.push_back(std::move(t));
  }
  return {std::move(out), Status()};
}

std::pair<framework::PreFilterResult, Status> VolumeZone::PreFilter(framework::CycleState& state,
                                                                    const api::Pod& pod,
                                                                    const framework::NodeInfoList&) {
  auto [topologies, status] = GetPVByPod(pod);
  if (!status.IsSuccess()) return {framework::PreFilterResult(), status};
  if (topologies.empty()) return {framework::PreFilterResult(), Status(Code::kSkip)};
  state.Write(kPreFilterStateKeySlot, std::make_shared<PreFilterState>(std::move(topologies)));
  return {framework::PreFilterResult(), Status()};
}

Status VolumeZone::Filter(framework::CycleState& state, const api::Pod& pod, const framework::NodeInfo& node_info) {
  if (pod.spec.volumes.empty()) return Status();
  std::vector<PVTopology> computed;
  const std::vector<PVTopology>* topologies = nullptr;
  if (auto s = state.Lookup<PreFilterState>(kPreFilterStateKeySlot)) {
    topologies = &s->topologies;
  } else {
    // Callers that skipped PreFilter (e.g. a bare Filter run) still get an
    // answer.
    auto [t, status] = GetPVByPod(pod);
    if (!status.IsSuccess()) return status;
    computed = std::move(t);
    topologies = &computed;
  }
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");
  const auto& labels = node->metadata.labels;
  bool constrained = false;
  for (std::string_view key : kTopologyLabels) {
    if (labels.count(std::string(key)) > 0) {
      constrained = true;
      break;
    }
  }
  // A node without topology labels (a single-zone cluster) fits any volume.
  if (!constrained) return Status();
  for (const PVTopology& t : *topologies) {
    auto it = labels.find(t.key);
    if (it == labels.end()) it = labels.find(std::string(TranslateToGALabel(t.key)));
    if (it == labels.end() || t.values.count(it->second) == 0) {
      return Status(Code::kUnschedulableAndUnresolvable, std::string(kErrReasonConflict));
    }
  }
  return Status();
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> VolumeZone::EventsToRegister() const {
  // Without hints the node pre-check may swallow a Node/Add (kubernetes#109437).
  ActionType node_actions = ActionType::kAdd | ActionType::kUpdateNodeLabel;
  if (!enable_queueing_hints_) node_actions |= ActionType::kUpdateNodeTaint;
  std::vector<framework::ClusterEventWithHint> events;
  // volumeBindingMode is immutable, so only additions matter.
  events.push_back({framework::ClusterEvent(framework::resource::kStorageClass, ActionType::kAdd),
                    &VolumeZone::IsSchedulableAfterStorageClassAdded});
  events.push_back({framework::ClusterEvent(framework::resource::kNode, node_actions), nullptr});
  events.push_back({framework::ClusterEvent(framework::resource::kPersistentVolumeClaim,
                                            ActionType::kAdd | ActionType::kUpdate),
                    &VolumeZone::IsSchedulableAfterPVCChange});
  events.push_back({framework::ClusterEvent(framework::resource::kPersistentVolume,
                                            ActionType::kAdd | ActionType::kUpdate),
                    &VolumeZone::IsSchedulableAfterPVChange});
  return events;
}

util::StatusOr<QueueingHint> VolumeZone::IsSchedulableAfterStorageClassAdded(const api::Pod&,
                                                                             const framework::EventObject&,
                                                                             const framework::EventObject& new_obj) {
  const api::StorageClass* sc = new_obj.As<api::StorageClass>();
  if (sc == nullptr) return util::InvalidArgument("VolumeZone: unexpected object in a StorageClass event");
  if (sc->volume_binding_mode && *sc->volume_binding_mode == "WaitForFirstConsumer") return QueueingHint::kQueue;
  return QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> VolumeZone::IsSchedulableAfterPVCChange(const api::Pod& pod,
                                                                     const framework::EventObject&,
                                                                     const framework::EventObject& new_obj) {
  const api::PersistentVolumeClaim* pvc = new_obj.As<api::PersistentVolumeClaim>();
  if (pvc == nullptr) return util::InvalidArgument("VolumeZone: unexpected object in a PVC event");
  return ReferencesClaim(pod, *pvc) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> VolumeZone::IsSchedulableAfterPVChange(const api::Pod&,
                                                                    const framework::EventObject& old_obj,
                                                                    const framework::EventObject& new_obj) {
  const api::PersistentVolume* modified = new_obj.As<api::PersistentVolume>();
  if (modified == nullptr) return util::InvalidArgument("VolumeZone: unexpected object in a PV event");
  const api::PersistentVolume* original = old_obj.As<api::PersistentVolume>();
  if (original == nullptr) return QueueingHint::kQueue;
  return GetPVTopologies(*original) == GetPVTopologies(*modified) ? QueueingHint::kQueueSkip : QueueingHint::kQueue;
}

std::unique_ptr<VolumeZone> New(framework::Handle& handle) {
  return std::make_unique<VolumeZone>(handle.Listers(), handle.Features().scheduler_queueing_hints);
}

framework::Status VolumeZone::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  out.push_back({framework::signer::kVolumes, framework::VolumesSignature(pod)});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::volumezone
