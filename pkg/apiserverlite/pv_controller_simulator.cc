#include "pkg/apiserverlite/pv_controller_simulator.h"

#include <algorithm>
#include <optional>

#include "pkg/apiserverlite/defaulting.h"
#include "pkg/apiserverlite/meta.h"
#include "pkg/api/codec.h"
#include "pkg/api/labels.h"
#include "pkg/api/quantity.h"

namespace ksched::apiserver {

namespace {

using nlohmann::json;

constexpr char kAnnBindCompleted[] = "pv.kubernetes.io/bind-completed";
constexpr char kAnnBoundByController[] = "pv.kubernetes.io/bound-by-controller";
constexpr char kAnnSelectedNode[] = "volume.kubernetes.io/selected-node";
constexpr char kAnnBetaStorageClass[] = "volume.beta.kubernetes.io/storage-class";
constexpr char kAnnProvisionedBy[] = "pv.kubernetes.io/provisioned-by";
constexpr char kNoProvisioner[] = "kubernetes.io/no-provisioner";
constexpr char kLabelHostname[] = "kubernetes.io/hostname";

std::string Annotation(const json& obj, const char* key) {
  auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return "";
  auto ann = meta->find("annotations");
  if (ann == meta->end() || !ann->is_object()) return "";
  auto it = ann->find(key);
  return it != ann->end() && it->is_string() ? it->get<std::string>() : "";
}

bool HasAnnotation(const json& obj, const char* key) {
  auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return false;
  auto ann = meta->find("annotations");
  return ann != meta->end() && ann->is_object() && ann->contains(key);
}

bool Deleting(const json& obj) {
  auto meta = obj.find("metadata");
  return meta != obj.end() && meta->is_object() && meta->contains("deletionTimestamp") &&
         !(*meta)["deletionTimestamp"].is_null();
}

std::string ClaimClass(const api::PersistentVolumeClaim& pvc) {
  auto it = pvc.metadata.annotations.find(kAnnBetaStorageClass);
  if (it != pvc.metadata.annotations.end()) return it->second;
  return pvc.spec.storage_class_name.value_or("");
}

std::string VolumeClass(const api::PersistentVolume& pv) {
  auto it = pv.metadata.annotations.find(kAnnBetaStorageClass);
  if (it != pv.metadata.annotations.end()) return it->second;
  return pv.spec.storage_class_name;
}

api::Quantity Storage(const api::ResourceList& list) {
  auto it = list.find("storage");
  return it != list.end() ? it->second : api::Quantity();
}

bool CanProvision(const json& sc) {
  std::string provisioner = sc.value("provisioner", "");
  return !provisioner.empty() && provisioner != kNoProvisioner;
}

// Whether `pv` is Available for the Immediate-mode claim `pvc`.
bool Matches(const api::PersistentVolume& pv, const api::PersistentVolumeClaim& pvc) {
  if (pv.spec.claim_ref || pv.status.phase != "Available" || pv.metadata.deletion_timestamp) return false;
  if (VolumeClass(pv) != ClaimClass(pvc)) return false;
  if (Storage(pv.spec.capacity).Cmp(Storage(pvc.spec.resources.requests)) < 0) return false;
  if (pv.spec.volume_mode.value_or("Filesystem") != pvc.spec.volume_mode.value_or("Filesystem")) return false;
  for (const std::string& mode : pvc.spec.access_modes) {
    if (std::find(pv.spec.access_modes.begin(), pv.spec.access_modes.end(), mode) == pv.spec.access_modes.end()) {
      return false;
    }
  }
  if (pvc.spec.selector) {
    auto selector = api::Selector::FromLabelSelector(*pvc.spec.selector);
    if (!selector.ok() || !selector->Matches(pv.metadata.labels)) return false;
  }
  return true;
}

bool RefNames(const api::ObjectReference& ref, const api::PersistentVolumeClaim& pvc) {
  return ref.name == pvc.metadata.name && ref.namespace_ == pvc.metadata.namespace_ &&
         (ref.uid.empty() || ref.uid == pvc.metadata.uid);
}

}  // namespace

PVControllerSimulator::PVControllerSimulator(ObjectStore& pvs, ObjectStore& pvcs, ObjectStore& storage_classes,
                                             ObjectStore& nodes, const ResourceInfo& pv_info, TimerQueue& timers,
                                             util::Duration delay)
    : pvs_(pvs),
      pvcs_(pvcs),
      storage_classes_(storage_classes),
      nodes_(nodes),
      pv_info_(pv_info),
      timers_(timers),
      delay_(delay) {}

void PVControllerSimulator::Attach() {
  pv_observer_ = pvs_.AddObserver([this](const EventPtr& e) { OnEvent(e); });
  pvc_observer_ = pvcs_.AddObserver([this](const EventPtr& e) { OnEvent(e); });
}

void PVControllerSimulator::Detach() {
  pvs_.RemoveObserver(pv_observer_);
  pvcs_.RemoveObserver(pvc_observer_);
}

void PVControllerSimulator::OnEvent(const EventPtr& event) {
  if (event->type() == EventType::kDeleted) return;
  // One pass covers every change seen until it starts.
  if (sync_pending_.exchange(true)) return;
  timers_.ScheduleAfter(delay_, [this] { Sync(); });
}

void PVControllerSimulator::Sync() {
  sync_pending_.store(false);
  for (const ObjectPtr& obj : pvs_.List("", {}).items) {
    util::StatusOr<api::PersistentVolume> pv = api::FromJson<api::PersistentVolume>(obj->object);
    if (!pv.ok() || pv->spec.claim_ref || pv->metadata.deletion_timestamp) continue;
    if (pv->status.phase.empty() || pv->status.phase == "Pending") MarkAvailable(pv->metadata.name);
  }
  for (const ObjectPtr& obj : pvcs_.List("", {}).items) {
    const json& raw = obj->object;
    if (HasAnnotation(raw, kAnnBindCompleted) || Deleting(raw)) continue;
    util::StatusOr<api::PersistentVolumeClaim> pvc = api::FromJson<api::PersistentVolumeClaim>(raw);
    if (!pvc.ok()) continue;
    std::string target;
    std::vector<api::PersistentVolume> volumes;
    for (const ObjectPtr& pv_obj : pvs_.List("", {}).items) {
      util::StatusOr<api::PersistentVolume> pv = api::FromJson<api::PersistentVolume>(pv_obj->object);
      if (pv.ok()) volumes.push_back(std::move(pv).value());
    }
    if (!pvc->spec.volume_name.empty()) {
      // Pre-bound by the user: only that PV, and only if it is free or ours.
      for (const api::PersistentVolume& pv : volumes) {
        if (pv.metadata.name != pvc->spec.volume_name) continue;
        if (!pv.spec.claim_ref || RefNames(*pv.spec.claim_ref, *pvc)) target = pv.metadata.name;
      }
    } else {
      for (const api::PersistentVolume& pv : volumes) {
        if (pv.spec.claim_ref && RefNames(*pv.spec.claim_ref, *pvc)) target = pv.metadata.name;
      }
    }
    if (target.empty() && pvc->spec.volume_name.empty()) {
      const std::string class_name = ClaimClass(*pvc);
      ObjectPtr sc = class_name.empty() ? nullptr : storage_classes_.Get(class_name);
      const std::string selected = Annotation(raw, kAnnSelectedNode);
      if (!selected.empty()) {
        if (sc && CanProvision(sc->object)) target = Provision(raw, sc->object, selected);
      } else if (!sc || sc->object.value("volumeBindingMode", "Immediate") != "WaitForFirstConsumer") {
        const api::PersistentVolume* best = nullptr;
        for (const api::PersistentVolume& pv : volumes) {
          if (!Matches(pv, *pvc)) continue;
          if (best == nullptr || Storage(pv.spec.capacity).Cmp(Storage(best->spec.capacity)) < 0) best = &pv;
        }
        if (best != nullptr) {
          target = best->metadata.name;
        } else if (sc && CanProvision(sc->object)) {
          target = Provision(raw, sc->object, "");
        }
      }
    }
    if (!target.empty() && Bind(target, obj->key)) claims_bound_.fetch_add(1);
  }
}

void PVControllerSimulator::MarkAvailable(const std::string& pv_name) {
  pvs_.Update(pv_name, [](const json& pv) -> ApiResult<json> {
    if (pv.contains("spec") && pv["spec"].is_object() && pv["spec"].contains("claimRef") &&
        !pv["spec"]["claimRef"].is_null()) {
      return pv;
    }
    json next = pv;
    json& status = next["status"];
    if (!status.is_object()) status = json::object();
    std::string phase = status.value("phase", "");
    if (!phase.empty() && phase != "Pending") return pv;
    status["phase"] = "Available";
    return next;
  });
}

bool PVControllerSimulator::Bind(const std::string& pv_name, const std::string& pvc_key) {
  ObjectPtr pvc_obj = pvcs_.Get(pvc_key);
  if (!pvc_obj) return false;
  const json& pvc = pvc_obj->object;
  const json& meta = pvc["metadata"];
  const std::string ns = meta.value("namespace", "");
  const std::string name = meta.value("name", "");
  const std::string uid = meta.value("uid", "");
  json capacity;
  json access_modes;
  auto pv_result = pvs_.Update(pv_name, [&](const json& pv) -> ApiResult<json> {
    json next = pv;
    json& spec = next["spec"];
    if (!spec.is_object()) spec = json::object();
    auto ref = spec.find("claimRef");
    const bool had_ref = ref != spec.end() && ref->is_object();
    if (had_ref && ((*ref).value("name", "") != name || (*ref).value("namespace", "") != ns ||
                    ((*ref).value("uid", "") != "" && (*ref).value("uid", "") != uid))) {
      return ConflictError("persistentvolumes", pv_name, "bound to another claim");
    }
    if (!had_ref) {
      spec["claimRef"] = {{"kind", "PersistentVolumeClaim"},
                          {"apiVersion", "v1"},
                          {"namespace", ns},
                          {"name", name},
                          {"uid", uid},
                          {"resourceVersion", meta.value("resourceVersion", "")}};
      next["metadata"]["annotations"][kAnnBoundByController] = "yes";
    } else if ((*ref).value("uid", "").empty()) {
      (*ref)["uid"] = uid;
    }
    if (!next["status"].is_object()) next["status"] = json::object();
    next["status"]["phase"] = "Bound";
    capacity = spec.value("capacity", json::object());
    access_modes = spec.value("accessModes", json::array());
    return next;
  });
  if (!pv_result.ok()) return false;
  auto pvc_result = pvcs_.Update(pvc_key, [&](const json& current) -> ApiResult<json> {
    if (current["metadata"].value("uid", "") != uid) return ConflictError("persistentvolumeclaims", name, "replaced");
    json next = current;
    json& spec = next["spec"];
    if (!spec.is_object()) spec = json::object();
    json& annotations = next["metadata"]["annotations"];
    if (!annotations.is_object()) annotations = json::object();
    if (spec.value("volumeName", "") != pv_name) {
      spec["volumeName"] = pv_name;
      annotations[kAnnBoundByController] = "yes";
    }
    annotations[kAnnBindCompleted] = "yes";
    json& status = next["status"];
    if (!status.is_object()) status = json::object();
    status["phase"] = "Bound";
    status["capacity"] = capacity;
    status["accessModes"] = access_modes;
    return next;
  });
  return pvc_result.ok();
}

std::string PVControllerSimulator::NodeHostname(const std::string& node) const {
  ObjectPtr obj = nodes_.Get(node);
  if (obj) {
    const json& meta = obj->object["metadata"];
    if (meta.contains("labels") && meta["labels"].is_object()) {
      std::string host = meta["labels"].value(kLabelHostname, "");
      if (!host.empty()) return host;
    }
  }
  return node;
}

std::string PVControllerSimulator::Provision(const json& pvc, const json& storage_class, const std::string& node) {
  const json& meta = pvc["metadata"];
  const std::string uid = meta.value("uid", "");
  if (uid.empty()) return "";
  const std::string name = "pvc-" + uid;
  if (pvs_.Get(name)) return name;  // provisioned by an earlier pass
  const json& spec = pvc.contains("spec") && pvc["spec"].is_object() ? pvc["spec"] : json::object();
  json request = "0";
  if (spec.contains("resources") && spec["resources"].is_object() &&
      spec["resources"].contains("requests") && spec["resources"]["requests"].is_object() &&
      spec["resources"]["requests"].contains("storage")) {
    request = spec["resources"]["requests"]["storage"];
  }
  json pv = {{"apiVersion", "v1"},
             {"kind", "PersistentVolume"},
             {"metadata",
              {{"name", name},
               {"annotations", {{kAnnProvisionedBy, storage_class.value("provisioner", "")}}}}},
             {"spec",
              {{"capacity", {{"storage", request}}},
               {"accessModes", spec.value("accessModes", json::array())},
               {"volumeMode", spec.value("volumeMode", "Filesystem")},
               {"storageClassName", storage_class["metadata"].value("name", "")},
               {"persistentVolumeReclaimPolicy", storage_class.value("reclaimPolicy", "Delete")},
               {"claimRef",
                {{"kind", "PersistentVolumeClaim"},
                 {"apiVersion", "v1"},
                 {"namespace", meta.value("namespace", "")},
                 {"name", meta.value("name", "")},
                 {"uid", uid}}}}}};
  if (!node.empty()) {
    pv["spec"]["nodeAffinity"] = {
        {"required",
         {{"nodeSelectorTerms",
           json::array({{{"matchExpressions",
                          json::array({{{"key", kLabelHostname},
                                        {"operator", "In"},
                                        {"values", json::array({NodeHostname(node)})}}})}}})}}}};
  }
  auto prepared = PrepareForCreate(pv_info_, std::move(pv), "", timers_.clock().WallNow());
  if (!prepared.ok()) return "";
  auto created = pvs_.Create(std::move(prepared.value()));
  if (!created.ok()) return "";
  volumes_provisioned_.fetch_add(1);
  return name;
}

}  // namespace ksched::apiserver
