#include "pkg/config/validate.h"

#include <map>
#include <set>

#include "pkg/util/go_duration.h"
#include "pkg/config/encode.h"
#include "pkg/config/yaml_reader.h"

namespace ksched::config {
namespace {

// client-go's leaderelection.JitterFactor.
constexpr double kJitterFactor = 1.2;

std::string Int(int64_t v) { return std::to_string(v); }
std::string Dur(util::Duration d) { return Quote(util::FormatGoDuration(d)); }

std::string InvalidInVersion(std::string_view api_version) {
  return "was invalid in version " + Quote(kApiVersionV1) + " (KubeSchedulerConfiguration is version " +
         Quote(api_version) + ")";
}

std::string UnknownPluginDetail(const std::string& name, const KnownPlugins& known) {
  std::string detail =
      "no plugin of this name is built into ksched (an out-of-tree plugin needs a binary built with it: "
      "docs/plugin-api.md)";
  std::string hint = ClosestName(name, known.Names());
  if (!hint.empty()) detail += "; did you mean " + Quote(hint) + "?";
  return detail;
}

bool SamePluginList(const std::vector<Plugin>& a, const std::vector<Plugin>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].weight != b[i].weight) return false;
  }
  return true;
}

bool SamePluginSet(const PluginSet& a, const PluginSet& b) {
  return SamePluginList(a.enabled, b.enabled) && SamePluginList(a.disabled, b.disabled);
}

std::string PluginSetValue(const PluginSet& s) {
  std::vector<std::string> enabled, disabled;
  for (const Plugin& p : s.enabled) enabled.push_back(p.name);
  for (const Plugin& p : s.disabled) disabled.push_back(p.name);
  return "{enabled: " + QuoteList(enabled) + ", disabled: " + QuoteList(disabled) + "}";
}

class Validator {
 public:
  Validator(const KnownPlugins& known, ErrorList* errors, ErrorList* warnings)
      : known_(known), errors_(errors), warnings_(warnings) {}

  void Run(const KubeSchedulerConfiguration& c) {
    if (c.client_connection.burst < 0) {
      Add(Invalid("clientConnection.burst", Int(c.client_connection.burst), "must be non-negative"));
    }
    LeaderElection(c.leader_election);
    if (c.parallelism.value_or(0) <= 0) {
      Add(Invalid("parallelism", Int(c.parallelism.value_or(0)), "should be an integer value greater than zero"));
    }
    if (c.profiles.empty()) {
      Add(Required("profiles"));
    } else {
      std::map<std::string, size_t> names;
      for (size_t i = 0; i < c.profiles.size(); ++i) {
        std::string path = IndexPath("profiles", i);
        Profile(path, c.api_version, c.profiles[i]);
        const std::string name = c.profiles[i].scheduler_name.value_or("");
        if (name.empty()) continue;
        auto [it, inserted] = names.emplace(name, i);
        if (!inserted) {
          Add(Duplicate(ChildPath(path, "schedulerName"),
                        Quote(name) + " (also the name of profiles[" + Int(static_cast<int64_t>(it->second)) + "])"));
        }
      }
      CommonQueueSort(c.profiles);
    }
    Percentage("percentageOfNodesToScore", c.percentage_of_nodes_to_score);
    int64_t initial = c.pod_initial_backoff_seconds.value_or(0);
    int64_t max = c.pod_max_backoff_seconds.value_or(0);
    if (initial <= 0) Add(Invalid("podInitialBackoffSeconds", Int(initial), "must be greater than 0"));
    if (max < initial) {
      Add(Invalid("podMaxBackoffSeconds", Int(max), "must be greater than or equal to PodInitialBackoffSeconds"));
    }
    if (!c.extenders.empty()) {
      std::vector<std::string> urls;
      for (const Extender& e : c.extenders) urls.push_back(e.url_prefix);
      Add(Forbidden("extenders", "extenders are not supported by ksched (found " +
                                     Int(static_cast<int64_t>(c.extenders.size())) + ": " + QuoteList(urls) +
                                     "); implement the logic as a plugin or remove the extenders"));
    }
  }

 private:
  void Add(FieldError e) { errors_->push_back(std::move(e)); }
  void Warn(FieldError e) {
    if (warnings_ != nullptr) warnings_->push_back(std::move(e));
  }

  void LeaderElection(const LeaderElectionConfiguration& le) {
    const std::string path = "leaderElection";
    if (!le.leader_elect.value_or(false)) return;
    if (le.lease_duration <= util::Duration(0)) {
      Add(Invalid(ChildPath(path, "leaseDuration"), Dur(le.lease_duration), "must be greater than zero"));
    }
    if (le.renew_deadline <= util::Duration(0)) {
      Add(Invalid(ChildPath(path, "renewDeadline"), Dur(le.renew_deadline), "must be greater than zero"));
    }
    if (le.retry_period <= util::Duration(0)) {
      Add(Invalid(ChildPath(path, "retryPeriod"), Dur(le.retry_period), "must be greater than zero"));
    }
    if (le.lease_duration <= le.renew_deadline) {
      Add(Invalid(ChildPath(path, "leaseDuration"), Dur(le.lease_duration),
                  "must be greater than `RenewDeadline` (" + util::FormatGoDuration(le.renew_deadline) + ")"));
    }
    if (le.retry_period > util::Duration(0) && static_cast<double>(le.renew_deadline.count()) <=
                                                   kJitterFactor * static_cast<double>(le.retry_period.count())) {
      Add(Invalid(ChildPath(path, "renewDeadline"), Dur(le.renew_deadline),
                  "must be greater than retryPeriod*1.2 (" + util::FormatGoDuration(le.retry_period) +
                      " * client-go's JitterFactor)"));
    }
    if (le.resource_lock.empty()) Add(Required(ChildPath(path, "resourceLock")));
    if (le.resource_namespace.empty()) Add(Required(ChildPath(path, "resourceNamespace")));
    if (le.resource_name.empty()) Add(Required(ChildPath(path, "resourceName")));
    if (!le.resource_lock.empty() && le.resource_lock != "leases") {
      Add(Invalid(ChildPath(path, "resourceLock"), Quote(le.resource_lock), "resourceLock value must be \"leases\""));
    }
  }

  void Percentage(const std::string& path, const std::optional<int32_t>& v) {
    if (v && (*v < 0 || *v > 100)) Add(Invalid(path, Int(*v), "not in valid range [0-100]"));
  }

  void Profile(const std::string& path, const std::string& api_version, const KubeSchedulerProfile& p) {
    if (p.scheduler_name.value_or("").empty()) Add(Required(ChildPath(path, "schedulerName")));
    Percentage(ChildPath(path, "percentageOfNodesToScore"), p.percentage_of_nodes_to_score);
    std::string plugins_path = ChildPath(path, "plugins");
    for (const PluginsFieldDef& f : kPluginsFields) {
      const std::string field_path = ChildPath(plugins_path, f.name);
      if (f.point) {
        PluginSetErrors(field_path, *f.point, api_version, p.plugins.*f.set);
      } else {
        WorkloadPluginSetErrors(field_path, f.name, p.plugins.*f.set);
      }
    }
    PluginConfigErrors(path, api_version, p);
  }

  void PluginSetErrors(const std::string& path, ExtensionPoint point, const std::string& api_version,
                       const PluginSet& set) {
    std::set<std::string> seen;
    for (size_t i = 0; i < set.enabled.size(); ++i) {
      const Plugin& pl = set.enabled[i];
      std::string entry = pl.origin.empty() ? IndexPath(ChildPath(path, "enabled"), i) : pl.origin;
      if (IsRemovedPlugin(pl.name)) {
        Add(Invalid(entry, Quote(pl.name), InvalidInVersion(api_version)));
      } else if (pl.name.empty()) {
        Add(Required(ChildPath(entry, "name"), "plugin name"));
      } else if (known_.count(pl.name) == 0) {
        Add(NotSupported(ChildPath(entry, "name"), Quote(pl.name), {}, UnknownPluginDetail(pl.name, known_)));
      } else if (!seen.insert(pl.name).second) {
        Add(Duplicate(entry, Quote(pl.name) + " (a plugin is enabled at most once per extension point)"));
      }
      if (pl.weight && *pl.weight < 0) {
        Add(Invalid(ChildPath(entry, "weight"), Int(*pl.weight), "must not be negative"));
      }
      if (pl.weight && point != ExtensionPoint::kScore && point != ExtensionPoint::kMultiPoint) {
        Warn(Invalid(ChildPath(entry, "weight"), Int(*pl.weight), "weights only apply to score plugins; ignored"));
      }
    }
    DisabledWarnings(path, set);
  }

  // kube fails to build a profile whose plugin does not extend the point it
  // is enabled at; no ksched plugin extends these.
  void WorkloadPluginSetErrors(const std::string& path, std::string_view field, const PluginSet& set) {
    for (size_t i = 0; i < set.enabled.size(); ++i) {
      const Plugin& pl = set.enabled[i];
      std::string entry = pl.origin.empty() ? IndexPath(ChildPath(path, "enabled"), i) : pl.origin;
      Add(Invalid(ChildPath(entry, "name"), Quote(pl.name),
                  "ksched runs no plugin at the " + std::string(field) +
                      " extension point (only kube's alpha workload-aware scheduling plugins extend it)"));
    }
    DisabledWarnings(path, set);
  }

  void DisabledWarnings(const std::string& path, const PluginSet& set) {
    for (size_t i = 0; i < set.disabled.size(); ++i) {
      const Plugin& pl = set.disabled[i];
      if (pl.name == "*" || known_.count(pl.name) > 0) continue;
      std::string entry = pl.origin.empty() ? IndexPath(ChildPath(path, "disabled"), i) : pl.origin;
      Warn(NotSupported(ChildPath(entry, "name"), Quote(pl.name), {},
                        "not a plugin ksched knows; disabling it has no effect"));
    }
  }

  void PluginConfigErrors(const std::string& profile_path, const std::string& api_version,
                          const KubeSchedulerProfile& p) {
    std::set<std::string> seen;
    for (size_t i = 0; i < p.plugin_config.size(); ++i) {
      const PluginConfig& pc = p.plugin_config[i];
      std::string path = IndexPath(ChildPath(profile_path, "pluginConfig"), i);
      std::string args_path = ChildPath(path, "args");
      if (!seen.insert(pc.name).second) Add(Duplicate(path, Quote(pc.name)));
      if (IsRemovedPlugin(pc.name)) {
        Add(Invalid(path, Quote(pc.name), InvalidInVersion(api_version)));
        continue;
      }
      if (pc.name.empty()) {
        Add(Required(ChildPath(path, "name"), "plugin name"));
        continue;
      }
      if (known_.count(pc.name) == 0) {
        Add(NotSupported(ChildPath(path, "name"), Quote(pc.name), {}, UnknownPluginDetail(pc.name, known_)));
        continue;
      }
      if (const ArgsCodec* codec = known_.Codec(pc.name)) {
        if (pc.args.codec() != codec) {
          Add(Invalid(args_path, ArgsToJson(pc.args).dump(),
                      "has to match plugin args (" + std::string(codec->Kind()) + ")"));
        } else {
          for (FieldError& e : codec->Validate(args_path, pc.args)) Add(std::move(e));
        }
      } else if (!pc.args.empty()) {
        Add(Invalid(args_path, ArgsToJson(pc.args).dump(), "plugin " + pc.name + " takes no args"));
      }
    }
  }

  void CommonQueueSort(const std::vector<KubeSchedulerProfile>& profiles) {
    const PluginSet& canon = profiles[0].plugins.queue_sort;
    std::string queue_sort_name = canon.enabled.empty() ? "" : canon.enabled[0].name;
    if (canon.enabled.size() > 1) {
      Add(Invalid("profiles[0].plugins.queueSort.enabled", Int(static_cast<int64_t>(canon.enabled.size())),
                  "only one queue sort plugin can be enabled"));
    }
    std::string canon_args = "null";
    if (const PluginConfig* pc = FindPluginConfig(profiles[0], queue_sort_name);
        pc != nullptr && !queue_sort_name.empty()) {
      canon_args = ArgsToJson(pc->args).dump();
    }
    for (size_t i = 1; i < profiles.size(); ++i) {
      std::string path = IndexPath("profiles", i);
      const PluginSet& cur = profiles[i].plugins.queue_sort;
      if (!SamePluginSet(canon, cur)) {
        Add(Invalid(ChildPath(ChildPath(path, "plugins"), "queueSort"), PluginSetValue(cur),
                    "must be the same for all profiles"));
      }
      if (queue_sort_name.empty()) continue;
      for (size_t j = 0; j < profiles[i].plugin_config.size(); ++j) {
        const PluginConfig& pc = profiles[i].plugin_config[j];
        if (pc.name != queue_sort_name) continue;
        std::string args = ArgsToJson(pc.args).dump();
        if (args != canon_args) {
          Add(Invalid(ChildPath(IndexPath(ChildPath(path, "pluginConfig"), j), "args"), args,
                      "queueSort must be the same for all profiles"));
        }
      }
    }
  }

  const KnownPlugins& known_;
  ErrorList* errors_;
  ErrorList* warnings_;
};

}  // namespace

ErrorList Validate(const KubeSchedulerConfiguration& c, const KnownPlugins& known, const ConfigSource* source,
                   ErrorList* warnings) {
  ErrorList errors;
  ErrorList local_warnings;
  Validator(known, &errors, &local_warnings).Run(c);
  if (source != nullptr) {
    for (FieldError& e : errors) source->Locate(&e);
    for (FieldError& e : local_warnings) source->Locate(&e);
  }
  if (warnings != nullptr) {
    for (FieldError& w : local_warnings) warnings->push_back(std::move(w));
  }
  return errors;
}

}  // namespace ksched::config
