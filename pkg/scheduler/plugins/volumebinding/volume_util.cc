#include "pkg/scheduler/plugins/volumebinding/volume_util.h"

#include <algorithm>
#include <charconv>

#include "pkg/api/labels.h"
#include "pkg/api/node_selector.h"

namespace ksched::scheduler::plugins::volumebinding {

namespace {

constexpr std::string_view kResourceStorage = "storage";

bool HasAnnotation(const api::ObjectMeta& meta, std::string_view key) {
  return meta.annotations.count(std::string(key)) > 0;
}

std::string_view VolumeMode(const std::optional<std::string>& mode) {
  return mode.has_value() ? std::string_view(*mode) : std::string_view("Filesystem");
}

}  // namespace

std::string ClaimClass(const api::PersistentVolumeClaim& pvc) {
  auto it = pvc.metadata.annotations.find(std::string(kAnnBetaStorageClass));
  if (it != pvc.metadata.annotations.end()) return it->second;
  return pvc.spec.storage_class_name.value_or("");
}

std::string VolumeClass(const api::PersistentVolume& pv) {
  auto it = pv.metadata.annotations.find(std::string(kAnnBetaStorageClass));
  if (it != pv.metadata.annotations.end()) return it->second;
  return pv.spec.storage_class_name;
}

std::string ClaimKey(const api::PersistentVolumeClaim& pvc) {
  return pvc.metadata.namespace_ + "/" + pvc.metadata.name;
}

bool IsClaimFullyBound(const api::PersistentVolumeClaim& pvc) {
  return !pvc.spec.volume_name.empty() && HasAnnotation(pvc.metadata, kAnnBindCompleted);
}

bool IsVolumeBoundToClaim(const api::PersistentVolume& pv, const api::PersistentVolumeClaim& pvc) {
  if (!pv.spec.claim_ref) return false;
  const api::ObjectReference& ref = *pv.spec.claim_ref;
  if (ref.name != pvc.metadata.name || ref.namespace_ != pvc.metadata.namespace_) return false;
  return ref.uid.empty() || ref.uid == pvc.metadata.uid;
}

bool CheckNodeAffinity(const api::PersistentVolume& pv, const api::StringMap& labels) {
  if (!pv.spec.node_affinity || !pv.spec.node_affinity->required) return true;
  api::Node node;
  node.metadata.labels = labels;
  return api::MatchNodeSelectorTerms(node, *pv.spec.node_affinity->required);
}

bool CheckAccessModes(const api::PersistentVolumeClaim& pvc, const api::PersistentVolume& pv) {
  for (const std::string& mode : pvc.spec.access_modes) {
    if (std::find(pv.spec.access_modes.begin(), pv.spec.access_modes.end(), mode) == pv.spec.access_modes.end()) {
      return false;
    }
  }
  return true;
}

bool VolumeModeMismatches(const api::PersistentVolumeClaim& pvc, const api::PersistentVolume& pv) {
  return VolumeMode(pvc.spec.volume_mode) != VolumeMode(pv.spec.volume_mode);
}

api::Quantity RequestedStorage(const api::PersistentVolumeClaim& pvc) {
  auto it = pvc.spec.resources.requests.find(std::string(kResourceStorage));
  return it != pvc.spec.resources.requests.end() ? it->second : api::Quantity();
}

util::StatusOr<PVPtr> FindMatchingVolume(const api::PersistentVolumeClaim& pvc, const std::vector<PVPtr>& volumes,
                                         const api::StringMap& node_labels, const std::set<std::string>& excluded) {
  const api::Quantity requested = RequestedStorage(pvc);
  const std::string requested_class = ClaimClass(pvc);
  std::optional<api::Selector> selector;
  if (pvc.spec.selector) {
    util::StatusOr<api::Selector> s = api::Selector::FromLabelSelector(*pvc.spec.selector);
    if (!s.ok()) {
      return util::InvalidArgument("error creating internal label selector for claim: " + ClaimKey(pvc) + ": " +
                                   s.status().message());
    }
    selector = std::move(s).value();
  }
  PVPtr smallest;
  api::Quantity smallest_qty;
  // One pass: a PV pre-bound to this claim wins outright, otherwise the
  // smallest PV that fits.
  for (const PVPtr& pv : volumes) {
    if (excluded.count(pv->metadata.name) > 0) continue;
    if (pv->spec.claim_ref && !IsVolumeBoundToClaim(*pv, pvc)) continue;
    auto cap = pv->spec.capacity.find(std::string(kResourceStorage));
    const api::Quantity qty = cap != pv->spec.capacity.end() ? cap->second : api::Quantity();
    if (qty.Cmp(requested) < 0) continue;
    if (VolumeModeMismatches(pvc, *pv)) continue;
    if (pv->metadata.deletion_timestamp) continue;
    const bool affinity_ok = CheckNodeAffinity(*pv, node_labels);
    if (IsVolumeBoundToClaim(*pv, pvc)) {
      // The claim can only use this PV: if the node cannot reach it, no PV
      // on this node will do.
      if (!affinity_ok) return PVPtr();
      return pv;
    }
    // A PV that is not Available yet would likely meet API conflicts.
    if (pv->status.phase != "Available") continue;
    if (selector && !selector->Matches(pv->metadata.labels)) continue;
    if (VolumeClass(*pv) != requested_class) continue;
    if (!affinity_ok) continue;
    if (!CheckAccessModes(pvc, *pv)) continue;
    if (smallest == nullptr || smallest_qty.Cmp(qty) > 0) {
      smallest = pv;
      smallest_qty = qty;
    }
  }
  return smallest;
}

std::pair<api::PersistentVolume, bool> BindVolumeToClaim(const api::PersistentVolume& pv,
                                                         const api::PersistentVolumeClaim& pvc) {
  api::PersistentVolume out = pv;
  bool dirty = false;
  // A PV the user pre-bound to this claim is not the binder's doing.
  const bool by_controller = !IsVolumeBoundToClaim(pv, pvc);
  const auto& old_ref = pv.spec.claim_ref;
  if (!old_ref || old_ref->name != pvc.metadata.name || old_ref->namespace_ != pvc.metadata.namespace_ ||
      old_ref->uid != pvc.metadata.uid) {
    api::ObjectReference ref;
    ref.kind = "PersistentVolumeClaim";
    ref.api_version = "v1";
    ref.namespace_ = pvc.metadata.namespace_;
    ref.name = pvc.metadata.name;
    ref.uid = pvc.metadata.uid;
    ref.resource_version = pvc.metadata.resource_version;
    out.spec.claim_ref = std::move(ref);
    dirty = true;
  }
  if (by_controller && !HasAnnotation(out.metadata, kAnnBoundByController)) {
    out.metadata.annotations[std::string(kAnnBoundByController)] = "yes";
    dirty = true;
  }
  return {std::move(out), dirty};
}

util::StatusOr<uint64_t> ObjectVersion(const api::ObjectMeta& meta) {
  const std::string& rv = meta.resource_version;
  if (rv.empty()) return uint64_t{0};
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  if (ec != std::errc() || end != rv.data() + rv.size()) {
    return util::InvalidArgument("couldn't parse resource version \"" + rv + "\" of " + meta.name);
  }
  return v;
}

}  // namespace ksched::scheduler::plugins::volumebinding
