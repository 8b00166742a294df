#include "pkg/scheduler/plugins/nodevolumelimits/csi.h"

#include <random>
#include <set>

#include "pkg/scheduler/plugins/nodevolumelimits/csi_translation.h"

namespace ksched::scheduler::plugins::nodevolumelimits {

using framework::ActionType;
using framework::Code;
using framework::QueueingHint;
using framework::Status;

namespace {

constexpr std::string_view kBetaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";

// The claim of a generic ephemeral volume: "<pod>-<volume>".
std::string EphemeralClaimName(const api::Pod& pod, const api::Volume& v) { return pod.metadata.name + "-" + v.name; }

// The PVC of an ephemeral volume must be controlled by the pod, otherwise it
// belongs to someone else and must not be used.
bool IsControlledBy(const api::PersistentVolumeClaim& pvc, const api::Pod& pod) {
  for (const api::OwnerReference& o : pvc.metadata.owner_references) {
    if (o.controller.value_or(false)) return o.uid == pod.metadata.uid;
  }
  return false;
}

std::string ClaimClass(const api::PersistentVolumeClaim& pvc) {
  auto it = pvc.metadata.annotations.find(std::string(kBetaStorageClassAnnotation));
  if (it != pvc.metadata.annotations.end()) return it->second;
  return pvc.spec.storage_class_name.value_or("");
}

// The claim names the pod refers to (direct and ephemeral).
std::vector<std::string> ClaimNames(const api::Pod& pod) {
  std::vector<std::string> out;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.persistent_volume_claim) {
      out.push_back(v.persistent_volume_claim->claim_name);
    } else if (v.ephemeral) {
      out.push_back(EphemeralClaimName(pod, v));
    }
  }
  return out;
}

// A volume the plugin may count: a claim, or an in-tree source that has a
// CSI driver to migrate to.
bool MayCount(const api::Volume& v) {
  return v.persistent_volume_claim || v.ephemeral || !InTreePluginName(v).empty();
}

bool HasCountableVolume(const api::Pod& pod) {
  for (const api::Volume& v : pod.spec.volumes) {
    if (MayCount(v)) return true;
  }
  return false;
}

std::string UniqueName(std::string_view driver, std::string_view handle) {
  std::string out(driver);
  out.append("/").append(handle);
  return out;
}

}  // namespace

std::pair<framework::PreFilterResult, Status> CSILimits::PreFilter(framework::CycleState&, const api::Pod& pod,
                                                                   const framework::NodeInfoList&) {
  if (HasCountableVolume(pod)) return {framework::PreFilterResult(), Status()};
  return {framework::PreFilterResult(), Status(Code::kSkip)};
}

std::pair<std::string, std::string> CSILimits::GetCSIDriverInfoFromSC(const api::CSINode* csi_node,
                                                                      const api::PersistentVolumeClaim& pvc) const {
  // Without a class the claim binds immediately, so it is bound (and counted
  // through its PV) before any pod using it is scheduled.
  std::string class_name = ClaimClass(pvc);
  if (class_name.empty()) return {};
  auto sc = listers_.StorageClasses().Get("", class_name);
  if (sc == nullptr) return {};
  std::string handle = random_volume_id_prefix_ + "-" + pvc.metadata.namespace_ + "/" + pvc.metadata.name;
  const std::string_view migrated_driver = CSIDriverForInTreePlugin(sc->provisioner);
  if (migrated_driver.empty()) return {sc->provisioner, std::move(handle)};
  // An in-tree provisioner: its volumes count as the CSI driver's where the
  // node migrated the plugin.
  if (!IsCSIMigrationOn(csi_node, sc->provisioner, portworx_migrated_)) return {};
  return {std::string(migrated_driver), std::move(handle)};
}

std::pair<std::string, std::string> CSILimits::GetCSIDriverInfo(const api::CSINode* csi_node,
                                                                const api::PersistentVolumeClaim& pvc) const {
  const std::string& pv_name = pvc.spec.volume_name;
  if (pv_name.empty()) return GetCSIDriverInfoFromSC(csi_node, pvc);
  auto pv = listers_.PersistentVolumes().Get("", pv_name);
  // A deleted PV, or a claim pre-bound to a PV not created yet: fall back to
  // the class.
  if (pv == nullptr) return GetCSIDriverInfoFromSC(csi_node, pvc);
  if (pv->spec.csi) return {pv->spec.csi->driver, pv->spec.csi->volume_handle};
  const std::string_view plugin = InTreePluginName(*pv);
  if (plugin.empty() || !IsCSIMigrationOn(csi_node, plugin, portworx_migrated_)) return {};
  // A PV that does not translate is not counted (kube logs and skips it).
  util::StatusOr<CSIVolume> translated = TranslatePersistentVolume(*pv);
  if (!translated.ok()) return {};
  return {translated->driver, translated->handle};
}

util::Status CSILimits::FilterAttachableVolumes(const api::Pod& pod, const api::CSINode* csi_node, bool new_pod,
                                                std::map<std::string, std::string>& result) const {
  for (const api::Volume& v : pod.spec.volumes) {
    std::string claim;
    bool ephemeral = false;
    if (v.persistent_volume_claim) {
      claim = v.persistent_volume_claim->claim_name;
    } else if (v.ephemeral) {
      claim = EphemeralClaimName(pod, v);
      ephemeral = true;
    } else {
      // An inline in-tree volume counts as the CSI volume it migrated to.
      const std::string_view plugin = InTreePluginName(v);
      if (plugin.empty() || !IsCSIMigrationOn(csi_node, plugin, portworx_migrated_)) continue;
      util::StatusOr<CSIVolume> translated = TranslateInlineVolume(v);
      if (!translated.ok()) {
        return util::InvalidArgument("converting volume(" + v.name + ") from inline to csi: " +
                                     translated.status().message());
      }
      if (translated->handle.empty()) continue;
      result[UniqueName(translated->driver, translated->handle)] = translated->driver;
      continue;
    }
    if (claim.empty()) return util::InvalidArgument("PersistentVolumeClaim had no name");
    auto pvc = listers_.PersistentVolumeClaims().Get(pod.metadata.namespace_, claim);
    if (pvc == nullptr) {
      // The incoming pod cannot run without it; a running pod's missing
      // claim says nothing reliable about what is attached.
      if (new_pod) {
        return util::NotFound("looking up PVC " + pod.metadata.namespace_ + "/" + claim +
                              ": persistentvolumeclaim \"" + claim + "\" not found");
      }
      continue;
    }
    if (ephemeral && !IsControlledBy(*pvc, pod)) {
      return util::InvalidArgument("PVC " + pod.metadata.namespace_ + "/" + claim + " was not created for pod " +
                                   pod.metadata.namespace_ + "/" + pod.metadata.name + " (pod is not owner)");
    }
    auto [driver, handle] = GetCSIDriverInfo(csi_node, *pvc);
    if (driver.empty() || handle.empty()) continue;
    result[UniqueName(driver, handle)] = driver;
  }
  return util::Status();
}

std::map<std::string, std::string> CSILimits::NodeVolumeAttachments(std::string_view node_name) const {
  std::map<std::string, std::string> out;
  for (const auto& va : listers_.VolumeAttachments().List()) {
    if (va->spec.node_name != node_name) continue;
    if (va->spec.attacher.empty() || !va->spec.source.persistent_volume_name) continue;
    auto pv = listers_.PersistentVolumes().Get("", *va->spec.source.persistent_volume_name);
    // Only CSI PVs name their handle; a migrated in-tree PV's attachment is
    // not translated (as in kube).
    if (pv == nullptr || !pv->spec.csi) continue;
    out[UniqueName(va->spec.attacher, pv->spec.csi->volume_handle)] = va->spec.attacher;
  }
  return out;
}

bool CSILimits::DriverInstalled(std::string_view driver, const api::CSINode* csi_node) const {
  // A driver without a CSIDriver object may not be a CSI driver at all.
  auto object = listers_.CSIDrivers().Get("", driver);
  if (object == nullptr || !object->spec.prevent_pod_scheduling_if_missing.value_or(false)) return true;
  if (csi_node == nullptr) return false;
  for (const api::CSINodeDriver& d : csi_node->spec.drivers) {
    if (d.name == driver) return true;
  }
  return false;
}

Status CSILimits::Filter(framework::CycleState&, const api::Pod& pod, const framework::NodeInfo& node_info) {
  if (pod.spec.volumes.empty()) return Status();
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");
  // Without a CSINode nothing is limited and nothing in-tree is migrated.
  const std::shared_ptr<const api::CSINode> csi_node = listers_.CSINodes().Get("", node->metadata.name);
  std::map<std::string, std::string> new_volumes;
  if (util::Status s = FilterAttachableVolumes(pod, csi_node.get(), true, new_volumes); !s.ok()) {
    if (s.code() == util::StatusCode::kNotFound) return Status(Code::kUnschedulableAndUnresolvable, s.message());
    return Status::FromError(s);
  }
  if (new_volumes.empty()) return Status();
  if (volume_limit_scaling_) {
    std::set<std::string_view> drivers;
    for (const auto& [unique_name, driver] : new_volumes) drivers.insert(driver);
    for (std::string_view driver : drivers) {
      if (!DriverInstalled(driver, csi_node.get())) {
        return Status(Code::kUnschedulable, std::string(driver) + " CSI driver is not installed on the node");
      }
    }
  }

  std::map<std::string, int64_t> limits;  // driver -> max volumes
  if (csi_node != nullptr) {
    for (const api::CSINodeDriver& d : csi_node->spec.drivers) {
      if (d.allocatable && d.allocatable->count) limits[d.name] = *d.allocatable->count;
    }
  }
  if (limits.empty()) return Status();

  std::map<std::string, std::string> attached;
  for (const framework::PodInfoPtr& pi : node_info.pods()) {
    if (util::Status s = FilterAttachableVolumes(pi->pod(), csi_node.get(), false, attached); !s.ok()) {
      return Status::FromError(s);
    }
  }
  std::map<std::string, int> attached_count;
  for (const auto& [unique_name, driver] : attached) {
    // A volume already attached for another pod costs nothing more.
    new_volumes.erase(unique_name);
    ++attached_count[driver];
  }
  // Attachments outlive their pods (detaching takes time): each one not
  // already counted through a pod holds a slot.
  for (const auto& [unique_name, driver] : NodeVolumeAttachments(node->metadata.name)) {
    if (attached.count(unique_name) == 0) ++attached_count[driver];
  }
  std::map<std::string, int> new_count;
  for (const auto& [unique_name, driver] : new_volumes) ++new_count[driver];
  for (const auto& [driver, count] : new_count) {
    auto it = limits.find(driver);
    if (it == limits.end()) continue;
    if (attached_count[driver] + count > it->second) {
      return Status(Code::kUnschedulable, std::string(kErrReasonMaxVolumeCountExceeded));
    }
  }
  return Status();
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> CSILimits::EventsToRegister() const {
  std::vector<framework::ClusterEventWithHint> events;
  // Any new CSINode may bring room for the pod's volumes: no hint.
  events.push_back({framework::ClusterEvent(framework::resource::kCSINode, ActionType::kAdd), nullptr});
  events.push_back({framework::ClusterEvent(framework::resource::kCSINode, ActionType::kUpdate),
                    &CSILimits::IsSchedulableAfterCSINodeUpdated});
  events.push_back({framework::ClusterEvent(framework::resource::kPod, ActionType::kDelete),
                    &CSILimits::IsSchedulableAfterPodDeleted});
  events.push_back({framework::ClusterEvent(framework::resource::kPersistentVolumeClaim, ActionType::kAdd),
                    &CSILimits::IsSchedulableAfterPVCAdded});
  events.push_back({framework::ClusterEvent(framework::resource::kVolumeAttachment, ActionType::kDelete),
                    &CSILimits::IsSchedulableAfterVolumeAttachmentDeleted});
  return events;
}

util::StatusOr<QueueingHint> CSILimits::IsSchedulableAfterPodDeleted(const api::Pod&,
                                                                     const framework::EventObject& old_obj,
                                                                     const framework::EventObject&) {
  const api::Pod* deleted = old_obj.As<api::Pod>();
  if (deleted == nullptr) return util::InvalidArgument("NodeVolumeLimits: unexpected object in a pod delete event");
  // Only an assigned or nominated pod's volumes held slots on a node.
  if (deleted->spec.node_name.empty() && deleted->status.nominated_node_name.empty()) {
    return QueueingHint::kQueueSkip;
  }
  return HasCountableVolume(*deleted) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> CSILimits::IsSchedulableAfterCSINodeUpdated(const api::Pod&,
                                                                         const framework::EventObject& old_obj,
                                                                         const framework::EventObject& new_obj) {
  const api::CSINode* old_node = old_obj.As<api::CSINode>();
  const api::CSINode* new_node = new_obj.As<api::CSINode>();
  if (old_node == nullptr || new_node == nullptr) {
    return util::InvalidArgument("NodeVolumeLimits: unexpected objects in a CSINode update");
  }
  auto count = [](const api::CSINodeDriver& d) -> int32_t {
    return d.allocatable && d.allocatable->count ? *d.allocatable->count : 0;
  };
  std::map<std::string, int32_t, std::less<>> old_limits;
  for (const api::CSINodeDriver& d : old_node->spec.drivers) old_limits[d.name] = count(d);
  // Only a higher limit can make room; a driver new to the node starts at 0.
  for (const api::CSINodeDriver& d : new_node->spec.drivers) {
    auto it = old_limits.find(d.name);
    if (count(d) > (it == old_limits.end() ? 0 : it->second)) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> CSILimits::IsSchedulableAfterVolumeAttachmentDeleted(
    const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject&) {
  const api::VolumeAttachment* va = old_obj.As<api::VolumeAttachment>();
  if (va == nullptr) {
    return util::InvalidArgument("NodeVolumeLimits: unexpected object in a VolumeAttachment delete event");
  }
  for (const api::Volume& v : pod.spec.volumes) {
    // Whatever driver a claim resolves to, the freed slot may be its.
    if (v.persistent_volume_claim) return QueueingHint::kQueue;
    if (InTreePluginName(v).empty()) continue;
    util::StatusOr<CSIVolume> translated = TranslateInlineVolume(v);
    if (!translated.ok()) return translated.status();
    if (translated->driver == va->spec.attacher) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> CSILimits::IsSchedulableAfterPVCAdded(const api::Pod& pod,
                                                                   const framework::EventObject&,
                                                                   const framework::EventObject& new_obj) {
  const api::PersistentVolumeClaim* pvc = new_obj.As<api::PersistentVolumeClaim>();
  if (pvc == nullptr) return util::InvalidArgument("NodeVolumeLimits: unexpected object in a PVC add event");
  if (pvc->metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::kQueueSkip;
  for (const std::string& claim : ClaimNames(pod)) {
    if (claim == pvc->metadata.name) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

std::unique_ptr<CSILimits> New(framework::Handle& handle) {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::random_device rd;
  std::string prefix;
  for (int i = 0; i < 32; ++i) prefix.push_back(kAlphabet[rd() % (sizeof(kAlphabet) - 1)]);
  return std::make_unique<CSILimits>(handle.Listers(), std::move(prefix),
                                     handle.Features().volume_limits_portworx_migrated,
                                     handle.Features().volume_limit_scaling);
}

framework::Status CSILimits::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  out.push_back({framework::signer::kVolumes, framework::VolumesSignature(pod)});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::nodevolumelimits
