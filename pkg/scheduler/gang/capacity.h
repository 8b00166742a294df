// The capacity pre-check of a gang (scheduler-plugins' CheckClusterResource):
// whether the free capacity of all nodes together covers what minMember
// members need. A node's free capacity is its allocatable minus what its
// pods request, the gang's own members not counted (they are the gang's
// already); "pods" counts free pod slots. It is a sum over nodes, not a
// placement: passing it does not mean the members fit.
//
// Thread-safety: a pure function of its arguments.
#pragma once

#include <optional>
#include <string>

#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/gang/gang.h"

namespace ksched::scheduler::gang {

// nullopt when `policy.min_resources` plus minMember pod slots fit the free
// capacity of `nodes`; otherwise what is missing, e.g. "resource gap: cpu
// 2000m, pods 1".
std::optional<std::string> CapacityGap(const framework::NodeInfoList& nodes, const GangKey& key,
                                       const GangPolicy& policy, const GangSource& source);

}  // namespace ksched::scheduler::gang
