#include "pkg/config/defaults.h"

#include <map>
#include <set>

namespace ksched::config {
namespace {

using std::chrono::seconds;

}  // namespace

PluginArgs DefaultPluginArgs(std::string_view plugin_name, const KnownPlugins& known) {
  const ArgsCodec* codec = known.Codec(plugin_name);
  return codec == nullptr ? PluginArgs() : codec->Default();
}

void SetArgsDefaults(PluginArgs* args) {
  if (const ArgsCodec* codec = args->codec()) codec->SetDefaults(args);
}

PluginSet MergePluginSet(const PluginSet& defaults, const PluginSet& custom) {
  PluginSet out;
  std::set<std::string> disabled;
  for (const Plugin& d : custom.disabled) {
    Plugin p;
    p.name = d.name;
    p.origin = d.origin;
    out.disabled.push_back(std::move(p));
    disabled.insert(d.name);
  }
  for (const Plugin& d : defaults.disabled) {
    out.disabled.push_back(Plugin{d.name, std::nullopt, d.origin});
    disabled.insert(d.name);
  }
  // When the user enables a name twice, the later entry replaces the default
  // and the earlier one is appended (and then rejected as a duplicate).
  std::map<std::string, size_t> custom_index;
  for (size_t i = 0; i < custom.enabled.size(); ++i) custom_index[custom.enabled[i].name] = i;
  std::set<size_t> replaced;
  if (disabled.count("*") == 0) {
    for (const Plugin& d : defaults.enabled) {
      if (disabled.count(d.name) > 0) continue;
      auto it = custom_index.find(d.name);
      if (it != custom_index.end()) {
        out.enabled.push_back(custom.enabled[it->second]);
        replaced.insert(it->second);
      } else {
        out.enabled.push_back(d);
      }
    }
  }
  for (size_t i = 0; i < custom.enabled.size(); ++i) {
    if (replaced.count(i) == 0) out.enabled.push_back(custom.enabled[i]);
  }
  return out;
}

Plugins MergePlugins(const Plugins& defaults, const Plugins& custom) {
  Plugins out;
  for (const PluginsFieldDef& f : kPluginsFields) out.*f.set = MergePluginSet(defaults.*f.set, custom.*f.set);
  return out;
}

void SetProfileDefaults(KubeSchedulerProfile* p, const KnownPlugins& known) {
  p->plugins = MergePlugins(known.default_plugins(), p->plugins);
  std::set<std::string> configured;
  for (PluginConfig& pc : p->plugin_config) {
    configured.insert(pc.name);
    SetArgsDefaults(&pc.args);
  }
  for (const std::string& name : EnabledPluginNames(p->plugins)) {
    if (configured.count(name) > 0 || known.Codec(name) == nullptr) continue;
    p->plugin_config.push_back(PluginConfig{name, DefaultPluginArgs(name, known)});
  }
}

void SetDefaults(KubeSchedulerConfiguration* c, const KnownPlugins& known) {
  if (!c->parallelism) c->parallelism = 16;
  if (c->profiles.empty()) c->profiles.emplace_back();
  // Only a lone profile gets the default name; validation makes every other
  // profile name itself.
  if (c->profiles.size() == 1 && !c->profiles[0].scheduler_name) c->profiles[0].scheduler_name = kDefaultSchedulerName;
  for (KubeSchedulerProfile& p : c->profiles) SetProfileDefaults(&p, known);
  if (!c->percentage_of_nodes_to_score) c->percentage_of_nodes_to_score = 0;

  LeaderElectionConfiguration& le = c->leader_election;
  if (le.resource_lock.empty()) le.resource_lock = "leases";
  if (le.resource_namespace.empty()) le.resource_namespace = kDefaultLeaseNamespace;
  if (le.resource_name.empty()) le.resource_name = kDefaultLeaseName;
  if (le.lease_duration == util::Duration(0)) le.lease_duration = seconds(15);
  if (le.renew_deadline == util::Duration(0)) le.renew_deadline = seconds(10);
  if (le.retry_period == util::Duration(0)) le.retry_period = seconds(2);
  if (!le.leader_elect) le.leader_elect = true;

  ClientConnectionConfiguration& cc = c->client_connection;
  if (cc.content_type.empty()) cc.content_type = "application/vnd.kubernetes.protobuf";
  if (cc.qps == 0) cc.qps = 50;
  if (cc.burst == 0) cc.burst = 100;

  if (!c->pod_initial_backoff_seconds) c->pod_initial_backoff_seconds = 1;
  if (!c->pod_max_backoff_seconds) c->pod_max_backoff_seconds = 10;
  if (!c->enable_profiling) c->enable_profiling = true;
  // kube leaves it unset (false) when profiling is off.
  if (!c->enable_contention_profiling) c->enable_contention_profiling = *c->enable_profiling;
}

KubeSchedulerConfiguration DefaultConfiguration(const KnownPlugins& known) {
  KubeSchedulerConfiguration c;
  SetDefaults(&c, known);
  return c;
}

}  // namespace ksched::config
