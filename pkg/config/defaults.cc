#include "pkg/config/defaults.h"

#include <map>
#include <set>

namespace ksched::config {
namespace {

using std::chrono::seconds;

std::vector<ResourceSpec> DefaultResources() { return {{"cpu", 1}, {"memory", 1}}; }

void DefaultWeights(std::vector<ResourceSpec>* resources) {
  for (ResourceSpec& r : *resources) {
    if (r.weight == 0) r.weight = 1;
  }
}

struct ArgsDefaulter {
  void operator()(std::monostate&) const {}
  void operator()(UntypedArgs&) const {}
  void operator()(DefaultPreemptionArgs& a) const {
    if (!a.min_candidate_nodes_percentage) a.min_candidate_nodes_percentage = 10;
    if (!a.min_candidate_nodes_absolute) a.min_candidate_nodes_absolute = 100;
  }
  void operator()(InterPodAffinityArgs& a) const {
    if (!a.hard_pod_affinity_weight) a.hard_pod_affinity_weight = 1;
  }
  void operator()(NodeResourcesFitArgs& a) const {
    if (!a.scoring_strategy) a.scoring_strategy = ScoringStrategy{kLeastAllocated, DefaultResources(), std::nullopt};
    if (a.scoring_strategy->resources.empty()) a.scoring_strategy->resources = DefaultResources();
    DefaultWeights(&a.scoring_strategy->resources);
  }
  void operator()(NodeResourcesBalancedAllocationArgs& a) const {
    if (a.resources.empty()) {
      a.resources = DefaultResources();
      return;
    }
    DefaultWeights(&a.resources);
  }
  void operator()(PodTopologySpreadArgs& a) const {
    if (a.defaulting_type.empty()) a.defaulting_type = kSystemDefaulting;
  }
  void operator()(NodeAffinityArgs&) const {}
  void operator()(VolumeBindingArgs& a) const {
    // No default shape: capacity scoring (StorageCapacityScoring) is off.
    if (!a.bind_timeout_seconds) a.bind_timeout_seconds = 600;
  }
};

Plugin Named(const char* name, std::optional<int32_t> weight = std::nullopt) {
  Plugin p;
  p.name = name;
  p.weight = weight;
  return p;
}

}  // namespace

PluginArgs DefaultPluginArgs(std::string_view plugin_name) {
  PluginArgs args;
  if (plugin_name == "DefaultPreemption") {
    args = DefaultPreemptionArgs{};
  } else if (plugin_name == "InterPodAffinity") {
    args = InterPodAffinityArgs{};
  } else if (plugin_name == "NodeResourcesFit") {
    args = NodeResourcesFitArgs{};
  } else if (plugin_name == "NodeResourcesBalancedAllocation") {
    args = NodeResourcesBalancedAllocationArgs{};
  } else if (plugin_name == "PodTopologySpread") {
    args = PodTopologySpreadArgs{};
  } else if (plugin_name == "NodeAffinity") {
    args = NodeAffinityArgs{};
  } else if (plugin_name == "VolumeBinding") {
    args = VolumeBindingArgs{};
  }
  SetArgsDefaults(&args);
  return args;
}

void SetArgsDefaults(PluginArgs* args) { std::visit(ArgsDefaulter{}, *args); }

Plugins DefaultPlugins() {
  Plugins p;
  p.multi_point.enabled = {
      Named("SchedulingGates"),
      Named("PrioritySort"),
      Named("NodeUnschedulable"),
      Named("NodeName"),
      Named("TaintToleration", 3),
      Named("NodeAffinity", 2),
      Named("NodePorts"),
      Named("NodeResourcesFit", 1),
      Named("VolumeRestrictions"),
      Named("NodeVolumeLimits"),
      Named("VolumeBinding"),
      Named("VolumeZone"),
      Named("PodTopologySpread", 2),
      Named("InterPodAffinity", 2),
      Named("DefaultPreemption"),
      Named("NodeResourcesBalancedAllocation", 1),
      Named("ImageLocality", 1),
      Named("DefaultBinder"),
  };
  return p;
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
  for (ExtensionPoint p : kAllExtensionPoints) out.Get(p) = MergePluginSet(defaults.Get(p), custom.Get(p));
  return out;
}

void SetProfileDefaults(KubeSchedulerProfile* p) {
  p->plugins = MergePlugins(DefaultPlugins(), p->plugins);
  std::set<std::string> configured;
  for (PluginConfig& pc : p->plugin_config) {
    configured.insert(pc.name);
    SetArgsDefaults(&pc.args);
  }
  for (const std::string& name : EnabledPluginNames(p->plugins)) {
    if (configured.count(name) > 0 || !PluginHasArgsType(name)) continue;
    p->plugin_config.push_back(PluginConfig{name, DefaultPluginArgs(name)});
  }
}

void SetDefaults(KubeSchedulerConfiguration* c) {
  if (!c->parallelism) c->parallelism = 16;
  if (c->profiles.empty()) c->profiles.emplace_back();
  // Only a lone profile gets the default name; validation makes every other
  // profile name itself.
  if (c->profiles.size() == 1 && !c->profiles[0].scheduler_name) c->profiles[0].scheduler_name = kDefaultSchedulerName;
  for (KubeSchedulerProfile& p : c->profiles) SetProfileDefaults(&p);
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

KubeSchedulerConfiguration DefaultConfiguration() {
  KubeSchedulerConfiguration c;
  SetDefaults(&c);
  return c;
}

}  // namespace ksched::config
