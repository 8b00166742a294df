// Evaluator: the generic part of preemption (kube's preemption.Evaluator),
// which a PostFilter plugin drives through the Interface it implements.
//
// Preempt(pod, statuses):
//   0. takes the freshest copy of the pod from the pod lister;
//   1. asks the plugin whether the pod may preempt at all
//      (PodEligibleToPreemptOthers);
//   2. finds candidates: only nodes whose filter status is Unschedulable
//      (UnschedulableAndUnresolvable ones cannot be helped by removing
//      pods; when none is left, the pod's nomination is cleared), and dry
//      runs the plugin's SelectVictimsOnNode on a copy of each node and of
//      the CycleState, in parallel, from the plugin's offset, until enough
//      candidates are found (at least one without PDB violations and
//      num_candidates in all). Per list at most num_candidates are kept,
//      the lowest dry-run indices first, so the outcome does not depend on
//      thread timing;
//   3. no candidate: Unschedulable with the dry run's FitError text (nodes
//      not tried: "Preemption is not helpful for scheduling") and a
//      nomination cleared;
//   4. picks one candidate (select_candidate.h);
//   5. prepares it (below);
//   6. returns Success with the node as the pod's nomination (kOverride).
//
// Either way, a victim waiting at Permit is stopped without an API call:
// rejected (Unschedulable) before kube 1.36; from 1.36
// (FeatureGates::preempted_waiting_pod_backoff) preempted (Error, so it
// goes to backoff) with " (in kube-scheduler memory)." in its Preempted
// event, and evicted like the others if its Permit outcome was already
// decided.
//
// Step 5 with SchedulerAsyncPreemption off (PrepareCandidate): victims
// waiting at Permit are stopped, the others are evicted through
// Handle::Preemption() (the API writer retries them), a Preempted event is
// recorded for each, scheduler_preemption_victims observed, and the
// nominations of lower-priority pods on that node cleared in the API. Until
// the informer reports the victims gone they are still on their node in the
// snapshot, so the evaluator remembers, per preemptor, the node and the
// victims it evicted; while any of those is still there,
// PreemptionInProgress() says so and the plugin does not preempt again for
// that pod (ksched's own guard: kube relies on the victims' DisruptionTarget
// condition and deletion timestamp, which reach the informer later).
// Entries whose victims are all gone are dropped at the next Preempt.
//
// Step 5 with SchedulerAsyncPreemption on (PrepareCandidateAsync, kube's
// prepareCandidateAsync, KEP-4832): scheduler_preemption_victims is
// observed; victims already being deleted are skipped, and if none is left
// nothing else happens. Otherwise the pod is marked as preempting and the
// API calls run after the cycle: the lower-priority nominations on the node
// are cleared, every victim but the last is evicted (concurrently, on the
// writer's workers), then the last one; a victim waiting at Permit is
// stopped instead. Each victim evicted gets its Preempted event. When the
// calls end the mark is removed and scheduler_preemption_goroutines_* are
// observed; on an error the pod is activated so that it tries again (on
// success it is not: the victims' deletions bring it back, as in kube).
// While the mark stands, IsPodRunningPreemption() is true — the plugin's
// PreEnqueue keeps the pod out of the active and backoff queues — except
// once the last victim's eviction was issued and the pod lister shows that
// victim gone or terminating (its deletion event may come before the
// writer reports back).
//
// Thread-safety: Preempt runs on the scheduling thread; the dry run calls
// SelectVictimsOnNode concurrently for different nodes, each with its own
// NodeInfo and CycleState copies. IsPodRunningPreemption and
// PreemptionInProgress are thread-safe. The asynchronous calls' completions
// run on the writer's threads and call back into the evaluator: the
// PreemptionWriter must not run them once the evaluator is gone (the
// scheduler's writer drops them after it stops).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/scheduler/framework/preemption/candidate.h"
#include "pkg/scheduler/framework/preemption/pdb.h"
#include "pkg/scheduler/framework/status.h"

namespace ksched::scheduler::framework::preemption {

// What a preemption plugin decides (kube's preemption.Interface).
class Interface {
 public:
  virtual ~Interface() = default;
  // Where the dry run starts (in [0, num_nodes)) and how many candidates
  // are enough.
  virtual std::pair<int, int> GetOffsetAndNumCandidates(int num_nodes) = 0;
  // Whether `pod` may preempt; otherwise the message says why.
  // `nominated_node_status` is the filter status of the pod's nominated
  // node (the absent-nodes status when it has none).
  virtual std::pair<bool, std::string> PodEligibleToPreemptOthers(const api::Pod& pod,
                                                                  const Status& nominated_node_status) = 0;
  // The victims on `node_info` (a copy the method may change; `state` is a
  // copy too), ordered most important first, and how many of them violate
  // a PDB. Success with no victims is treated as an error.
  struct Victims {
    std::vector<std::shared_ptr<const api::Pod>> pods;
    int num_pdb_violations = 0;
    Status status;
  };
  virtual Victims SelectVictimsOnNode(CycleState& state, const api::Pod& pod, NodeInfo& node_info,
                                      const PDBList& pdbs) = 0;
};

class Evaluator {
 public:
  // `handle` and `iface` must outlive the evaluator.
  Evaluator(std::string plugin_name, Handle& handle, Interface& iface)
      : plugin_name_(std::move(plugin_name)), handle_(handle), iface_(iface) {}

  std::pair<PostFilterResult, Status> Preempt(CycleState& state, const api::Pod& pod, const NodeToStatus& statuses);

  struct DryRun {
    std::vector<Candidate> candidates;  // non-violating first, then violating
    NodeToStatus statuses;              // nodes that are no candidate, and why
    std::vector<std::string> errors;    // Error statuses of the dry run
  };
  // Step 2 for the given nodes (exposed for tests).
  DryRun DryRunPreemption(CycleState& state, const api::Pod& pod, const NodeInfoList& potential_nodes,
                          const PDBList& pdbs, int offset, int num_candidates);
  // Steps 4 and 5 (exposed for tests). nullptr when `candidates` is empty.
  const Candidate* SelectCandidate(const std::vector<Candidate>& candidates) const;
  void PrepareCandidate(const Candidate& candidate, const api::Pod& pod);
  void PrepareCandidateAsync(const Candidate& candidate, std::shared_ptr<const api::Pod> pod);

  // Whether `pod`'s asynchronous preemption is still under way (kube's
  // IsPodRunningPreemption). Thread-safe; called by PreEnqueue under the
  // queue's lock: it takes only the evaluator's mutex and a lister read.
  bool IsPodRunningPreemption(const api::Pod& pod) const;

  // Whether victims this evaluator evicted for `pod` are still on their
  // node in the current snapshot. Thread-safe.
  bool PreemptionInProgress(const api::Pod& pod) const;

 private:
  struct InFlight {
    std::string node;
    std::vector<std::string> victim_uids;
  };
  // Stops `victim` if it waits at Permit or, from 1.36, is in PreBind
  // (above), and records its Preempted event; false when it must be
  // evicted through the API instead.
  bool StopVictimInMemory(const api::Pod& victim, const api::Pod& preemptor, const std::string& node);
  // Whether some of `f`'s victims are still on its node.
  bool VictimsPresent(const InFlight& f) const;
  void PruneInFlight();

  // One preemptor's asynchronous API calls (evaluator_async.cc).
  struct AsyncRun;
  using EvictionDone = std::function<void(util::Status)>;
  void Evict(const AsyncRun& run, const std::shared_ptr<const api::Pod>& victim, EvictionDone done);
  void EvictLastVictim(const std::shared_ptr<AsyncRun>& run);
  void FinishAsync(const AsyncRun& run, bool success);
  // The last victim of a preempting pod, once its eviction was issued.
  struct LastVictim {
    std::string ns;
    std::string name;
  };

  const std::string plugin_name_;
  Handle& handle_;
  Interface& iface_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, InFlight> in_flight_;  // by preemptor uid, guarded by mu_
  // Pods whose asynchronous preemption runs, by uid; guarded by mu_.
  std::unordered_map<std::string, std::optional<LastVictim>> preempting_;
};

}  // namespace ksched::scheduler::framework::preemption
