#include "pkg/client/lease_calls.h"

#include "pkg/client/resource_path.h"
#include "pkg/client/typed.h"

namespace ksched::client {

util::StatusOr<api::Lease> GetLease(RestClient& client, const std::string& ns, const std::string& name) {
  if (ns.empty() || name.empty()) return util::InvalidArgument("lease get needs a namespace and a name");
  return GetObject<api::Lease>(client, ns, name);
}

util::StatusOr<api::Lease> CreateLease(RestClient& client, const api::Lease& lease) {
  if (lease.metadata.namespace_.empty() || lease.metadata.name.empty()) {
    return util::InvalidArgument("lease create needs a namespace and a name");
  }
  return DecodeResult<api::Lease>(
      client.Post(CollectionPath<api::Lease>(lease.metadata.namespace_), api::ToJson(lease)));
}

util::StatusOr<api::Lease> UpdateLease(RestClient& client, const api::Lease& lease) {
  if (lease.metadata.namespace_.empty() || lease.metadata.name.empty()) {
    return util::InvalidArgument("lease update needs a namespace and a name");
  }
  if (lease.metadata.resource_version.empty()) {
    // Without it the server would overwrite unconditionally and two leaders
    // could both believe they hold the lease.
    return util::InvalidArgument("lease update needs metadata.resourceVersion");
  }
  return UpdateObject(client, lease);
}

}  // namespace ksched::client
