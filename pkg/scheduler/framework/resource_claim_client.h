// ResourceClaimClient: the ResourceClaim writes of the DynamicResources
// plugin (what kube's plugin does with its ClientSet): read a claim, PUT it
// (the delete-protection finalizer), PUT its status (allocation and
// reservedFor), and take one pod out of status.reservedFor with a strategic
// merge patch (which needs no current copy of the claim). For extended
// resources backed by DRA (DRAExtendedResource) also: create the pod's
// claim, delete it after a failed binding, and record it in the pod's
// status.extendedResourceClaimStatus. Those three have default bodies that
// fail, so that clients written before them keep compiling.
//
// Updates send metadata.resourceVersion as the precondition: a stale one
// answers kConflict. Each call returns the claim as stored.
//
// ResourceClaimClientSource is an optional capability of a
// framework::BindingClient (found with dynamic_cast), so the claim calls
// travel on the binding client's connection without every BindingClient
// having to offer them. A binding client without it leaves the plugin
// unable to write claims: PreBind and PostFilter then fail with an error
// when they have a write to make.
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "pkg/api/resource_types.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

class ResourceClaimClient {
 public:
  virtual ~ResourceClaimClient() = default;
  // kNotFound when the claim does not exist.
  virtual util::StatusOr<api::ResourceClaim> GetResourceClaim(const std::string& ns, const std::string& name) = 0;
  // PUT of metadata and spec (the API server ignores status here).
  virtual util::StatusOr<api::ResourceClaim> UpdateResourceClaim(const api::ResourceClaim& claim) = 0;
  // PUT of the status subresource.
  virtual util::StatusOr<api::ResourceClaim> UpdateResourceClaimStatus(const api::ResourceClaim& claim) = 0;
  // Strategic merge patch of the status subresource deleting the
  // reservedFor entry of `pod_uid`, guarded by the claim's uid.
  virtual util::StatusOr<api::ResourceClaim> RemoveResourceClaimReservation(const std::string& ns,
                                                                           const std::string& name,
                                                                           const std::string& claim_uid,
                                                                           const std::string& pod_uid) = 0;
  // POST (metadata.generateName names it); the claim as created.
  virtual util::StatusOr<api::ResourceClaim> CreateResourceClaim(const api::ResourceClaim& claim);
  // DELETE; kNotFound when it is gone already.
  virtual util::Status DeleteResourceClaim(const std::string& ns, const std::string& name);
  // Strategic merge patch of the pod's status setting
  // extendedResourceClaimStatus.
  virtual util::Status PatchPodExtendedResourceClaimStatus(const std::string& ns, const std::string& name,
                                                           const api::PodExtendedResourceClaimStatus& status);
};

// What RemoveResourceClaimReservation does to the stored claim, for clients
// that keep claims in memory (simulate, the in-process benchmark): kConflict
// when `stored` is not the claim `claim_uid` names (the patch's uid
// precondition, with the API server's message), else `next` without the
// reservedFor entry of `pod_uid`.
util::Status RemoveReservationInMemory(const api::ResourceClaim& stored, api::ResourceClaim& next,
                                       const std::string& claim_uid, const std::string& pod_uid);

// api::PodExtendedResourceClaimStatus as the status patch kube sends:
// {"status":{"extendedResourceClaimStatus":{...}}}.
nlohmann::json ExtendedResourceClaimStatusPatch(const api::PodExtendedResourceClaimStatus& status);

class ResourceClaimClientSource {
 public:
  virtual ~ResourceClaimClientSource() = default;
  // nullptr when this source carries no claim calls (a wrapper of a client
  // without them); valid as long as the source.
  virtual ResourceClaimClient* ResourceClaims() = 0;
};

}  // namespace ksched::scheduler::framework
