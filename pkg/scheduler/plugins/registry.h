// InTreeRegistry: the registration (name, factory, args codec) of every
// in-tree plugin, and kube-scheduler v1.34's default plugin set. This is the
// one place that names concrete plugins; the framework and pkg/config only
// see the Registry (and its Known()). Each plugin folder adds one entry in
// registry.cc.
//
// A duplicate name (a programming error) is reported as AlreadyExists.
//
// Thread-safety: returns a fresh Registry on each call.
#pragma once

#include "pkg/config/known_plugins.h"
#include "pkg/scheduler/framework/registry.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins {

util::StatusOr<framework::Registry> InTreeRegistry();

// kube-scheduler v1.34's default profile, as a multiPoint list:
// SchedulingGates, PrioritySort, NodeUnschedulable, NodeName,
// TaintToleration(3), NodeAffinity(2), NodePorts, NodeResourcesFit(1),
// VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone,
// PodTopologySpread(2), InterPodAffinity(2), DynamicResources, DefaultPreemption,
// NodeResourcesBalancedAllocation(1), ImageLocality(1), DefaultBinder.
config::Plugins DefaultPlugins();

// InTreeRegistry().Known(), built once: what loading a configuration needs
// when only the in-tree plugins exist (tests, tools). Immutable static.
const config::KnownPlugins& InTreePlugins();

}  // namespace ksched::scheduler::plugins
