#include "pkg/config/types.h"

#include <set>

namespace ksched::config {

namespace {

const PluginsFieldDef& FieldOf(ExtensionPoint p) {
  for (const PluginsFieldDef& f : kPluginsFields) {
    if (f.point == p) return f;
  }
  return kPluginsFields[12];  // unreachable: every ExtensionPoint has a field
}

}  // namespace

std::string_view ExtensionPointField(ExtensionPoint p) { return FieldOf(p).name; }

PluginSet& Plugins::Get(ExtensionPoint p) { return this->*FieldOf(p).set; }

const PluginSet& Plugins::Get(ExtensionPoint p) const { return this->*FieldOf(p).set; }

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
