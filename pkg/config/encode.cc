#include "pkg/config/encode.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>

#include "pkg/util/go_duration.h"
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
  auto add = [&](std::string_view field, const PluginSet& set) {
    if (set.enabled.empty() && set.disabled.empty()) return;
    Json s = Json::object();
    if (!set.enabled.empty()) s["enabled"] = PluginListJson(set.enabled, true);
    if (!set.disabled.empty()) s["disabled"] = PluginListJson(set.disabled, false);
    out[std::string(field)] = s;
  };
  for (const PluginsFieldDef& f : kPluginsFields) add(f.name, plugins.*f.set);
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

Json ToJson(const KubeSchedulerConfiguration& c) {
  Json out = {{"apiVersion", kApiVersionV1}, {"kind", kKind}};
  if (c.parallelism) out["parallelism"] = *c.parallelism;
  const LeaderElectionConfiguration& le = c.leader_election;
  Json leader = Json::object();
  if (le.leader_elect) leader["leaderElect"] = *le.leader_elect;
  leader["leaseDuration"] = util::FormatGoDuration(le.lease_duration);
  leader["renewDeadline"] = util::FormatGoDuration(le.renew_deadline);
  leader["retryPeriod"] = util::FormatGoDuration(le.retry_period);
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
