// NodeResourcesBalancedAllocation: a Score plugin that favours nodes whose
// utilization of the configured resources (default cpu and memory) would be
// even after placing the pod: balance = (1 - standard deviation of the
// requested/allocatable fractions) * 100 (kube's BalancedAllocation). The
// score is the balance with the pod, or from kube 1.36
// (FeatureGates::balanced_allocation_half_difference) 50 + (50 + balance
// with the pod - balance without it) / 2.
//
// Unlike NodeResourcesFit it counts the pods' actual requests (no non-zero
// defaults). PreScore returns Skip for a pod that requests none of the
// resources (kubernetes#129138: otherwise best-effort pods pile onto one
// node). It never rejects pods, so it registers no events.
//
// Thread-safety: immutable after construction but for its memo keys, which
// are thread-safe; safe to call concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>
#include <span>

#include "pkg/config/plugin_args.h"
#include "pkg/scheduler/plugins/noderesources/balanced_allocation_args.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/pod_signature.h"
#include "pkg/scheduler/plugins/noderesources/resource_allocation.h"

namespace ksched::scheduler::plugins::noderesources {

inline constexpr std::string_view kBalancedAllocationName = "NodeResourcesBalancedAllocation";
inline constexpr std::string_view kBalancedAllocationPreScoreStateKey = "PreScoreNodeResourcesBalancedAllocation";

class BalancedAllocation final : public framework::SignPlugin,
                                 public framework::PreScorePlugin, public framework::ScorePlugin {
 public:
  // `dra`: DRAExtendedResource's state (null when the gate is off).
  BalancedAllocation(const NodeResourcesBalancedAllocationArgs& args, bool half_difference,
                     std::shared_ptr<const framework::SharedDRAManager> dra = nullptr);

  std::string_view Name() const override { return kBalancedAllocationName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;
  framework::Status PreScore(framework::CycleState& state, const api::Pod& pod,
                             const framework::NodeInfoList& nodes) override;
  std::pair<int64_t, framework::Status> Score(framework::CycleState& state, const api::Pod& pod,
                                              const framework::NodeInfo& node_info) override;
  framework::Status ScoreNodes(framework::CycleState& state, const api::Pod& pod,
                               std::span<const framework::NodeInfo* const> nodes, framework::NodeScore* out) override;

 private:
  ResourceAllocationScorer scorer_;
  std::shared_ptr<const framework::SharedDRAManager> dra_;
  // Keys of the scores kept in the nodes' memo, by the pod's requests.
  framework::NodeMemoKeys memo_keys_;
};

// The plugin from its profile args (std::monostate: the defaults).
// `dra` is used when features.dra_extended_resource is on.
util::StatusOr<std::unique_ptr<BalancedAllocation>> NewBalancedAllocation(
    const config::PluginArgs& args, const framework::FeatureGates& features,
    std::shared_ptr<const framework::SharedDRAManager> dra = nullptr);

}  // namespace ksched::scheduler::plugins::noderesources
