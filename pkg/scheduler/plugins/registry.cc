#include "pkg/scheduler/plugins/registry.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "pkg/config/args_as.h"
#include "pkg/scheduler/plugins/coscheduling/coscheduling.h"
#include "pkg/scheduler/plugins/queuesort/priority_sort.h"
#include "pkg/scheduler/plugins/schedulinggates/scheduling_gates.h"
#include "pkg/scheduler/plugins/nodevolumelimits/csi.h"
#include "pkg/scheduler/plugins/volumezone/volume_zone.h"
#include "pkg/scheduler/plugins/volumebinding/volume_binding.h"
#include "pkg/scheduler/plugins/interpodaffinity/inter_pod_affinity.h"
#include "pkg/scheduler/plugins/podtopologyspread/pod_topology_spread.h"
#include "pkg/scheduler/plugins/volumerestrictions/volume_restrictions.h"
#include "pkg/scheduler/plugins/defaultbinder/default_binder.h"
#include "pkg/scheduler/plugins/defaultpreemption/default_preemption.h"
#include "pkg/scheduler/plugins/nodedeclaredfeatures/node_declared_features.h"
#include "pkg/scheduler/plugins/dynamicresources/dra_manager.h"
#include "pkg/scheduler/plugins/dynamicresources/dynamic_resources.h"
#include "pkg/scheduler/plugins/imagelocality/image_locality.h"
#include "pkg/scheduler/plugins/nodeaffinity/node_affinity.h"
#include "pkg/scheduler/plugins/nodename/node_name.h"
#include "pkg/scheduler/plugins/nodeports/node_ports.h"
#include "pkg/scheduler/plugins/noderesources/balanced_allocation.h"
#include "pkg/scheduler/plugins/noderesources/fit.h"
#include "pkg/scheduler/plugins/nodeunschedulable/node_unschedulable.h"
#include "pkg/scheduler/plugins/tainttoleration/taint_toleration.h"

namespace ksched::scheduler::plugins {

namespace {

using framework::Handle;
using framework::Plugin;
using PluginPtr = util::StatusOr<std::shared_ptr<Plugin>>;

// The DRA state NodeResourcesFit and BalancedAllocation score extended
// resources with, when DRAExtendedResource is on.
std::shared_ptr<const framework::SharedDRAManager> DraManagerFor(const Handle& h) {
  if (!h.Features().dra_extended_resource) return nullptr;
  return dra::NewSharedDRAManager(h.Listers(), h.Features());
}

}  // namespace

config::Plugins DefaultPlugins(const framework::FeatureGates& features) {
  auto named = [](std::string_view name, std::optional<int32_t> weight = std::nullopt) {
    config::Plugin p;
    p.name = std::string(name);
    p.weight = weight;
    return p;
  };
  config::Plugins p;
  p.multi_point.enabled = {
      named(schedulinggates::kName),
      named(queuesort::kName),
      named(features.node_name_prefilter_order ? nodename::kName : nodeunschedulable::kName),
      named(features.node_name_prefilter_order ? nodeunschedulable::kName : nodename::kName),
      named(tainttoleration::kName, 3),
      named(nodeaffinity::kName, 2),
      named(nodeports::kName),
      named(noderesources::kFitName, 1),
      named(volumerestrictions::kName),
      named(nodevolumelimits::kName),
      named(volumebinding::kName),
      named(volumezone::kName),
      named(podtopologyspread::kName, 2),
      named(interpodaffinity::kName, 2),
      // Before DefaultPreemption: freeing an idle claim beats evicting pods.
      named(dynamicresources::kName,
            features.dynamic_resources_score ? std::optional<int32_t>(2) : std::nullopt),
      named(defaultpreemption::kName),
      named(noderesources::kBalancedAllocationName, 1),
      named(imagelocality::kName, 1),
      named(defaultbinder::kName),
  };
  // Appended, as kube appends it when its gate is on.
  if (features.node_declared_features) p.multi_point.enabled.push_back(named(nodedeclaredfeatures::kName));
  return p;
}

const config::KnownPlugins& InTreePlugins() {
  static const config::KnownPlugins* const kKnown = [] {
    util::StatusOr<framework::Registry> r = InTreeRegistry();
    // The in-tree list has no duplicate names (registry_test checks it).
    return new config::KnownPlugins(r.ok() ? r->Known() : config::KnownPlugins());
  }();
  return *kKnown;
}

util::StatusOr<framework::Registry> InTreeRegistry(const framework::FeatureGates& features) {
  // {name, factory}: one entry per in-tree plugin.
  std::vector<framework::PluginRegistration> entries = {
      {std::string(nodevolumelimits::kName),
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(nodevolumelimits::New(h));
       },
       nullptr},
      {std::string(volumezone::kName),
       [](const config::PluginArgs&, Handle& h) -> PluginPtr { return std::shared_ptr<Plugin>(volumezone::New(h)); },
       nullptr},
      {std::string(volumebinding::kName),
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = volumebinding::New(args, h);
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       },
       &volumebinding::VolumeBindingArgs::Codec()},
      {std::string(volumerestrictions::kName),
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(volumerestrictions::New(h));
       },
       nullptr},
      {std::string(coscheduling::kName),
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto a = config::ArgsAs<coscheduling::CoschedulingArgs>(args);
         if (!a.ok()) return a.status();
         auto p = coscheduling::New(*a, h);
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       },
       &coscheduling::CoschedulingArgs::Codec()},
      {std::string(queuesort::kName),
       [](const config::PluginArgs&, Handle&) -> PluginPtr { return std::shared_ptr<Plugin>(queuesort::New()); },
       nullptr},
      {std::string(schedulinggates::kName),
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(schedulinggates::New(h.Features()));
       },
       nullptr},
      {std::string(interpodaffinity::kName),
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = interpodaffinity::New(args, h);
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       },
       &interpodaffinity::InterPodAffinityArgs::Codec()},
      {std::string(podtopologyspread::kName),
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = podtopologyspread::New(args, h);
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       },
       &podtopologyspread::PodTopologySpreadArgs::Codec()},
      {std::string(nodename::kName),
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(nodename::New(h.Features()));
       },
       nullptr},
      {std::string(nodeunschedulable::kName),
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(nodeunschedulable::New(h.Features()));
       },
       nullptr},
      {std::string(nodeports::kName),
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(nodeports::New(h.Features()));
       },
       nullptr},
      {std::string(noderesources::kFitName),
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = noderesources::NewFit(args, h.Features(), DraManagerFor(h));
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       },
       &noderesources::NodeResourcesFitArgs::Codec()},
      {std::string(noderesources::kBalancedAllocationName),
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = noderesources::NewBalancedAllocation(args, h.Features(), DraManagerFor(h));
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       },
       &noderesources::NodeResourcesBalancedAllocationArgs::Codec()},
      {std::string(tainttoleration::kName),
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(tainttoleration::New(h.Features()));
       },
       nullptr},
      {std::string(nodeaffinity::kName),
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = nodeaffinity::New(args, h.Features());
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       },
       &nodeaffinity::NodeAffinityArgs::Codec()},
      {std::string(imagelocality::kName),
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(imagelocality::New(h));
       },
       nullptr},
      {std::string(defaultpreemption::kName),
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = defaultpreemption::New(args, h);
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       },
       &defaultpreemption::DefaultPreemptionArgs::Codec()},
      {std::string(dynamicresources::kName),
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = dynamicresources::New(args, h);
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       },
       &dynamicresources::DynamicResourcesArgs::Codec()},
      {std::string(nodedeclaredfeatures::kName),
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(nodedeclaredfeatures::New(h.Features()));
       },
       nullptr},
      {std::string(defaultbinder::kName),
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(defaultbinder::New(h));
       },
       nullptr},
  };
  framework::Registry r;
  for (framework::PluginRegistration& e : entries) {
    util::Status s = r.Register(std::move(e));
    if (!s.ok()) return s;
  }
  r.SetDefaultPlugins(DefaultPlugins(features));
  return r;
}

}  // namespace ksched::scheduler::plugins
