// Plugin interfaces of the scheduling and binding cycles (kube's fwk
// PreFilterPlugin ... PostBindPlugin), plus the small result types they
// exchange with the framework. The queue-side interfaces (QueueSort,
// PreEnqueue, EnqueueExtensions) and Plugin itself are in interface.h.
//
// A plugin is one object deriving from any number of these interfaces (all
// derive virtually from Plugin); the runtime finds them with dynamic_cast.
//
// Status conventions (enforced by the runtime, see runtime/framework.h):
//   PreFilter   Success | Skip (skip this plugin's Filter and PreFilter
//               extensions this cycle) | Unschedulable* | Error
//   Filter      Success | Unschedulable | UnschedulableAndUnresolvable |
//               Pending | Error (anything else is turned into Error)
//   PostFilter  Success (pod may fit after e.g. preemption) | Unschedulable*
//               | Error
//   PreScore    Success | Skip (skip this plugin's Score) | Error
//   Score       Success with a score, or Error
//   Reserve     Success | rejection | Error; Unreserve must be idempotent
//   Permit      Success | Wait (with a timeout, capped at 15 min) |
//               rejection | Error
//   PreBind     Success | rejection | Error
//   Bind        Skip (let the next Bind plugin do it) | Success | rejection
//               | Error
//
// Arguments: `pod` is the pod being scheduled (for Reserve and later: the
// assumed copy with spec.nodeName set). NodeInfo pointers and references
// come from the cycle's snapshot (or a clone of one of its entries) and are
// valid for the cycle. Node names passed as string_view are valid for the
// call.
//
// Thread-safety: Filter, Score and the PreFilter extensions are called
// concurrently for different nodes with the same CycleState; the other
// methods are called from one thread per pod, but different pods' binding
// cycles run concurrently (Permit/PreBind/Bind/PostBind/Unreserve).
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/scheduler/framework/nominating_info.h"
#include "pkg/scheduler/framework/status.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::framework {

inline constexpr int64_t kMaxNodeScore = 100;
inline constexpr int64_t kMinNodeScore = 0;
inline constexpr int64_t kMaxTotalScore = std::numeric_limits<int64_t>::max();

// The nodes a PreFilter plugin allows; unset node_names means "all nodes".
struct PreFilterResult {
  std::optional<std::set<std::string, std::less<>>> node_names;

  static PreFilterResult AllNodesResult() { return {}; }
  static PreFilterResult Nodes(std::set<std::string, std::less<>> names) { return {std::move(names)}; }

  bool AllNodes() const { return !node_names.has_value(); }
  // Whether `node` is allowed.
  bool Allows(std::string_view node) const { return AllNodes() || node_names->count(node) > 0; }
  // The intersection of both results (all nodes when both allow all).
  PreFilterResult Merge(const PreFilterResult& other) const;

  bool operator==(const PreFilterResult&) const = default;
};

// Incremental updates of a PreFilter plugin's CycleState when a pod is
// hypothetically added to / removed from a node (nominated pods, preemption
// victims). `node_info` already reflects the change.
class PreFilterExtensions {
 public:
  virtual ~PreFilterExtensions() = default;
  virtual Status AddPod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfoPtr& pod_info_to_add,
                        const NodeInfo& node_info) = 0;
  virtual Status RemovePod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfoPtr& pod_info_to_remove,
                           const NodeInfo& node_info) = 0;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  // `nodes` is every node of the snapshot. The result narrows the nodes
  // Filter looks at; ignored unless the status is Success.
  virtual std::pair<PreFilterResult, Status> PreFilter(CycleState& state, const api::Pod& pod,
                                                       const NodeInfoList& nodes) = 0;
  // nullptr when the plugin has no AddPod/RemovePod extensions.
  virtual PreFilterExtensions* GetPreFilterExtensions() { return nullptr; }
};

// FilterNodes' loop: filter(node) for each node of `nodes` whose bit is set
// in `*alive`; a status other than success goes to out[i] and clears the
// node's bit.
template <class FilterNode>
void FilterEachAlive(std::span<const NodeInfo* const> nodes, uint64_t* alive, Status* out, const FilterNode& filter) {
  for (uint64_t left = *alive; left != 0; left &= left - 1) {
    const size_t i = static_cast<size_t>(std::countr_zero(left));
    Status s = filter(*nodes[i]);
    if (s.IsSuccess()) continue;
    out[i] = std::move(s);
    *alive &= ~(uint64_t{1} << i);
  }
}

class FilterPlugin : public virtual Plugin {
 public:
  virtual Status Filter(CycleState& state, const api::Pod& pod, const NodeInfo& node_info) = 0;
  // Filters a run of at most 64 nodes: each node i whose bit is set in
  // `*alive` gets what Filter gives nodes[i]; one that does not pass gets
  // that status in out[i] and its bit cleared. Nodes whose bit is clear are
  // not visited, and out[i] of a node that passes is left alone. The
  // framework filters in runs; the default calls Filter per node. A plugin
  // overrides it to do its per-call work (reading its cycle state) once per
  // run instead of once per node.
  virtual void FilterNodes(CycleState& state, const api::Pod& pod, std::span<const NodeInfo* const> nodes,
                           uint64_t* alive, Status* out);
  // Whether Filter may read the node's labels: a hint for the cycle, which
  // starts loading every node's labels only when a plugin left to run reads
  // them. A wrong answer costs time, never a result; true unless a plugin
  // says otherwise.
  virtual bool ReadsNodeLabels() const { return true; }
};

// Per-node filter statuses of a failed Filter phase (kube's NodeToStatus):
// explicit statuses for nodes that were filtered, and one status for every
// node not listed (nodes filtered out by PreFilterResult, or not evaluated);
// by default UnschedulableAndUnresolvable.
//
// Thread-safety: none; fill it from one thread.
class NodeToStatus {
 public:
  NodeToStatus();

  // The explicit status of `node_name`, else the absent-nodes status.
  const Status& Get(std::string_view node_name) const;
  void Set(std::string node_name, Status status);
  // Room for `nodes` explicit entries without rehashing.
  void Reserve(size_t nodes) { statuses_.reserve(nodes); }
  // Number of explicit entries.
  size_t Len() const { return statuses_.size(); }
  const Status& AbsentNodesStatus() const { return absent_; }
  void SetAbsentNodesStatus(Status status) { absent_ = std::move(status); }
  const std::unordered_map<std::string, Status>& ExplicitStatuses() const { return statuses_; }

  // The nodes of `lister` whose status (explicit or absent) has `code`, in
  // the lister's order.
  NodeInfoList NodesForStatusCode(const NodeInfoLister& lister, Code code) const;

 private:
  std::unordered_map<std::string, Status> statuses_;
  Status absent_;
};

struct PostFilterResult {
  // Unset: nothing to say about the nominated node (kNoop).
  std::optional<NominatingInfo> nominating_info;

  NominatingMode Mode() const { return nominating_info ? nominating_info->mode : NominatingMode::kNoop; }
};

class PostFilterPlugin : public virtual Plugin {
 public:
  virtual std::pair<PostFilterResult, Status> PostFilter(CycleState& state, const api::Pod& pod,
                                                         const NodeToStatus& filtered_node_status) = 0;
};

class PreScorePlugin : public virtual Plugin {
 public:
  // `nodes` are the feasible nodes that will be scored.
  virtual Status PreScore(CycleState& state, const api::Pod& pod, const NodeInfoList& nodes) = 0;
};

// One node's score from one plugin. `name` points into the snapshot's Node
// and is valid for the cycle.
struct NodeScore {
  std::string_view name;
  int64_t score = 0;
};
using NodeScoreList = std::vector<NodeScore>;

class ScoreExtensions {
 public:
  virtual ~ScoreExtensions() = default;
  // Rewrites `scores` (one entry per scored node, in node order) into
  // [kMinNodeScore, kMaxNodeScore].
  virtual Status NormalizeScore(CycleState& state, const api::Pod& pod, NodeScoreList& scores) = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  // The node's score; must be in [0, 100] unless NormalizeScore rescales it.
  virtual std::pair<int64_t, Status> Score(CycleState& state, const api::Pod& pod, const NodeInfo& node_info) = 0;
  // Scores a run of nodes: sets out[i].score to what Score gives nodes[i],
  // in order, and returns the first failure (leaving the rest unset). The
  // framework scores in runs of nodes; the default calls Score per node. A
  // plugin overrides it to do its per-call work (reading its cycle state,
  // dispatching on its strategy) once per run instead of once per node.
  virtual Status ScoreNodes(CycleState& state, const api::Pod& pod, std::span<const NodeInfo* const> nodes,
                            NodeScore* out);
  // nullptr when the plugin does not normalize.
  virtual ScoreExtensions* GetScoreExtensions() { return nullptr; }
};

class ReservePlugin : public virtual Plugin {
 public:
  virtual Status Reserve(CycleState& state, const api::Pod& pod, std::string_view node_name) = 0;
  // Undoes Reserve; also called for plugins whose Reserve did not run or
  // failed, so it must be idempotent and tolerate that.
  virtual void Unreserve(CycleState& state, const api::Pod& pod, std::string_view node_name) = 0;
};

class PermitPlugin : public virtual Plugin {
 public:
  // A Wait status comes with how long to wait for an Allow before the pod is
  // rejected.
  virtual std::pair<Status, util::Duration> Permit(CycleState& state, const api::Pod& pod,
                                                   std::string_view node_name) = 0;
};

class PreBindPlugin : public virtual Plugin {
 public:
  // Whether PreBind will do work for the pod on `node_name`: Success (it
  // will), Skip (it will not, and is then not run) or Error; anything else
  // is an error. Asked before Permit's wait with
  // NominatedNodeNameForExpectation, when the pod's nomination tells other
  // components where it goes. The default says it will, so that a plugin
  // that does not answer is always run.
  virtual Status PreBindPreFlight(CycleState& state, const api::Pod& pod, std::string_view node_name);
  // Whether this PreBind may run at the same time as other such plugins'
  // (kube 1.36's PreBindPreFlightResult.AllowParallel, honoured from 1.36
  // when PreBindPreFlight ran). A PreBind that waits should wait under
  // state.PreBindCancellation(): it is cancelled when a plugin running
  // beside it fails, or when preemption takes the pod.
  virtual bool AllowsParallelPreBind() const { return false; }
  virtual Status PreBind(CycleState& state, const api::Pod& pod, std::string_view node_name) = 0;
};

class BindPlugin : public virtual Plugin {
 public:
  virtual Status Bind(CycleState& state, const api::Pod& pod, std::string_view node_name) = 0;
};

class PostBindPlugin : public virtual Plugin {
 public:
  virtual void PostBind(CycleState& state, const api::Pod& pod, std::string_view node_name) = 0;
};

}  // namespace ksched::scheduler::framework
