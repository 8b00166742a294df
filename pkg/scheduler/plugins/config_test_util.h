// For tests of pkg/config: the configuration API with the in-tree plugins
// (InTreePlugins(): their names, args codecs and default set) filled in, and
// the in-tree args types under their v1 names, so that a configuration test
// reads as the configuration does. pkg/config itself names no plugin; its
// tests link the in-tree registry through this header.
//
// Thread-safety: as the functions it forwards to.
#pragma once

#include <string>
#include <string_view>

#include "pkg/config/decode.h"
#include "pkg/config/defaults.h"
#include "pkg/config/load.h"
#include "pkg/scheduler/plugins/defaultpreemption/default_preemption_args.h"
#include "pkg/scheduler/plugins/dynamicresources/dynamic_resources_args.h"
#include "pkg/scheduler/plugins/interpodaffinity/inter_pod_affinity_args.h"
#include "pkg/scheduler/plugins/nodeaffinity/node_affinity_args.h"
#include "pkg/scheduler/plugins/noderesources/balanced_allocation_args.h"
#include "pkg/scheduler/plugins/noderesources/fit_args.h"
#include "pkg/scheduler/plugins/podtopologyspread/pod_topology_spread_args.h"
#include "pkg/scheduler/plugins/registry.h"
#include "pkg/scheduler/plugins/volumebinding/volume_binding_args.h"

namespace ksched::config {

using scheduler::plugins::InTreePlugins;
using scheduler::plugins::defaultpreemption::DefaultPreemptionArgs;
using scheduler::plugins::dynamicresources::DynamicResourcesArgs;
using scheduler::plugins::interpodaffinity::InterPodAffinityArgs;
using scheduler::plugins::nodeaffinity::NodeAffinityArgs;
using scheduler::plugins::noderesources::kLeastAllocated;
using scheduler::plugins::noderesources::kMostAllocated;
using scheduler::plugins::noderesources::kRequestedToCapacityRatio;
using scheduler::plugins::noderesources::NodeResourcesBalancedAllocationArgs;
using scheduler::plugins::noderesources::NodeResourcesFitArgs;
using scheduler::plugins::noderesources::ResourceSpec;
using scheduler::plugins::noderesources::ScoringStrategy;
using scheduler::plugins::podtopologyspread::kListDefaulting;
using scheduler::plugins::podtopologyspread::kSystemDefaulting;
using scheduler::plugins::podtopologyspread::PodTopologySpreadArgs;
using scheduler::plugins::podtopologyspread::SystemDefaultTopologySpreadConstraints;
using scheduler::plugins::volumebinding::VolumeBindingArgs;

inline Plugins DefaultPlugins() { return scheduler::plugins::DefaultPlugins(); }
inline DecodeResult DecodeConfig(std::string_view text, std::string_view file_name) {
  return DecodeConfig(text, file_name, InTreePlugins());
}
inline std::vector<DecodeResult> DecodeConfigDocuments(std::string_view text, std::string_view file_name) {
  return DecodeConfigDocuments(text, file_name, InTreePlugins());
}
inline void SetDefaults(KubeSchedulerConfiguration* c) { SetDefaults(c, InTreePlugins()); }
inline void SetProfileDefaults(KubeSchedulerProfile* p) { SetProfileDefaults(p, InTreePlugins()); }
inline KubeSchedulerConfiguration DefaultConfiguration() { return DefaultConfiguration(InTreePlugins()); }
inline PluginArgs DefaultPluginArgs(std::string_view plugin_name) {
  return DefaultPluginArgs(plugin_name, InTreePlugins());
}
inline util::StatusOr<KubeSchedulerConfiguration> LoadConfigFile(const std::string& path) {
  return LoadConfigFile(path, InTreePlugins());
}

}  // namespace ksched::config
