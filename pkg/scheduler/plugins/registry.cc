#include "pkg/scheduler/plugins/registry.h"

#include <memory>
#include <string>
#include <utility>

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

}  // namespace

util::StatusOr<framework::Registry> InTreeRegistry() {
  // {name, factory}: one entry per in-tree plugin.
  std::vector<std::pair<std::string_view, framework::PluginFactory>> entries = {
      {nodevolumelimits::kName,
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(nodevolumelimits::New(h));
       }},
      {volumezone::kName,
       [](const config::PluginArgs&, Handle& h) -> PluginPtr { return std::shared_ptr<Plugin>(volumezone::New(h)); }},
      {volumebinding::kName,
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = volumebinding::New(args, h);
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       }},
      {volumerestrictions::kName,
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(volumerestrictions::New(h));
       }},
      {coscheduling::kName,
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         auto p = coscheduling::New(coscheduling::DefaultArgs(), h);
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       }},
      {queuesort::kName,
       [](const config::PluginArgs&, Handle&) -> PluginPtr { return std::shared_ptr<Plugin>(queuesort::New()); }},
      {schedulinggates::kName,
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(schedulinggates::New(h.Features()));
       }},
      {interpodaffinity::kName,
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = interpodaffinity::New(args, h);
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       }},
      {podtopologyspread::kName,
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = podtopologyspread::New(args, h);
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       }},
      {nodename::kName,
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(nodename::New(h.Features()));
       }},
      {nodeunschedulable::kName,
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(nodeunschedulable::New(h.Features()));
       }},
      {nodeports::kName,
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(nodeports::New(h.Features()));
       }},
      {noderesources::kFitName,
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = noderesources::NewFit(args, h.Features());
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       }},
      {noderesources::kBalancedAllocationName,
       [](const config::PluginArgs& args, Handle&) -> PluginPtr {
         auto p = noderesources::NewBalancedAllocation(args);
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       }},
      {tainttoleration::kName,
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(tainttoleration::New(h.Features()));
       }},
      {nodeaffinity::kName,
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = nodeaffinity::New(args, h.Features());
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       }},
      {imagelocality::kName,
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(imagelocality::New(h));
       }},
      {defaultpreemption::kName,
       [](const config::PluginArgs& args, Handle& h) -> PluginPtr {
         auto p = defaultpreemption::New(args, h);
         if (!p.ok()) return p.status();
         return std::shared_ptr<Plugin>(std::move(p).value());
       }},
      {defaultbinder::kName,
       [](const config::PluginArgs&, Handle& h) -> PluginPtr {
         return std::shared_ptr<Plugin>(defaultbinder::New(h));
       }},
  };
  framework::Registry r;
  for (auto& [name, factory] : entries) {
    util::Status s = r.Register(std::string(name), std::move(factory));
    if (!s.ok()) return s;
  }
  return r;
}

}  // namespace ksched::scheduler::plugins
