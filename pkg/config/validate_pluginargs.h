// Validation of defaulted plugin args, as kube-scheduler's
// validation_pluginargs.go (field paths below `path`, kube's messages).
//
// Unlike kube-scheduler, NodeResourcesFit args are validated here too (kube's
// validator table misspells the key, so it only rejects bad
// NodeResourcesFit args later, when the plugin is built; the outcome, a
// failed start, is the same, but ksched reports it with the other errors).
// VolumeBinding's `shape` is always rejected: ksched does not implement
// capacity scoring (StorageCapacityScoring).
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "pkg/config/errors.h"
#include "pkg/config/types_pluginargs.h"

namespace ksched::config {

// Errors of `args` (monostate and UntypedArgs have none here).
ErrorList ValidatePluginArgs(const std::string& path, const PluginArgs& args);

ErrorList ValidateDefaultPreemptionArgs(const std::string& path, const DefaultPreemptionArgs& a);
ErrorList ValidateInterPodAffinityArgs(const std::string& path, const InterPodAffinityArgs& a);
ErrorList ValidateNodeResourcesFitArgs(const std::string& path, const NodeResourcesFitArgs& a);
ErrorList ValidateNodeResourcesBalancedAllocationArgs(const std::string& path,
                                                      const NodeResourcesBalancedAllocationArgs& a);
ErrorList ValidatePodTopologySpreadArgs(const std::string& path, const PodTopologySpreadArgs& a);
ErrorList ValidateNodeAffinityArgs(const std::string& path, const NodeAffinityArgs& a);
ErrorList ValidateVolumeBindingArgs(const std::string& path, const VolumeBindingArgs& a);

}  // namespace ksched::config
