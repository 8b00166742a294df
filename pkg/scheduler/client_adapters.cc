#include "pkg/scheduler/client_adapters.h"

#include <utility>

#include "pkg/api/resource_codec.h"
#include "pkg/client/event_calls.h"
#include "pkg/client/pod_calls.h"
#include "pkg/client/typed.h"

namespace ksched::scheduler {

util::Status RestBindingClient::Bind(const api::Pod& pod, std::string_view node_name) {
  api::Binding binding;
  binding.metadata.namespace_ = pod.metadata.namespace_;
  binding.metadata.name = pod.metadata.name;
  binding.metadata.uid = pod.metadata.uid;
  binding.target.kind = "Node";
  binding.target.name = std::string(node_name);
  return client::BindPod(client_, binding);
}

namespace {

// The metadata part of a binder's merge patch: the annotations it may have
// added, and the resourceVersion it read, which the API server checks as a
// precondition exactly as it does for a PUT.
nlohmann::json MetadataPatch(const api::ObjectMeta& meta) {
  nlohmann::json m = {{"annotations", meta.annotations}};
  if (!meta.resource_version.empty()) m["resourceVersion"] = meta.resource_version;
  return m;
}

}  // namespace

util::StatusOr<api::PersistentVolume> RestVolumeClient::UpdatePersistentVolume(const api::PersistentVolume& pv) {
  nlohmann::json encoded = api::ToJson(pv);
  nlohmann::json claim_ref = encoded["spec"].value("claimRef", nlohmann::json(nullptr));
  nlohmann::json patch = {{"metadata", MetadataPatch(pv.metadata)}, {"spec", {{"claimRef", claim_ref}}}};
  return client::DecodeResult<api::PersistentVolume>(client_.Patch(
      client::ObjectPath<api::PersistentVolume>("", pv.metadata.name), client::PatchType::kJsonMerge, patch));
}

util::StatusOr<api::PersistentVolumeClaim> RestVolumeClient::UpdatePersistentVolumeClaim(
    const api::PersistentVolumeClaim& pvc) {
  nlohmann::json patch = {{"metadata", MetadataPatch(pvc.metadata)}};
  return client::DecodeResult<api::PersistentVolumeClaim>(
      client_.Patch(client::ObjectPath<api::PersistentVolumeClaim>(pvc.metadata.namespace_, pvc.metadata.name),
                    client::PatchType::kJsonMerge, patch));
}

util::StatusOr<api::ResourceClaim> RestResourceClaimClient::GetResourceClaim(const std::string& ns,
                                                                            const std::string& name) {
  return client::GetObject<api::ResourceClaim>(client_, ns, name);
}

util::StatusOr<api::ResourceClaim> RestResourceClaimClient::UpdateResourceClaim(const api::ResourceClaim& claim) {
  return client::UpdateObject(client_, claim);
}

util::StatusOr<api::ResourceClaim> RestResourceClaimClient::UpdateResourceClaimStatus(
    const api::ResourceClaim& claim) {
  return client::PutObject(
      client_, client::ObjectPath<api::ResourceClaim>(claim.metadata.namespace_, claim.metadata.name, "status"), claim);
}

util::StatusOr<api::ResourceClaim> RestResourceClaimClient::RemoveResourceClaimReservation(
    const std::string& ns, const std::string& name, const std::string& claim_uid, const std::string& pod_uid) {
  // reservedFor merges by uid, so the entry goes without a current copy of
  // the list; the uid guards against a claim recreated under the same name.
  nlohmann::json patch = {
      {"metadata", {{"uid", claim_uid}}},
      {"status", {{"reservedFor", nlohmann::json::array({{{"$patch", "delete"}, {"uid", pod_uid}}})}}}};
  return client::DecodeResult<api::ResourceClaim>(
      client_.Patch(client::ObjectPath<api::ResourceClaim>(ns, name, "status"), client::PatchType::kStrategicMerge,
                    patch));
}

util::StatusOr<api::ResourceClaim> RestResourceClaimClient::CreateResourceClaim(const api::ResourceClaim& claim) {
  return client::DecodeResult<api::ResourceClaim>(
      client_.Post(client::CollectionPath<api::ResourceClaim>(claim.metadata.namespace_), api::ToJson(claim)));
}

util::Status RestResourceClaimClient::DeleteResourceClaim(const std::string& ns, const std::string& name) {
  return client_.Delete(client::ObjectPath<api::ResourceClaim>(ns, name)).status();
}

util::Status RestResourceClaimClient::PatchPodExtendedResourceClaimStatus(
    const std::string& ns, const std::string& name, const api::PodExtendedResourceClaimStatus& status) {
  return client::PatchPodStatus(client_, ns, name, framework::ExtendedResourceClaimStatusPatch(status)).status();
}

util::Status RestApiWriterClient::PatchPodStatus(const std::string& ns, const std::string& name,
                                                 const nlohmann::json& patch) {
  return client::PatchPodStatus(client_, ns, name, patch).status();
}

util::Status RestApiWriterClient::DeletePod(const std::string& ns, const std::string& name, const std::string& uid) {
  client::DeleteOptions options;
  options.precondition_uid = uid;
  return client::DeletePod(client_, ns, name, options);
}

util::Status RestApiWriterClient::CreateEvent(const api::Event& event) {
  return client::CreateEvent(client_, event);
}

util::Status RestApiWriterClient::PatchEvent(const std::string& ns, const std::string& name,
                                             const nlohmann::json& patch) {
  return client::PatchEvent(client_, ns, name, patch).status();
}

}  // namespace ksched::scheduler
