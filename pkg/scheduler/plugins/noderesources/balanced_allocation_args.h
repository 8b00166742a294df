// NodeResourcesBalancedAllocationArgs (kubescheduler.config.k8s.io/v1) and
// its codec: resources default to cpu=1, memory=1 (weight 0 becomes 1);
// names must be unique and every weight 1, as kube validates them.
//
// Thread-safety: a plain value; the codec is immutable.
#pragma once

#include <string>
#include <vector>

#include "pkg/config/plugin_args.h"
#include "pkg/scheduler/plugins/noderesources/resource_spec_args.h"

namespace ksched::scheduler::plugins::noderesources {

struct NodeResourcesBalancedAllocationArgs {
  static const config::ArgsCodec& Codec();

  std::vector<ResourceSpec> resources;  // default cpu=1, memory=1
};

config::ErrorList ValidateNodeResourcesBalancedAllocationArgs(const std::string& path,
                                                              const NodeResourcesBalancedAllocationArgs& a);

}  // namespace ksched::scheduler::plugins::noderesources
