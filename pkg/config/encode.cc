#include "pkg/config/encode.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>

#include "pkg/config/duration.h"
#include "pkg/config/yaml_reader.h"

namespace ksched::config {
namespace {

using Json = nlohmann::ordered_json;

// float32 as its shortest decimal form (0.1f -> 0.1, not 0.10000000149...),
// integral values as integers, as Go prints them.
Json FloatJson(float f) {
  if (std::isfinite(f) && f == std::trunc(f) && std::fabs(f) < 9e15f) return static_cast<int64_t>(f);
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), f);
  return std::strtod(std::string(buf, res.ptr).c_str(), nullptr);
}

Json StringList(const std::vector<std::string>& v) {
  Json out = Json::array();
  for (const std::string& s : v) out.push_back(s);
  return out;
}

Json LabelSelectorJson(const api::LabelSelector& s) {
  Json out = Json::object();
  if (!s.match_labels.empty()) {
    Json labels = Json::object();
    for (const auto& [k, v] : s.match_labels) labels[k] = v;
    out["matchLabels"] = labels;
  }
  if (!s.match_expressions.empty()) {
    Json exprs = Json::array();
    for (const api::LabelSelectorRequirement& r : s.match_expressions) {
      Json e = {{"key", r.key}, {"operator", r.operator_}};
      if (!r.values.empty()) e["values"] = StringList(r.values);
      exprs.push_back(e);
    }
    out["matchExpressions"] = exprs;
  }
  return out;
}

Json NodeSelectorRequirementsJson(const std::vector<api::NodeSelectorRequirement>& reqs) {
  Json out = Json::array();
  for (const api::NodeSelectorRequirement& r : reqs) {
    Json e = {{"key", r.key}, {"operator", r.operator_}};
    if (!r.values.empty()) e["values"] = StringList(r.values);
    out.push_back(e);
  }
  return out;
}

Json NodeSelectorTermJson(const api::NodeSelectorTerm& t) {
  Json out = Json::object();
  if (!t.match_expressions.empty()) out["matchExpressions"] = NodeSelectorRequirementsJson(t.match_expressions);
  if (!t.match_fields.empty()) out["matchFields"] = NodeSelectorRequirementsJson(t.match_fields);
  return out;
}

Json NodeAffinityJson(const api::NodeAffinity& a) {
  Json out = Json::object();
  if (a.required_during_scheduling_ignored_during_execution) {
    Json terms = Json::array();
    for (const api::NodeSelectorTerm& t : a.required_during_scheduling_ignored_during_execution->node_selector_terms) {
      terms.push_back(NodeSelectorTermJson(t));
    }
    out["requiredDuringSchedulingIgnoredDuringExecution"] = Json{{"nodeSelectorTerms", terms}};
  }
  if (!a.preferred_during_scheduling_ignored_during_execution.empty()) {
    Json pref = Json::array();
    for (const api::PreferredSchedulingTerm& t : a.preferred_during_scheduling_ignored_during_execution) {
      pref.push_back(Json{{"weight", t.weight}, {"preference", NodeSelectorTermJson(t.preference)}});
    }
    out["preferredDuringSchedulingIgnoredDuringExecution"] = pref;
  }
  return out;
}

Json TopologySpreadConstraintJson(const api::TopologySpreadConstraint& c) {
  Json out = {{"maxSkew", c.max_skew}, {"topologyKey", c.topology_key}, {"whenUnsatisfiable", c.when_unsatisfiable}};
  if (c.label_selector) out["labelSelector"] = LabelSelectorJson(*c.label_selector);
  if (c.min_domains) out["minDomains"] = *c.min_domains;
  if (c.node_affinity_policy) out["nodeAffinityPolicy"] = *c.node_affinity_policy;
  if (c.node_taints_policy) out["nodeTaintsPolicy"] = *c.node_taints_policy;
  if (!c.match_label_keys.empty()) out["matchLabelKeys"] = StringList(c.match_label_keys);
  return out;
}

Json ResourcesJson(const std::vector<ResourceSpec>& resources) {
  Json out = Json::array();
  for (const ResourceSpec& r : resources) {
    Json e = {{"name", r.name}};
    if (r.weight != 0) e["weight"] = r.weight;
    out.push_back(e);
  }
  return out;
}

Json ShapeJson(const std::vector<UtilizationShapePoint>& shape) {
  Json out = Json::array();
  for (const UtilizationShapePoint& p : shape) out.push_back(Json{{"utilization", p.utilization}, {"score", p.score}});
  return out;
}

Json TypeMeta(std::string_view kind) { return Json{{"apiVersion", kApiVersionV1}, {"kind", std::string(kind)}}; }

struct ArgsEncoder {
  Json operator()(const std::monostate&) const { return nullptr; }
  Json operator()(const UntypedArgs& a) const { return Json::parse(a.raw.dump()); }
  Json operator()(const DefaultPreemptionArgs& a) const {
    Json out = TypeMeta("DefaultPreemptionArgs");
    if (a.min_candidate_nodes_percentage) out["minCandidateNodesPercentage"] = *a.min_candidate_nodes_percentage;
    if (a.min_candidate_nodes_absolute) out["minCandidateNodesAbsolute"] = *a.min_candidate_nodes_absolute;
    return out;
  }
  Json operator()(const InterPodAffinityArgs& a) const {
    Json out = TypeMeta("InterPodAffinityArgs");
    if (a.hard_pod_affinity_weight) out["hardPodAffinityWeight"] = *a.hard_pod_affinity_weight;
    out["ignorePreferredTermsOfExistingPods"] = a.ignore_preferred_terms_of_existing_pods;
    return out;
  }
  Json operator()(const NodeResourcesFitArgs& a) const {
    Json out = TypeMeta("NodeResourcesFitArgs");
    if (!a.ignored_resources.empty()) out["ignoredResources"] = StringList(a.ignored_resources);
    if (!a.ignored_resource_groups.empty()) out["ignoredResourceGroups"] = StringList(a.ignored_resource_groups);
    if (a.scoring_strategy) {
      const ScoringStrategy& s = *a.scoring_strategy;
      Json strategy = Json::object();
      if (!s.type.empty()) strategy["type"] = s.type;
      if (!s.resources.empty()) strategy["resources"] = ResourcesJson(s.resources);
      if (s.requested_to_capacity_ratio) {
        Json ratio = Json::object();
        if (!s.requested_to_capacity_ratio->shape.empty()) {
          ratio["shape"] = ShapeJson(s.requested_to_capacity_ratio->shape);
        }
        strategy["requestedToCapacityRatio"] = ratio;
      }
      out["scoringStrategy"] = strategy;
    }
    return out;
  }
  Json operator()(const NodeResourcesBalancedAllocationArgs& a) const {
    Json out = TypeMeta("NodeResourcesBalancedAllocationArgs");
    if (!a.resources.empty()) out["resources"] = ResourcesJson(a.resources);
    return out;
  }
  Json operator()(const PodTopologySpreadArgs& a) const {
    Json out = TypeMeta("PodTopologySpreadArgs");
    if (!a.default_constraints.empty()) {
      Json cs = Json::array();
      for (const api::TopologySpreadConstraint& c : a.default_constraints)
        cs.push_back(TopologySpreadConstraintJson(c));
      out["defaultConstraints"] = cs;
    }
    if (!a.defaulting_type.empty()) out["defaultingType"] = a.defaulting_type;
    return out;
  }
  Json operator()(const NodeAffinityArgs& a) const {
    Json out = TypeMeta("NodeAffinityArgs");
    if (a.added_affinity) out["addedAffinity"] = NodeAffinityJson(*a.added_affinity);
    return out;
  }
  Json operator()(const VolumeBindingArgs& a) const {
    Json out = TypeMeta("VolumeBindingArgs");
    if (a.bind_timeout_seconds) out["bindTimeoutSeconds"] = *a.bind_timeout_seconds;
    if (a.shape) out["shape"] = ShapeJson(*a.shape);
    return out;
  }
};

Json PluginListJson(const std::vector<Plugin>& plugins, bool with_weight) {
  Json out = Json::array();
  for (const Plugin& p : plugins) {
    Json e = {{"name", p.name}};
    if (with_weight && p.weight) e["weight"] = *p.weight;
    out.push_back(e);
  }
  return out;
}

Json PluginsJson(const Plugins& plugins) {
  Json out = Json::object();
  for (ExtensionPoint point : kAllExtensionPoints) {
    const PluginSet& set = plugins.Get(point);
    if (set.enabled.empty() && set.disabled.empty()) continue;
    Json s = Json::object();
    if (!set.enabled.empty()) s["enabled"] = PluginListJson(set.enabled, true);
    if (!set.disabled.empty()) s["disabled"] = PluginListJson(set.disabled, false);
    out[std::string(ExtensionPointField(point))] = s;
  }
  return out;
}

Json ProfileJson(const KubeSchedulerProfile& p) {
  Json out = Json::object();
  if (p.scheduler_name) out["schedulerName"] = *p.scheduler_name;
  if (p.percentage_of_nodes_to_score) out["percentageOfNodesToScore"] = *p.percentage_of_nodes_to_score;
  Json plugins = PluginsJson(p.plugins);
  if (!plugins.empty()) out["plugins"] = plugins;
  if (!p.plugin_config.empty()) {
    Json configs = Json::array();
    for (const PluginConfig& pc : p.plugin_config) {
      Json e = {{"name", pc.name}};
      Json args = ArgsToJson(pc.args);
      if (!args.is_null()) e["args"] = args;
      configs.push_back(e);
    }
    out["pluginConfig"] = configs;
  }
  return out;
}

bool ReadsAsString(const std::string& s) {
  YAML::Node probe = YAML::Load(s.empty() ? std::string("\"\"") : s);
  if (!probe.IsScalar()) return false;
  if (probe.Scalar() != s) return false;  // leading/trailing spaces, comments, quotes...
  return ResolveScalar(probe).kind == ScalarKind::kString;
}

void Emit(YAML::Emitter& out, const Json& j) {
  switch (j.type()) {
    case Json::value_t::object:
      out << YAML::BeginMap;
      for (auto it = j.begin(); it != j.end(); ++it) {
        out << YAML::Key << it.key() << YAML::Value;
        Emit(out, it.value());
      }
      out << YAML::EndMap;
      return;
    case Json::value_t::array:
      out << YAML::BeginSeq;
      for (const Json& item : j) Emit(out, item);
      out << YAML::EndSeq;
      return;
    case Json::value_t::string: {
      const std::string& s = j.get_ref<const std::string&>();
      bool plain_safe = false;
      try {
        plain_safe = ReadsAsString(s);
      } catch (const YAML::Exception&) {
        plain_safe = false;
      }
      if (!plain_safe) out << YAML::DoubleQuoted;
      out << s;
      return;
    }
    case Json::value_t::boolean:
      out << (j.get<bool>() ? "true" : "false");
      return;
    case Json::value_t::null:
      out << YAML::Null;
      return;
    default:
      out << j.dump();
      return;  // numbers, printed as JSON prints them
  }
}

}  // namespace

Json ArgsToJson(const PluginArgs& args) { return std::visit(ArgsEncoder{}, args); }

Json ToJson(const KubeSchedulerConfiguration& c) {
  Json out = {{"apiVersion", kApiVersionV1}, {"kind", kKind}};
  if (c.parallelism) out["parallelism"] = *c.parallelism;
  const LeaderElectionConfiguration& le = c.leader_election;
  Json leader = Json::object();
  if (le.leader_elect) leader["leaderElect"] = *le.leader_elect;
  leader["leaseDuration"] = FormatGoDuration(le.lease_duration);
  leader["renewDeadline"] = FormatGoDuration(le.renew_deadline);
  leader["retryPeriod"] = FormatGoDuration(le.retry_period);
  leader["resourceLock"] = le.resource_lock;
  leader["resourceName"] = le.resource_name;
  leader["resourceNamespace"] = le.resource_namespace;
  out["leaderElection"] = leader;
  const ClientConnectionConfiguration& cc = c.client_connection;
  out["clientConnection"] = Json{{"kubeconfig", cc.kubeconfig},
                                 {"acceptContentTypes", cc.accept_content_types},
                                 {"contentType", cc.content_type},
                                 {"qps", FloatJson(cc.qps)},
                                 {"burst", cc.burst}};
  if (c.enable_profiling) out["enableProfiling"] = *c.enable_profiling;
  if (c.enable_contention_profiling) out["enableContentionProfiling"] = *c.enable_contention_profiling;
  if (c.percentage_of_nodes_to_score) out["percentageOfNodesToScore"] = *c.percentage_of_nodes_to_score;
  if (c.pod_initial_backoff_seconds) out["podInitialBackoffSeconds"] = *c.pod_initial_backoff_seconds;
  if (c.pod_max_backoff_seconds) out["podMaxBackoffSeconds"] = *c.pod_max_backoff_seconds;
  if (!c.profiles.empty()) {
    Json profiles = Json::array();
    for (const KubeSchedulerProfile& p : c.profiles) profiles.push_back(ProfileJson(p));
    out["profiles"] = profiles;
  }
  if (!c.extenders.empty()) {
    Json extenders = Json::array();
    for (const Extender& e : c.extenders) extenders.push_back(Json{{"urlPrefix", e.url_prefix}});
    out["extenders"] = extenders;
  }
  if (c.delay_cache_until_active) out["delayCacheUntilActive"] = true;
  return out;
}

std::string EncodeJson(const KubeSchedulerConfiguration& c, int indent) { return ToJson(c).dump(indent); }

std::string JsonToYaml(const Json& j) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetSeqFormat(YAML::Block);
  out.SetMapFormat(YAML::Block);
  Emit(out, j);
  return std::string(out.c_str()) + "\n";
}

std::string EncodeYaml(const KubeSchedulerConfiguration& c) { return JsonToYaml(ToJson(c)); }

}  // namespace ksched::config
