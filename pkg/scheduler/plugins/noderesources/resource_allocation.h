// ResourceAllocationScorer: the node scoring shared by NodeResourcesFit
// (LeastAllocated, MostAllocated, RequestedToCapacityRatio) and
// NodeResourcesBalancedAllocation (kube's resourceAllocationScorer).
//
// For each configured resource i the scorer looks at
//   allocatable[i] = the node's allocatable amount, and
//   requested[i]   = what the node's pods request + what the pod requests,
// where "what the node's pods request" is NodeInfo::non_zero_requested() for
// cpu and memory unless `use_requested` (pods that set no request count
// 100m / 200Mi, so empty pods still spread), and NodeInfo::requested()
// otherwise. A scalar (extended) resource the pod does not request, or that
// the node does not offer, is left out (allocatable 0), and so is any name
// NodeInfo does not track ("pods", unknown names). The strategy function
// (ScoreFn) then turns the two arrays into a score in [0, 100]; every
// strategy ignores entries whose allocatable is 0.
//
// The pod side is api::PodRequests with the options each plugin gives, as
// in kube v1.34: NodeResourcesBalancedAllocation counts pod-level resources
// and a resize's status resources; NodeResourcesFit's scoring counts
// neither (its scorer is built without those feature flags), though its
// Filter counts pod-level resources.
//
// With DRAExtendedResource, a configured extended resource that a
// DeviceClass serves and that the node does not advertise (allocatable 0)
// is scored over the node's devices of that class instead: allocatable =
// the devices that reach the node, allocated = those claims hold (kube
// 1.37's calculateDRAExtendedResourceAllocatableRequest). GatherDra() takes
// the cycle's device view once, in PreScore.
//
// PodRequests() computes the pod side once per cycle (PreScore); Score()
// runs per node without allocating for up to kInlineResources resources.
// ScoreNodes can keep each node's score in its NodeMemo (node_memo.h) for
// scorers of cpu, memory and ephemeral storage only: the score is then a
// function of the node's sums and the pod's requests, which the caller's
// key names.
//
// Thread-safety: immutable after construction; safe to call concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/resource_helpers.h"
#include "pkg/config/args_fields.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/framework/node_memo.h"
#include "pkg/scheduler/framework/shared_dra_manager.h"
#include "pkg/scheduler/plugins/helper/shape_score.h"
#include "pkg/scheduler/plugins/noderesources/resource_spec_args.h"

namespace ksched::scheduler::plugins::noderesources {

// Turns per-resource amounts (n entries each) into a node score: requested
// with the pod, allocated without it, and the node's allocatable. One of
// kube's strategies, built by the functions below; a value, and a plain
// switch rather than an indirect call, so ResourceAllocationScorer picks
// the strategy once per run of nodes and each node's score is inlined.
class ScoreFn {
 public:
  enum class Strategy { kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio, kBalanced, kBalancedChange };

  int64_t operator()(const int64_t* requested, const int64_t* allocated, const int64_t* allocatable,
                     size_t n) const;
  Strategy strategy() const { return strategy_; }

 private:
  friend class ResourceAllocationScorer;
  friend ScoreFn LeastAllocatedScorer(const std::vector<ResourceSpec>&);
  friend ScoreFn MostAllocatedScorer(const std::vector<ResourceSpec>&);
  friend ScoreFn RequestedToCapacityRatioScorer(const std::vector<ResourceSpec>&,
                                                const std::vector<config::UtilizationShapePoint>&);
  friend ScoreFn BalancedAllocationScorer(bool);
  ScoreFn(Strategy strategy, const std::vector<ResourceSpec>& resources,
          std::vector<helper::ShapePoint> shape = {});
  // operator() with the strategy known at compile time (inline in the .cc,
  // where ResourceAllocationScorer's per-run loops use it).
  template <Strategy S>
  int64_t Score(const int64_t* requested, const int64_t* allocated, const int64_t* allocatable, size_t n) const;

  Strategy strategy_;
  std::vector<int64_t> weights_;  // per resource; the weighted strategies only
  std::vector<helper::ShapePoint> shape_;  // kRequestedToCapacityRatio
};

// A resource's contribution under each strategy; exposed for tests.
// ((capacity - requested) * 100) / capacity, 0 when over capacity.
int64_t LeastRequestedScore(int64_t requested, int64_t capacity);
// (requested * 100) / capacity with requested capped at capacity.
int64_t MostRequestedScore(int64_t requested, int64_t capacity);

// What PreScore gathered for scoring extended resources served by DRA.
struct DraScoring {
  std::shared_ptr<const framework::ExtendedResourceClasses> classes;  // owns by_resource's classes
  std::vector<const api::DeviceClass*> by_resource;  // per configured resource; nullptr: not served by a class
  std::shared_ptr<const framework::DeviceCapacityView> devices;
};

// Weighted average of LeastRequestedScore (weights from `resources`).
ScoreFn LeastAllocatedScorer(const std::vector<ResourceSpec>& resources);
// Weighted average of MostRequestedScore.
ScoreFn MostAllocatedScorer(const std::vector<ResourceSpec>& resources);
// The piecewise-linear `shape` (scores 0-10, scaled to 0-100) applied to each
// resource's utilization percentage; resources scoring 0 are left out of the
// weighted average, which is rounded to nearest.
ScoreFn RequestedToCapacityRatioScorer(const std::vector<ResourceSpec>& resources,
                                       const std::vector<config::UtilizationShapePoint>& shape);
// (1 - standard deviation of the utilization fractions, each capped at 1)
// * 100; for two resources the deviation is |f1 - f2| / 2.
int64_t BalancedResourceScore(const int64_t* requested, const int64_t* allocatable, size_t n);
// NodeResourcesBalancedAllocation's score: BalancedResourceScore with the
// pod, or (half_difference, kube 1.36) 50 + (50 + with pod - without) / 2,
// which rewards the change in balance the pod brings.
ScoreFn BalancedAllocationScorer(bool half_difference);

// Where ScoreNodes keeps the scores it computes: a slot of each node's
// NodeMemo, under a key naming the scorer and the pod's requests (0: keep
// nothing). A stored byte is `flags | (score + 1)`, `flags` in bit 7.
struct ScoreMemo {
  framework::NodeMemoRef where;
  uint8_t flags = 0;
};

class ResourceAllocationScorer {
 public:
  // Configured resources beyond this many make Score() use the heap.
  static constexpr size_t kInlineResources = 16;

  // `pod_options`: how the pod's requests are computed (the non-zero
  // defaults are added unless `use_requested`).
  ResourceAllocationScorer(std::vector<ResourceSpec> resources, bool use_requested, ScoreFn scorer,
                           api::PodResourcesOptions pod_options);

  const std::vector<ResourceSpec>& resources() const { return resources_; }

  // The pod's request of each configured resource (cpu in millicores), with
  // kube's non-zero cpu/memory defaults unless `use_requested`.
  std::vector<int64_t> PodRequests(const api::Pod& pod) const;
  // True when every entry is 0.
  static bool IsBestEffort(const std::vector<int64_t>& pod_requests);

  // kube's getDRAPreScoredParams: nullptr unless `dra` is set and a class
  // serves one of the configured resources; else the classes and the
  // cycle's device view.
  std::shared_ptr<const DraScoring> GatherDra(const framework::SharedDRAManager* dra) const;

  // The node's score; Error "resources not found" when no resource is
  // configured. `dra`: GatherDra's result (may be null).
  std::pair<int64_t, framework::Status> Score(const framework::NodeInfo& node_info,
                                              const std::vector<int64_t>& pod_requests,
                                              const DraScoring* dra = nullptr) const;
  // Score for each of `nodes`, into out[i].score; read from and kept in
  // the nodes' memo as `memo` says when every resource is cpu, memory or
  // ephemeral storage.
  framework::Status ScoreNodes(std::span<const framework::NodeInfo* const> nodes,
                               const std::vector<int64_t>& pod_requests, const DraScoring* dra,
                               framework::NodeScore* out, const ScoreMemo& memo = {}) const;
  // Whether ScoreNodes uses a memo (every resource is a field).
  bool MemoizesScores() const { return only_fields_; }

 private:
  // kField: cpu, memory or ephemeral-storage, read through field_reads_.
  enum class Kind { kField, kScalar, kUntracked };

  // Where a kField amount is read: the field, and whether the node side is
  // NodeInfo::requested() even when the scorer counts non-zero requests.
  struct FieldRead {
    int64_t framework::Resource::* field;
    bool always_requested;
  };

  // The node's score, with at least one resource configured.
  int64_t ScoreConfigured(const framework::NodeInfo& node_info, const std::vector<int64_t>& pod_requests,
                          const DraScoring* dra) const;
  // ScoreNodes when every resource is a field (only_fields_), with the
  // strategy fixed: each node's amounts are read through member pointers,
  // with no per-resource switch, and its score is computed inline.
  // kResources: the number of resources when known at compile time (the
  // default profile's two, unrolled), 0 when read from field_reads_.
  template <ScoreFn::Strategy S, size_t kResources>
  void ScoreFieldsOnly(std::span<const framework::NodeInfo* const> nodes, const std::vector<int64_t>& pod_requests,
                       framework::NodeScore* out, const ScoreMemo& memo) const;
  // What the node's pods request of `f`'s resource.
  const framework::Resource& NodeSide(const framework::NodeInfo& node_info, const FieldRead& f) const {
    return ReadsRequested(f) ? node_info.requested() : node_info.non_zero_requested();
  }
  // Whether NodeSide is the node's requested() (else non_zero_requested()).
  bool ReadsRequested(const FieldRead& f) const { return use_requested_ || f.always_requested; }
  // Fills the i-th allocatable / requested pair; the scalar kind's out of
  // line.
  void AllocatableAndRequested(const framework::NodeInfo& node_info, size_t i, int64_t pod_request,
                               const DraScoring* dra, int64_t* allocatable, int64_t* requested) const;
  void ScalarAllocatableAndRequested(const framework::NodeInfo& node_info, size_t i, int64_t pod_request,
                                     const DraScoring* dra, int64_t* allocatable, int64_t* requested) const;
  // The i-th resource's devices on the node; zero when the view fails.
  framework::DeviceTotals DraTotals(const framework::NodeInfo& node_info, const DraScoring& dra, size_t i) const;

  std::vector<ResourceSpec> resources_;
  std::vector<Kind> kinds_;  // parallel to resources_
  std::vector<FieldRead> field_reads_;  // parallel to resources_; null field unless kField
  // Every resource is cpu, memory or ephemeral-storage, at most
  // kInlineResources of them.
  bool only_fields_ = true;
  bool may_be_dra_backed_ = false;  // some resource has an extended resource name
  bool use_requested_;
  ScoreFn scorer_;
  api::PodResourcesOptions pod_options_;
};

// What a scoring plugin's PreScore leaves for Score: the pod's request of
// each resource its scorer scores (ResourceAllocationScorer::PodRequests),
// GatherDra's result and the key of the scores' memo (0: none). Immutable
// once written, so clones share it.
class PodRequestsState final : public framework::StateData,
                               public std::enable_shared_from_this<PodRequestsState> {
 public:
  explicit PodRequestsState(std::vector<int64_t> pod_requests, std::shared_ptr<const DraScoring> dra = nullptr,
                            uint64_t memo_key = 0)
      : pod_requests(std::move(pod_requests)), dra(std::move(dra)), memo_key(memo_key) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<PodRequestsState>(shared_from_this());
  }
  const std::vector<int64_t> pod_requests;
  const std::shared_ptr<const DraScoring> dra;
  const uint64_t memo_key;
};

}  // namespace ksched::scheduler::plugins::noderesources
