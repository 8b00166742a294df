// coordination.k8s.io/v1 Lease calls for leader election.
//
// Update is a PUT carrying metadata.resourceVersion: the server applies it
// only if the Lease has not changed since it was read (else kConflict), which
// is what makes two candidates unable to both win. PUT is idempotent and
// retried on 5xx; a retry after a lost response may answer kConflict because
// the first attempt already bumped the version, and leader election then
// simply re-reads the Lease.
//
// Thread-safety: as RestClient.
#pragma once

#include <string>

#include "pkg/api/types.h"
#include "pkg/client/rest_client.h"
#include "pkg/util/status.h"

namespace ksched::client {

// GET; kNotFound when the Lease does not exist yet.
util::StatusOr<api::Lease> GetLease(RestClient& client, const std::string& ns, const std::string& name);

// POST; kAlreadyExists when another candidate created it first.
util::StatusOr<api::Lease> CreateLease(RestClient& client, const api::Lease& lease);

// PUT with the lease's resourceVersion; kConflict when it is stale.
util::StatusOr<api::Lease> UpdateLease(RestClient& client, const api::Lease& lease);

}  // namespace ksched::client
