#include "pkg/scheduler/gated_clients.h"

#include <string>

namespace ksched::scheduler {

namespace {

util::Status Closed(const std::string& what) {
  return util::Status(util::StatusCode::kCancelled, "not sent: " + what + ": writes are closed (not leading)");
}

}  // namespace

util::StatusOr<api::PersistentVolume> GatedVolumeClient::UpdatePersistentVolume(const api::PersistentVolume& pv) {
  if (!gate_.IsOpen()) return Closed("update of PersistentVolume " + pv.metadata.name);
  return inner_.UpdatePersistentVolume(pv);
}

util::StatusOr<api::PersistentVolumeClaim> GatedVolumeClient::UpdatePersistentVolumeClaim(
    const api::PersistentVolumeClaim& pvc) {
  if (!gate_.IsOpen()) return Closed("update of PersistentVolumeClaim " + api::KeyOf(pvc.metadata));
  return inner_.UpdatePersistentVolumeClaim(pvc);
}

GatedBindingClient::GatedBindingClient(framework::BindingClient& inner, const util::WritesGate& gate,
                                       framework::VolumeClient* volumes, framework::ResourceClaimClient* claims)
    : inner_(inner), gate_(gate) {
  if (volumes == nullptr) volumes = inner.Volumes();
  if (volumes != nullptr) volumes_.emplace(*volumes, gate);
  if (claims == nullptr) {
    if (auto* source = dynamic_cast<framework::ResourceClaimClientSource*>(&inner)) claims = source->ResourceClaims();
  }
  if (claims != nullptr) claims_.emplace(*claims, gate);
}

util::StatusOr<api::ResourceClaim> GatedResourceClaimClient::GetResourceClaim(const std::string& ns,
                                                                             const std::string& name) {
  return inner_.GetResourceClaim(ns, name);
}

util::StatusOr<api::ResourceClaim> GatedResourceClaimClient::UpdateResourceClaim(const api::ResourceClaim& claim) {
  if (!gate_.IsOpen()) return Closed("update of ResourceClaim " + api::KeyOf(claim.metadata));
  return inner_.UpdateResourceClaim(claim);
}

util::StatusOr<api::ResourceClaim> GatedResourceClaimClient::UpdateResourceClaimStatus(
    const api::ResourceClaim& claim) {
  if (!gate_.IsOpen()) return Closed("status update of ResourceClaim " + api::KeyOf(claim.metadata));
  return inner_.UpdateResourceClaimStatus(claim);
}

util::StatusOr<api::ResourceClaim> GatedResourceClaimClient::RemoveResourceClaimReservation(
    const std::string& ns, const std::string& name, const std::string& claim_uid, const std::string& pod_uid) {
  if (!gate_.IsOpen()) return Closed("status patch of ResourceClaim " + ns + "/" + name);
  return inner_.RemoveResourceClaimReservation(ns, name, claim_uid, pod_uid);
}

util::StatusOr<api::ResourceClaim> GatedResourceClaimClient::CreateResourceClaim(const api::ResourceClaim& claim) {
  if (!gate_.IsOpen()) {
    return Closed("creation of ResourceClaim " + claim.metadata.namespace_ + "/" + claim.metadata.generate_name);
  }
  return inner_.CreateResourceClaim(claim);
}

util::Status GatedResourceClaimClient::DeleteResourceClaim(const std::string& ns, const std::string& name) {
  if (!gate_.IsOpen()) return Closed("deletion of ResourceClaim " + ns + "/" + name);
  return inner_.DeleteResourceClaim(ns, name);
}

util::Status GatedResourceClaimClient::PatchPodExtendedResourceClaimStatus(
    const std::string& ns, const std::string& name, const api::PodExtendedResourceClaimStatus& status) {
  if (!gate_.IsOpen()) return Closed("status patch of pod " + ns + "/" + name);
  return inner_.PatchPodExtendedResourceClaimStatus(ns, name, status);
}

util::Status GatedBindingClient::Bind(const api::Pod& pod, std::string_view node_name) {
  if (!gate_.IsOpen()) return Closed("binding of pod " + api::KeyOf(pod.metadata));
  return inner_.Bind(pod, node_name);
}

util::Status GatedApiWriterClient::PatchPodStatus(const std::string& ns, const std::string& name,
                                                  const nlohmann::json& patch) {
  if (!gate_.IsOpen()) return Closed("status patch of pod " + ns + "/" + name);
  return inner_.PatchPodStatus(ns, name, patch);
}

util::Status GatedApiWriterClient::DeletePod(const std::string& ns, const std::string& name, const std::string& uid) {
  if (!gate_.IsOpen()) return Closed("deletion of pod " + ns + "/" + name);
  return inner_.DeletePod(ns, name, uid);
}

util::Status GatedApiWriterClient::CreateEvent(const api::Event& event) {
  if (!gate_.IsOpen()) return Closed("Event " + event.metadata.name);
  return inner_.CreateEvent(event);
}

util::Status GatedApiWriterClient::PatchEvent(const std::string& ns, const std::string& name,
                                              const nlohmann::json& patch) {
  if (!gate_.IsOpen()) return Closed("patch of Event " + ns + "/" + name);
  return inner_.PatchEvent(ns, name, patch);
}

}  // namespace ksched::scheduler
