// CycleState: data plugins share during one pod's scheduling cycle (kube's
// framework.CycleState). PreFilter typically computes something once and
// writes it under the plugin's key; Filter and Score read it for every node.
//
// Values are StateData subclasses held by shared_ptr. Clone() deep-copies
// every value through StateData::Clone(), so a cloned state (e.g. with
// nominated pods added through PreFilterExtensions::AddPod) can be mutated
// without touching the original. A value may return itself from Clone()
// when it is meant to be shared across clones (PodsToActivate does).
//
// The state also carries the plugins to skip at Filter (set by PreFilter
// returning Skip) and at Score (PreScore returning Skip), and whether plugin
// durations are sampled for metrics in this cycle.
//
// Thread-safety: Read/Write/Delete/Get may be called concurrently (Filter
// and Score run in parallel over nodes): a reader-writer lock guards the
// map. The StateData objects themselves are not protected: a plugin must
// only mutate its data where no other thread reads it (PreFilter, AddPod on a
// cloned state), or synchronize it itself. The skip sets and the metrics
// flag are set by the framework before the parallel phases and are not
// synchronized.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/plugin_set.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

class StateData {
 public:
  virtual ~StateData() = default;
  // A copy for a cloned CycleState.
  virtual std::shared_ptr<StateData> Clone() const = 0;
};

class CycleState {
 public:
  CycleState() = default;
  CycleState(const CycleState&) = delete;
  CycleState& operator=(const CycleState&) = delete;

  // The value under `key`; NotFound ("not found") when absent.
  util::StatusOr<std::shared_ptr<StateData>> Read(std::string_view key) const;
  // The value under `key` if it is a T, else nullptr.
  template <class T>
  std::shared_ptr<T> Get(std::string_view key) const {
    return std::dynamic_pointer_cast<T>(Find(key));
  }
  void Write(std::string_view key, std::shared_ptr<StateData> value);
  void Delete(std::string_view key);

  // A deep copy (values cloned, skip sets and metrics flag copied).
  std::unique_ptr<CycleState> Clone() const;

  const PluginSet& SkipFilterPlugins() const { return skip_filter_plugins_; }
  void SetSkipFilterPlugins(PluginSet plugins) { skip_filter_plugins_ = std::move(plugins); }
  const PluginSet& SkipScorePlugins() const { return skip_score_plugins_; }
  void SetSkipScorePlugins(PluginSet plugins) { skip_score_plugins_ = std::move(plugins); }

  // Whether plugin execution durations are recorded in this cycle (kube
  // samples 10% of cycles).
  bool ShouldRecordPluginMetrics() const { return record_plugin_metrics_; }
  void SetRecordPluginMetrics(bool record) { record_plugin_metrics_ = record; }

 private:
  std::shared_ptr<StateData> Find(std::string_view key) const;

  mutable std::shared_mutex mu_;
  std::map<std::string, std::shared_ptr<StateData>, std::less<>> storage_;  // guarded by mu_
  PluginSet skip_filter_plugins_;
  PluginSet skip_score_plugins_;
  bool record_plugin_metrics_ = false;
};

// The key of the PodsToActivate entry every scheduling cycle starts with.
inline constexpr std::string_view kPodsToActivateKey = "kubernetes.io/pods-to-activate";

// Pods a plugin wants moved to activeQ once this cycle succeeds (after
// Permit, and again after PostBind), keyed by "namespace/name". Shared by all
// clones of a CycleState (Clone returns itself). Thread-safe.
// Create with std::make_shared (Clone relies on shared_from_this).
class PodsToActivate final : public StateData, public std::enable_shared_from_this<PodsToActivate> {
 public:
  std::shared_ptr<StateData> Clone() const override;

  void Add(std::shared_ptr<const api::Pod> pod);
  // Removes and returns every pod, in key order.
  std::vector<std::shared_ptr<const api::Pod>> TakeAll();
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const api::Pod>> pods_;  // guarded by mu_
};

}  // namespace ksched::scheduler::framework
