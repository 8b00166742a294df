// CheckClaimAllocations: whether the pods' ResourceClaims ended as a
// correct DRA scheduling leaves them, read back from the cluster after a
// run (Cluster::CheckResourceClaims). A run whose pods are bound but whose
// claims are not allocated, or allocated twice the same device, fails
// instead of reporting a number.
//
// For every pod with spec.resourceClaims: it has a node; each claim it names
// (resourceClaimName, else the name status.resourceClaimStatuses records)
// exists, is allocated, is reserved for the pod (its uid in reservedFor), and
// each device of its allocation is published by a slice on the pod's node.
// Across every claim (the pods' and the others, e.g. allocated init claims)
// no device is allocated twice (adminAccess results, which take nothing,
// aside).
//
// Pure; O((claims + devices) log). Thread-compatible.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/api/types.h"
#include "pkg/util/status.h"

namespace ksched::bench {

struct ClaimCheck {
  int64_t pods = 0;     // pods with claims, all checked
  int64_t claims = 0;   // the pods' claims, all allocated on the pod's node
  int64_t devices = 0;  // devices allocated, all claims counted, each once
};

// Internal, naming the first pod, claim or device that breaks a
// rule above.
util::StatusOr<ClaimCheck> CheckClaimAllocations(const std::vector<std::shared_ptr<const api::Pod>>& pods,
                                                 const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
                                                 const std::vector<std::shared_ptr<const api::ResourceSlice>>& slices);

}  // namespace ksched::bench
