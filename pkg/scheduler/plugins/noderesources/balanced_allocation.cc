#include "pkg/scheduler/plugins/noderesources/balanced_allocation.h"

#include <string>
#include <variant>
#include <vector>

#include "pkg/config/args_as.h"
#include "pkg/config/errors.h"
#include "pkg/scheduler/framework/pod_signature.h"
#include "pkg/scheduler/plugins/noderesources/fit.h"

namespace ksched::scheduler::plugins::noderesources {

namespace {

// Interned once: the per-node reads index a slot.
const framework::StateKey kBalancedAllocationPreScoreStateKeySlot(kBalancedAllocationPreScoreStateKey);

}  // namespace

BalancedAllocation::BalancedAllocation(const NodeResourcesBalancedAllocationArgs& args, bool half_difference,
                                       std::shared_ptr<const framework::SharedDRAManager> dra)
    : scorer_(args.resources, /*use_requested=*/true, BalancedAllocationScorer(half_difference),
              api::SchedulingPodRequestOptions()),
      dra_(std::move(dra)) {}

framework::Status BalancedAllocation::PreScore(framework::CycleState& state, const api::Pod& pod,
                                               const framework::NodeInfoList&) {
  std::vector<int64_t> requests = scorer_.PodRequests(pod);
  if (ResourceAllocationScorer::IsBestEffort(requests)) return framework::Status(framework::Code::kSkip);
  const uint64_t memo_key = scorer_.MemoizesScores() ? memo_keys_.KeyFor(requests) : 0;
  state.Write(kBalancedAllocationPreScoreStateKeySlot,
              std::make_shared<PodRequestsState>(std::move(requests), scorer_.GatherDra(dra_.get()), memo_key));
  return framework::Status();
}

std::pair<int64_t, framework::Status> BalancedAllocation::Score(framework::CycleState& state, const api::Pod& pod,
                                                                const framework::NodeInfo& node_info) {
  PodRequestsState* s = state.Lookup<PodRequestsState>(kBalancedAllocationPreScoreStateKeySlot);
  if (s != nullptr) return scorer_.Score(node_info, s->pod_requests, s->dra.get());
  // PreScore disabled in the profile: compute here, with the same best-effort
  // rule.
  std::vector<int64_t> requests = scorer_.PodRequests(pod);
  if (ResourceAllocationScorer::IsBestEffort(requests)) return {0, framework::Status()};
  return scorer_.Score(node_info, requests, scorer_.GatherDra(dra_.get()).get());
}

framework::Status BalancedAllocation::ScoreNodes(framework::CycleState& state, const api::Pod& pod,
                                                 std::span<const framework::NodeInfo* const> nodes,
                                                 framework::NodeScore* out) {
  PodRequestsState* s = state.Lookup<PodRequestsState>(kBalancedAllocationPreScoreStateKeySlot);
  if (s == nullptr) return ScorePlugin::ScoreNodes(state, pod, nodes, out);
  return scorer_.ScoreNodes(nodes, s->pod_requests, s->dra.get(), out,
                            {{framework::NodeMemo::kBalancedAllocation, s->memo_key}});
}

util::StatusOr<std::unique_ptr<BalancedAllocation>> NewBalancedAllocation(
    const config::PluginArgs& args, const framework::FeatureGates& features,
    std::shared_ptr<const framework::SharedDRAManager> dra) {
  util::StatusOr<NodeResourcesBalancedAllocationArgs> ba_args =
      config::ArgsAs<NodeResourcesBalancedAllocationArgs>(args);
  if (!ba_args.ok()) return ba_args.status();
  return std::make_unique<BalancedAllocation>(*ba_args, features.balanced_allocation_half_difference,
                                              features.dra_extended_resource ? std::move(dra) : nullptr);
}

framework::Status BalancedAllocation::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  out.push_back({framework::signer::kResources, framework::ResourceRequestSignature(ComputePodResourceRequest(pod))});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::noderesources
