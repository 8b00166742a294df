// What the allocator's tests share.
#pragma once

#include <optional>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/scheduler/plugins/dynamicresources/allocator.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::dra {

// An Allocate call's answer with its allocation built into
// AllocationResults (as Reserve builds the chosen node's).
inline util::StatusOr<std::optional<std::vector<api::AllocationResult>>> Built(
    const util::StatusOr<std::optional<NodeAllocation>>& found) {
  if (!found.ok()) return found.status();
  if (!found->has_value()) return std::optional<std::vector<api::AllocationResult>>();
  return std::optional<std::vector<api::AllocationResult>>((*found)->Build());
}

}  // namespace ksched::scheduler::dra
