// The plugin names a configuration may enable.
//
// Validation rejects any enabled plugin (and any pluginConfig entry) whose
// name is not known. The daemon passes the names registered in the plugin
// registry; InTreePlugins() is the set kube-scheduler v1.34 builds in minus
// DynamicResources, which is what ksched implements.
//
// Thread-safety: InTreePlugins() returns an immutable static.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::config {

using KnownPlugins = std::set<std::string, std::less<>>;

// PrioritySort, SchedulingGates, NodeUnschedulable, NodeName,
// TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit,
// VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone,
// PodTopologySpread, InterPodAffinity, DefaultPreemption,
// NodeResourcesBalancedAllocation, ImageLocality, DefaultBinder.
const KnownPlugins& InTreePlugins();

// Plugins removed from kubescheduler.config.k8s.io/v1 (the in-tree volume
// limits replaced by NodeVolumeLimits): AzureDiskLimits, CinderLimits,
// EBSLimits, GCEPDLimits. Naming one is reported as "was invalid in version".
bool IsRemovedPlugin(std::string_view name);

// The known name closest to `name` (same name ignoring case, or at most two
// edits away), for "did you mean" hints; empty when nothing is close.
std::string ClosestName(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace ksched::config
