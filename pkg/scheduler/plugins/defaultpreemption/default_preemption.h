// DefaultPreemption: the PostFilter plugin that makes room for a pod that
// fits nowhere by evicting lower-priority pods (kube-scheduler's
// plugins/defaultpreemption). The generic flow is
// framework/preemption/Evaluator; this plugin decides:
//   - eligibility (eligibility.cc): preemptionPolicy Never never preempts;
//     a pod already nominated to a node where a lower-priority pod is still
//     terminating because of preemption (DisruptionTarget condition and
//     deletion timestamp), or — with SchedulerAsyncPreemption off — whose
//     own victims are still on their node (Evaluator::PreemptionInProgress),
//     waits for them (unless the filters
//     found its nominated node UnschedulableAndUnresolvable);
//   - how many candidates to look for (candidates.cc): max(10% of the
//     nodes, 100) by default (minCandidateNodesPercentage /
//     minCandidateNodesAbsolute), capped at the node count, starting at a
//     random node;
//   - the victims on one node (select_victims.cc): remove every
//     lower-priority pod; if the pod then fits (filters with nominated
//     pods), put back as many as possible, PDB-violating ones first, each
//     group from the highest priority down.
// PostFilter counts scheduler_preemption_attempts_total and prefixes
// non-empty messages with "preemption: ".
//
// With SchedulerAsyncPreemption on (kube's default), the plugin is also a
// PreEnqueue plugin: while the Evaluator's API calls for a pod are under
// way, the pod is held back (UnschedulableAndUnresolvable "waiting for the
// preemption for this pod to be finished"). It registers Pod/Delete with a
// hint that always says QueueSkip: the registration lets victims'
// deletions past the gated pod's event filter, and the other rejecting
// plugins' hints (NodeResourcesFit, ...) decide whether the pod moves; a
// failed preemption activates the pod instead. With the gate off, PreEnqueue
// always passes and nothing is registered.
//
// Thread-safety: PostFilter runs on the scheduling thread;
// SelectVictimsOnNode is called concurrently (see Evaluator). The random
// offset source is guarded by a mutex.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/config/plugin_args.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/preemption/evaluator.h"
#include "pkg/scheduler/plugins/defaultpreemption/default_preemption_args.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::defaultpreemption {

inline constexpr std::string_view kName = "DefaultPreemption";

// Returns a value in [0, n) for n > 0.
using OffsetSource = std::function<int(int n)>;

class DefaultPreemption final : public framework::PostFilterPlugin,
                                public framework::PreEnqueuePlugin,
                                public framework::EnqueueExtensions,
                                public framework::preemption::Interface {
 public:
  // `offset` empty: uniformly random (kube's rand.Int31n).
  DefaultPreemption(DefaultPreemptionArgs args, framework::Handle& handle, OffsetSource offset = {});

  std::string_view Name() const override { return kName; }

  std::pair<framework::PostFilterResult, framework::Status> PostFilter(
      framework::CycleState& state, const api::Pod& pod, const framework::NodeToStatus& filtered_node_status) override;
  framework::Status PreEnqueue(const api::Pod& pod) override;
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  // ---- preemption::Interface
  std::pair<int, int> GetOffsetAndNumCandidates(int num_nodes) override;
  std::pair<bool, std::string> PodEligibleToPreemptOthers(const api::Pod& pod,
                                                          const framework::Status& nominated_node_status) override;
  Victims SelectVictimsOnNode(framework::CycleState& state, const api::Pod& pod, framework::NodeInfo& node_info,
                              const framework::preemption::PDBList& pdbs) override;

  // How many candidates are enough among `num_nodes` potential nodes.
  int NumCandidates(int num_nodes) const;
  framework::preemption::Evaluator& evaluator() { return evaluator_; }

 private:
  const int32_t min_candidate_nodes_percentage_;
  const int32_t min_candidate_nodes_absolute_;
  const bool async_preemption_;
  framework::Handle& handle_;
  OffsetSource offset_;
  std::mutex rng_mu_;
  std::mt19937 rng_;
  framework::preemption::Evaluator evaluator_;
};

// The registry's factory: args must be DefaultPreemptionArgs or empty (then
// the defaults apply); they are defaulted and validated (config::ArgsAs).
// `offset` empty: uniformly random.
util::StatusOr<std::shared_ptr<DefaultPreemption>> New(const config::PluginArgs& args, framework::Handle& handle,
                                                       OffsetSource offset = {});

}  // namespace ksched::scheduler::plugins::defaultpreemption
