// QueueingHintMap: for one scheduling profile, which plugins care about
// which cluster events, and the hint function each registered (kube's
// QueueingHintMap, built like scheduler.buildQueueingHintMap).
//
// Built once at start-up from the profile's enabled plugins:
// - a plugin that does not implement EnqueueExtensions registers
//   UnrollWildCardResource() (every resource x All), without hints;
// - a plugin whose EventsToRegister returns an empty list registers nothing;
// - a registration without a hint function, or any registration while
//   SchedulerQueueingHints is off, means "Queue" (an empty QueueingHintFn);
// - a plugin registering Node/Add but no Node/UpdateNodeTaint also gets
//   Node/UpdateNodeTaint with the default hint (kube issue 109437).
//
// Thread-safety: immutable after construction; safe to read concurrently.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/scheduler/framework/cluster_event.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/queueing_hint.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::queue {

struct QueueingHintFunction {
  std::string plugin_name;
  // Empty: the event always means Queue.
  framework::QueueingHintFn fn;
};

// The hint functions of one plugin that apply to one incoming event.
struct PluginHints {
  std::string_view plugin;
  std::vector<const framework::QueueingHintFn*> fns;
};

// All plugins of one profile interested in one incoming event, in
// registration order.
struct MatchedHints {
  std::vector<PluginHints> plugins;
  bool empty() const { return plugins.empty(); }
};

class QueueingHintMap {
 public:
  struct Entry {
    framework::ClusterEvent event;
    std::vector<QueueingHintFunction> hints;
  };

  // Appends a registration (events are kept distinct, in first-seen order).
  void Register(const framework::ClusterEvent& event, std::string plugin, framework::QueueingHintFn fn);

  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

  // Whether any registration matches `incoming`.
  bool Matches(const framework::ClusterEvent& incoming) const;
  // The hint functions of every registration matching `incoming`, grouped
  // by plugin. `out` is overwritten.
  void Match(const framework::ClusterEvent& incoming, MatchedHints* out) const;

 private:
  std::vector<Entry> entries_;
};

// Profile name (schedulerName) -> that profile's map.
using QueueingHintMapPerProfile = std::map<std::string, QueueingHintMap, std::less<>>;

// Builds one profile's map from its enabled plugins (all extension points;
// each plugin once). The plugins must outlive the map: hint functions may
// refer to them. EventsToRegister errors are joined into one error.
util::StatusOr<QueueingHintMap> BuildQueueingHintMap(const std::vector<const framework::Plugin*>& plugins,
                                                     const framework::FeatureGates& gates);

// Plugin name -> every event it registered in any profile; gated pods are
// moved only by events of their gating plugin.
std::unordered_map<std::string, std::shared_ptr<const std::vector<framework::ClusterEvent>>> BuildPluginToEventsMap(
    const QueueingHintMapPerProfile& maps);

}  // namespace ksched::scheduler::queue
