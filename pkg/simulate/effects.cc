#include "pkg/simulate/effects.h"

#include <algorithm>
#include <charconv>
#include <utility>

namespace ksched::simulate {

namespace {

// What a driver that attaches every device at once reports: each allocated
// device's bindingConditions True in status.devices (see effects.h).
void MeetBindingConditions(api::ResourceClaimStatus& status) {
  if (!status.allocation) return;
  bool changed = false;
  for (const api::DeviceRequestAllocationResult& r : status.allocation->devices.results) {
    if (r.binding_conditions.empty()) continue;
    auto device = std::find_if(status.device_statuses.begin(), status.device_statuses.end(),
                               [&](const api::AllocatedDeviceStatus& d) {
                                 return d.driver == r.driver && d.pool == r.pool && d.device == r.device &&
                                        d.share_id == r.share_id;
                               });
    if (device == status.device_statuses.end()) {
      device = status.device_statuses.insert(device,
                                             api::AllocatedDeviceStatus{r.driver, r.pool, r.device, r.share_id, {}});
    }
    for (const std::string& type : r.binding_conditions) {
      auto c = std::find_if(device->conditions.begin(), device->conditions.end(),
                            [&](const api::Condition& existing) { return existing.type == type; });
      if (c != device->conditions.end() && c->status == "True") continue;
      if (c == device->conditions.end()) c = device->conditions.insert(c, api::Condition{.type = type});
      c->status = "True";
      c->reason = "Simulated";
      changed = true;
    }
  }
  // The verbatim list no longer says what the decoded one does.
  if (changed) status.devices = api::RawJson{};
}

// A resourceVersion as the number kube-apiserver makes it; 0 when empty or
// not a number (a hand-written snapshot).
uint64_t VersionNumber(const std::string& rv) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  return ec == std::errc() && end == rv.data() + rv.size() ? v : 0;
}

std::string ClaimRef(const std::string& name) { return "resourceclaims.resource.k8s.io \"" + name + "\""; }

}  // namespace

void RecordedEffects::UpdatePodStatus(const api::Pod& pod, const scheduler::apiwriter::PodStatusUpdate& update) {
  std::lock_guard<std::mutex> l(mu_);
  effects_.status_updates.push_back({pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid, update});
}

void RecordedEffects::DeleteVictim(const api::Pod& victim, const std::string&, VictimDone done) {
  {
    std::lock_guard<std::mutex> l(mu_);
    effects_.evictions.push_back({victim.metadata.namespace_, victim.metadata.name, victim.metadata.uid});
  }
  if (done) done(util::Status());
}

void RecordedEffects::RecordEvent(const scheduler::apiwriter::EventRecord& record) {
  // Only the Preempted event matters: it names the preemptor of a victim.
  if (record.reason != scheduler::apiwriter::kReasonPreempted || !record.related) return;
  std::lock_guard<std::mutex> l(mu_);
  effects_.preempted.push_back({record.regarding, *record.related});
}

util::Status RecordedEffects::Bind(const api::Pod& pod, std::string_view node_name) {
  std::lock_guard<std::mutex> l(mu_);
  effects_.bindings.push_back({pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid, std::string(node_name)});
  return util::Status();
}

util::StatusOr<api::PersistentVolume> RecordedEffects::UpdatePersistentVolume(const api::PersistentVolume& pv) {
  {
    std::lock_guard<std::mutex> l(mu_);
    effects_.pv_updates.push_back(pv);
  }
  auto stored = std::make_shared<api::PersistentVolume>(pv);
  if (pv.spec.claim_ref) stored->status.phase = "Bound";
  listers_.persistent_volumes.Set(stored);
  if (pv.spec.claim_ref) {
    auto claim = listers_.persistent_volume_claims.Get(pv.spec.claim_ref->namespace_, pv.spec.claim_ref->name);
    if (claim != nullptr) BindClaim(*claim, pv.metadata.name);
  }
  return *stored;
}

util::StatusOr<api::PersistentVolumeClaim> RecordedEffects::UpdatePersistentVolumeClaim(
    const api::PersistentVolumeClaim& pvc) {
  {
    std::lock_guard<std::mutex> l(mu_);
    effects_.pvc_updates.push_back(pvc);
  }
  listers_.persistent_volume_claims.Set(std::make_shared<api::PersistentVolumeClaim>(pvc));
  auto selected = pvc.metadata.annotations.find("volume.kubernetes.io/selected-node");
  if (selected != pvc.metadata.annotations.end() && pvc.spec.volume_name.empty()) {
    // Dynamic provisioning, done at once.
    auto pv = std::make_shared<api::PersistentVolume>();
    pv->metadata.name = "pvc-" + pvc.metadata.uid;
    pv->metadata.uid = "pv/" + pv->metadata.name;
    auto storage = pvc.spec.resources.requests.find("storage");
    if (storage != pvc.spec.resources.requests.end()) pv->spec.capacity["storage"] = storage->second;
    pv->spec.access_modes = pvc.spec.access_modes;
    pv->spec.storage_class_name = pvc.spec.storage_class_name.value_or("");
    // Provisioners are CSI drivers (the in-tree ones are gone): the volume
    // is the class's driver's, which NodeVolumeLimits counts on the node.
    auto sc = listers_.storage_classes.Get("", pv->spec.storage_class_name);
    if (sc != nullptr && !sc->provisioner.empty() && sc->provisioner != "kubernetes.io/no-provisioner") {
      api::CSIPersistentVolumeSource csi;
      csi.driver = sc->provisioner;
      csi.volume_handle = pv->metadata.name;
      pv->spec.csi = std::move(csi);
    }
    api::ObjectReference ref;
    ref.kind = "PersistentVolumeClaim";
    ref.namespace_ = pvc.metadata.namespace_;
    ref.name = pvc.metadata.name;
    ref.uid = pvc.metadata.uid;
    pv->spec.claim_ref = ref;
    pv->status.phase = "Bound";
    listers_.persistent_volumes.Set(pv);
    BindClaim(pvc, pv->metadata.name);
  }
  return pvc;
}

void RecordedEffects::BindClaim(const api::PersistentVolumeClaim& pvc, const std::string& pv_name) {
  auto bound = std::make_shared<api::PersistentVolumeClaim>(pvc);
  bound->spec.volume_name = pv_name;
  bound->metadata.annotations["pv.kubernetes.io/bind-completed"] = "yes";
  bound->status.phase = "Bound";
  listers_.persistent_volume_claims.Set(bound);
}

util::StatusOr<api::ResourceClaim> RecordedEffects::GetResourceClaim(const std::string& ns, const std::string& name) {
  auto stored = listers_.resource_claims.Get(ns, name);
  if (stored == nullptr) return util::NotFound(ClaimRef(name) + " not found");
  return *stored;
}

util::StatusOr<api::ResourceClaim> RecordedEffects::WriteClaim(
    const std::string& ns, const std::string& name, const std::string& resource_version,
    const std::function<util::Status(const api::ResourceClaim& stored, api::ResourceClaim& next)>& change) {
  std::lock_guard<std::mutex> writes(claims_mu_);
  auto stored = listers_.resource_claims.Get(ns, name);
  if (stored == nullptr) return util::NotFound(ClaimRef(name) + " not found");
  if (!resource_version.empty() && resource_version != stored->metadata.resource_version) {
    return util::Status(util::StatusCode::kConflict,
                        "Operation cannot be fulfilled on " + ClaimRef(name) +
                            ": the object has been modified; please apply your changes to the latest version and "
                            "try again");
  }
  auto next = std::make_shared<api::ResourceClaim>(*stored);
  util::Status s = change(*stored, *next);
  if (!s.ok()) return s;
  next->metadata.resource_version = std::to_string(VersionNumber(stored->metadata.resource_version) + 1);
  listers_.resource_claims.Set(next);
  {
    std::lock_guard<std::mutex> l(mu_);
    effects_.claim_updates.push_back({stored, next});
  }
  return *next;
}

util::StatusOr<api::ResourceClaim> RecordedEffects::UpdateResourceClaim(const api::ResourceClaim& claim) {
  return WriteClaim(claim.metadata.namespace_, claim.metadata.name, claim.metadata.resource_version,
                    [&](const api::ResourceClaim& stored, api::ResourceClaim& next) {
                      next.metadata = claim.metadata;
                      next.metadata.uid = stored.metadata.uid;
                      next.spec = claim.spec;
                      return util::Status();
                    });
}

util::StatusOr<api::ResourceClaim> RecordedEffects::UpdateResourceClaimStatus(const api::ResourceClaim& claim) {
  return WriteClaim(claim.metadata.namespace_, claim.metadata.name, claim.metadata.resource_version,
                    [&](const api::ResourceClaim&, api::ResourceClaim& next) {
                      next.status = claim.status;
                      MeetBindingConditions(next.status);
                      return util::Status();
                    });
}

util::StatusOr<api::ResourceClaim> RecordedEffects::RemoveResourceClaimReservation(const std::string& ns,
                                                                                   const std::string& name,
                                                                                   const std::string& claim_uid,
                                                                                   const std::string& pod_uid) {
  return WriteClaim(ns, name, "", [&](const api::ResourceClaim& stored, api::ResourceClaim& next) {
    return scheduler::framework::RemoveReservationInMemory(stored, next, claim_uid, pod_uid);
  });
}

util::StatusOr<api::ResourceClaim> RecordedEffects::CreateResourceClaim(const api::ResourceClaim& claim) {
  std::lock_guard<std::mutex> writes(claims_mu_);
  auto next = std::make_shared<api::ResourceClaim>(claim);
  const std::string n = std::to_string(++created_claims_);
  if (next->metadata.name.empty()) next->metadata.name = claim.metadata.generate_name + n;
  if (listers_.resource_claims.Get(next->metadata.namespace_, next->metadata.name) != nullptr) {
    return util::Status(util::StatusCode::kAlreadyExists, ClaimRef(next->metadata.name) + " already exists");
  }
  next->metadata.uid = "sim-claim-" + n;
  next->metadata.resource_version = "1";
  listers_.resource_claims.Set(next);
  std::lock_guard<std::mutex> l(mu_);
  effects_.claim_updates.push_back({nullptr, next});
  return *next;
}

util::Status RecordedEffects::DeleteResourceClaim(const std::string& ns, const std::string& name) {
  std::lock_guard<std::mutex> writes(claims_mu_);
  auto stored = listers_.resource_claims.Get(ns, name);
  if (stored == nullptr) return util::NotFound(ClaimRef(name) + " not found");
  listers_.resource_claims.Delete(ns, name);
  std::lock_guard<std::mutex> l(mu_);
  effects_.claim_updates.push_back({stored, nullptr});
  return util::Status();
}

util::Status RecordedEffects::PatchPodExtendedResourceClaimStatus(const std::string& ns, const std::string& name,
                                                                  const api::PodExtendedResourceClaimStatus& status) {
  auto stored = listers_.pods.Get(ns, name);
  if (stored == nullptr) return util::NotFound("pods \"" + name + "\" not found");
  auto next = std::make_shared<api::Pod>(*stored);
  next->status.extended_resource_claim_status = status;
  listers_.pods.Set(next);
  return util::Status();
}

Effects RecordedEffects::Take() {
  std::lock_guard<std::mutex> l(mu_);
  Effects out = std::move(effects_);
  effects_ = Effects{};
  return out;
}

}  // namespace ksched::simulate
