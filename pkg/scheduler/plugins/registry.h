// InTreeRegistry: the registration (name, factory, args codec) of every
// in-tree plugin, and the default plugin set of the kube-scheduler minor
// `features` was resolved for. This is the
// one place that names concrete plugins; the framework and pkg/config only
// see the Registry (and its Known()). Each plugin folder adds one entry in
// registry.cc.
//
// A duplicate name (a programming error) is reported as AlreadyExists.
//
// Thread-safety: returns a fresh Registry on each call.
#pragma once

#include "pkg/config/known_plugins.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/registry.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins {

util::StatusOr<framework::Registry> InTreeRegistry(const framework::FeatureGates& features = {});

// kube-scheduler's default profile, as a multiPoint list (v1.34's):
// SchedulingGates, PrioritySort, NodeUnschedulable, NodeName,
// TaintToleration(3), NodeAffinity(2), NodePorts, NodeResourcesFit(1),
// VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone,
// PodTopologySpread(2), InterPodAffinity(2), DynamicResources, DefaultPreemption,
// NodeResourcesBalancedAllocation(1), ImageLocality(1), DefaultBinder.
// From v1.37 (node_name_prefilter_order) NodeName comes before
// NodeUnschedulable; with the NodeDeclaredFeatures gate (on from v1.36)
// NodeDeclaredFeatures is appended.
config::Plugins DefaultPlugins(const framework::FeatureGates& features = {});

// InTreeRegistry().Known(), built once: what loading a configuration needs
// when only the in-tree plugins exist (tests, tools). Immutable static.
const config::KnownPlugins& InTreePlugins();

}  // namespace ksched::scheduler::plugins
