#include "pkg/scheduler/framework/resource_claim_client.h"

#include "pkg/api/codec.h"

namespace ksched::scheduler::framework {
namespace {

util::Status NotOffered(const char* what) {
  return util::Status(util::StatusCode::kInternal, std::string("this client cannot ") + what);
}

}  // namespace

util::StatusOr<api::ResourceClaim> ResourceClaimClient::CreateResourceClaim(const api::ResourceClaim&) {
  return NotOffered("create ResourceClaims");
}

util::Status ResourceClaimClient::DeleteResourceClaim(const std::string&, const std::string&) {
  return NotOffered("delete ResourceClaims");
}

util::Status ResourceClaimClient::PatchPodExtendedResourceClaimStatus(const std::string&, const std::string&,
                                                                      const api::PodExtendedResourceClaimStatus&) {
  return NotOffered("patch a pod's extendedResourceClaimStatus");
}

nlohmann::json ExtendedResourceClaimStatusPatch(const api::PodExtendedResourceClaimStatus& status) {
  // Encoded through the Pod codec: the status type has no top-level codec.
  api::Pod pod;
  pod.status.extended_resource_claim_status = status;
  return {{"status", {{"extendedResourceClaimStatus", api::ToJson(pod)["status"]["extendedResourceClaimStatus"]}}}};
}

util::Status RemoveReservationInMemory(const api::ResourceClaim& stored, api::ResourceClaim& next,
                                       const std::string& claim_uid, const std::string& pod_uid) {
  if (stored.metadata.uid != claim_uid) {
    return util::Status(util::StatusCode::kConflict, "Precondition failed: UID in precondition: " + claim_uid +
                                                         ", UID in object meta: " + stored.metadata.uid);
  }
  std::erase_if(next.status.reserved_for,
                [&](const api::ResourceClaimConsumerReference& r) { return r.uid == pod_uid; });
  return util::Status();
}

}  // namespace ksched::scheduler::framework
