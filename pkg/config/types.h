// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), as ksched
// reads it.
//
// The structs mirror the v1 API field by field (JSON names in snake_case).
// `std::optional` marks a v1 pointer field, whose absence matters to
// defaulting; after SetDefaults (defaults.h) every optional that has a default
// is engaged. Left unset on purpose: a profile's percentage_of_nodes_to_score
// (absent = use the global one), plugin weights (absent = 1), and
// schedulerName when there are several profiles (validation then fails). A
// v1beta3 document decodes into the same structs (api_version remembers which
// one was read).
//
// The scheduler reads a profile's plugin lists (multiPoint already merged
// with the default plugin set) and its args via GetPluginArgs<T>().
//
// Thread-safety: plain values; share as `const` after loading.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/config/plugin_args.h"
#include "pkg/util/clock.h"

namespace ksched::config {

inline constexpr char kGroupName[] = "kubescheduler.config.k8s.io";
inline constexpr char kApiVersionV1[] = "kubescheduler.config.k8s.io/v1";
inline constexpr char kApiVersionV1beta3[] = "kubescheduler.config.k8s.io/v1beta3";
inline constexpr char kKind[] = "KubeSchedulerConfiguration";
inline constexpr char kDefaultSchedulerName[] = "default-scheduler";
inline constexpr char kDefaultLeaseName[] = "kube-scheduler";
inline constexpr char kDefaultLeaseNamespace[] = "kube-system";

// component-base LeaderElectionConfiguration (v1alpha1).
struct LeaderElectionConfiguration {
  std::optional<bool> leader_elect;  // default true
  util::Duration lease_duration{0};  // 0 = unset; default 15s
  util::Duration renew_deadline{0};  // default 10s
  util::Duration retry_period{0};    // default 2s
  std::string resource_lock;         // default "leases"; must be "leases"
  std::string resource_name;         // default "kube-scheduler"
  std::string resource_namespace;    // default "kube-system"
};

// component-base ClientConnectionConfiguration (v1alpha1).
struct ClientConnectionConfiguration {
  std::string kubeconfig;
  std::string accept_content_types;
  std::string content_type;  // default "application/vnd.kubernetes.protobuf"
  float qps = 0;             // 0 = unset; default 50
  int32_t burst = 0;         // 0 = unset; default 100
};

struct Plugin {
  std::string name;
  std::optional<int32_t> weight;  // Score plugins only; unset/0 means 1
  // Where the user wrote this entry ("profiles[0].plugins.multiPoint.enabled[2]"),
  // so errors point there even after merging moved it; empty for entries
  // that came from the default set. Not part of the configuration's value.
  std::string origin;
};

struct PluginSet {
  std::vector<Plugin> enabled;
  std::vector<Plugin> disabled;  // "*" disables every default at this point
};

enum class ExtensionPoint {
  kPreEnqueue,
  kQueueSort,
  kPreFilter,
  kFilter,
  kPostFilter,
  kPreScore,
  kScore,
  kReserve,
  kPermit,
  kPreBind,
  kBind,
  kPostBind,
  kMultiPoint,
};

// JSON field name: "preEnqueue", ..., "multiPoint".
std::string_view ExtensionPointField(ExtensionPoint p);

struct Plugins {
  PluginSet pre_enqueue;
  PluginSet queue_sort;
  PluginSet pre_filter;
  PluginSet filter;
  PluginSet post_filter;
  PluginSet pre_score;
  PluginSet score;
  PluginSet reserve;
  PluginSet permit;
  PluginSet pre_bind;
  PluginSet bind;
  PluginSet post_bind;
  PluginSet multi_point;
  // Workload-aware scheduling's extension points (see PluginsFieldDef).
  PluginSet placement_generate;
  PluginSet placement_score;
  PluginSet pod_group_post_filter;

  PluginSet& Get(ExtensionPoint p);
  const PluginSet& Get(ExtensionPoint p) const;
};

// One field of the v1 `Plugins`. The 13 extension points ksched runs
// plugins at have an ExtensionPoint; the workload-aware ones
// (placementGenerate and placementScore from 1.36, podGroupPostFilter from
// 1.37) only kube's alpha workload-aware scheduling plugins extend: ksched
// runs no plugin there, so validation refuses an enabled entry there and a
// disabled one is kept as written.
struct PluginsFieldDef {
  std::string_view name;
  PluginSet Plugins::*set;
  std::optional<ExtensionPoint> point;  // unset: a workload-aware point
  int since_minor = 0;                  // the minor whose schema added it
};

// Every field of the v1 `Plugins`, in kube's order.
inline constexpr std::array<PluginsFieldDef, 16> kPluginsFields = {{
    {"preEnqueue", &Plugins::pre_enqueue, ExtensionPoint::kPreEnqueue},
    {"queueSort", &Plugins::queue_sort, ExtensionPoint::kQueueSort},
    {"preFilter", &Plugins::pre_filter, ExtensionPoint::kPreFilter},
    {"filter", &Plugins::filter, ExtensionPoint::kFilter},
    {"postFilter", &Plugins::post_filter, ExtensionPoint::kPostFilter},
    {"preScore", &Plugins::pre_score, ExtensionPoint::kPreScore},
    {"score", &Plugins::score, ExtensionPoint::kScore},
    {"reserve", &Plugins::reserve, ExtensionPoint::kReserve},
    {"permit", &Plugins::permit, ExtensionPoint::kPermit},
    {"preBind", &Plugins::pre_bind, ExtensionPoint::kPreBind},
    {"bind", &Plugins::bind, ExtensionPoint::kBind},
    {"postBind", &Plugins::post_bind, ExtensionPoint::kPostBind},
    {"multiPoint", &Plugins::multi_point, ExtensionPoint::kMultiPoint},
    {"placementGenerate", &Plugins::placement_generate, std::nullopt, 36},
    {"placementScore", &Plugins::placement_score, std::nullopt, 36},
    {"podGroupPostFilter", &Plugins::pod_group_post_filter, std::nullopt, 37},
}};

// The extension points ksched runs plugins at, in that order.
inline constexpr std::array<ExtensionPoint, 13> kAllExtensionPoints = [] {
  std::array<ExtensionPoint, 13> out{};
  size_t n = 0;
  for (const PluginsFieldDef& f : kPluginsFields) {
    if (f.point) out[n++] = *f.point;
  }
  return out;
}();

struct PluginConfig {
  std::string name;
  PluginArgs args;
};

struct KubeSchedulerProfile {
  std::optional<std::string> scheduler_name;            // default "default-scheduler" when it is the only profile
  std::optional<int32_t> percentage_of_nodes_to_score;  // unset: use the global value
  Plugins plugins;
  std::vector<PluginConfig> plugin_config;
};

// Decoded only to be rejected: ksched does not call extenders.
struct Extender {
  std::string url_prefix;
};

struct KubeSchedulerConfiguration {
  std::string api_version = kApiVersionV1;  // as read; the encoder always writes v1
  std::optional<int32_t> parallelism;       // default 16
  LeaderElectionConfiguration leader_election;
  ClientConnectionConfiguration client_connection;
  std::optional<bool> enable_profiling;                 // default true
  std::optional<bool> enable_contention_profiling;      // default = enable_profiling
  std::optional<int32_t> percentage_of_nodes_to_score;  // default 0 (adaptive)
  std::optional<int64_t> pod_initial_backoff_seconds;   // default 1
  std::optional<int64_t> pod_max_backoff_seconds;       // default 10
  std::vector<KubeSchedulerProfile> profiles;           // default: one profile
  std::vector<Extender> extenders;
  bool delay_cache_until_active = false;
};

// The profile whose schedulerName is `scheduler_name`, or nullptr.
const KubeSchedulerProfile* FindProfile(const KubeSchedulerConfiguration& c, std::string_view scheduler_name);

// The pluginConfig entry for `plugin_name`, or nullptr.
const PluginConfig* FindPluginConfig(const KubeSchedulerProfile& p, std::string_view plugin_name);

// The typed args of `plugin_name` in `p`, or nullptr when the profile has no
// args of type T for it. After SetDefaults every enabled plugin that has an
// args codec has them.
template <class T>
const T* GetPluginArgs(const KubeSchedulerProfile& p, std::string_view plugin_name) {
  const PluginConfig* pc = FindPluginConfig(p, plugin_name);
  return pc == nullptr ? nullptr : pc->args.Get<T>();
}

// Sorted names of the plugins enabled at any extension point (multiPoint
// included) of `plugins`.
std::vector<std::string> EnabledPluginNames(const Plugins& plugins);

}  // namespace ksched::config
