#include "pkg/config/types.h"

#include <set>

namespace ksched::config {

std::string_view ExtensionPointField(ExtensionPoint p) {
  switch (p) {
    case ExtensionPoint::kPreEnqueue:
      return "preEnqueue";
    case ExtensionPoint::kQueueSort:
      return "queueSort";
    case ExtensionPoint::kPreFilter:
      return "preFilter";
    case ExtensionPoint::kFilter:
      return "filter";
    case ExtensionPoint::kPostFilter:
      return "postFilter";
    case ExtensionPoint::kPreScore:
      return "preScore";
    case ExtensionPoint::kScore:
      return "score";
    case ExtensionPoint::kReserve:
      return "reserve";
    case ExtensionPoint::kPermit:
      return "permit";
    case ExtensionPoint::kPreBind:
      return "preBind";
    case ExtensionPoint::kBind:
      return "bind";
    case ExtensionPoint::kPostBind:
      return "postBind";
    case ExtensionPoint::kMultiPoint:
      return "multiPoint";
  }
  return "";
}

PluginSet& Plugins::Get(ExtensionPoint p) { return const_cast<PluginSet&>(static_cast<const Plugins*>(this)->Get(p)); }

const PluginSet& Plugins::Get(ExtensionPoint p) const {
  switch (p) {
    case ExtensionPoint::kPreEnqueue:
      return pre_enqueue;
    case ExtensionPoint::kQueueSort:
      return queue_sort;
    case ExtensionPoint::kPreFilter:
      return pre_filter;
    case ExtensionPoint::kFilter:
      return filter;
    case ExtensionPoint::kPostFilter:
      return post_filter;
    case ExtensionPoint::kPreScore:
      return pre_score;
    case ExtensionPoint::kScore:
      return score;
    case ExtensionPoint::kReserve:
      return reserve;
    case ExtensionPoint::kPermit:
      return permit;
    case ExtensionPoint::kPreBind:
      return pre_bind;
    case ExtensionPoint::kBind:
      return bind;
    case ExtensionPoint::kPostBind:
      return post_bind;
    case ExtensionPoint::kMultiPoint:
      return multi_point;
  }
  return multi_point;
}

const KubeSchedulerProfile* FindProfile(const KubeSchedulerConfiguration& c, std::string_view scheduler_name) {
  for (const KubeSchedulerProfile& p : c.profiles) {
    if (p.scheduler_name && *p.scheduler_name == scheduler_name) return &p;
  }
  return nullptr;
}

const PluginConfig* FindPluginConfig(const KubeSchedulerProfile& p, std::string_view plugin_name) {
  for (const PluginConfig& pc : p.plugin_config) {
    if (pc.name == plugin_name) return &pc;
  }
  return nullptr;
}

std::vector<std::string> EnabledPluginNames(const Plugins& plugins) {
  std::set<std::string> names;
  for (ExtensionPoint p : kAllExtensionPoints) {
    for (const Plugin& pl : plugins.Get(p).enabled) names.insert(pl.name);
  }
  return {names.begin(), names.end()};
}

}  // namespace ksched::config
