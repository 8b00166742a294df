// NodeResourcesFit: rejects nodes without room for the pod's resource
// requests and scores the rest by a configurable allocation strategy
// (kube's noderesources.Fit, v1.34 semantics).
//
// PreFilter computes the pod's requests once (api::PodRequests: containers,
// sidecars, init containers, overhead) into the CycleState. Filter compares
// them with each node's allocatable minus requested:
//   "Too many pods"                  pods on the node + 1 > allocatable pods
//   "Insufficient cpu|memory|ephemeral-storage|<scalar resource>"
// Extended resources named in ignoredResources, or whose domain ("x.com" of
// "x.com/gpu") is in ignoredResourceGroups, are not checked. All reasons are
// reported; the code is UnschedulableAndUnresolvable when some request
// exceeds the node's whole allocatable (preemption cannot help), else
// Unschedulable. Filter allocates only when it rejects.
// With DRAExtendedResource (FitOptions::dra set) a requested resource that
// a DeviceClass serves (framework::SharedDRAManager::ExtendedResources) and
// that the node does not advertise (allocatable 0 or absent) is not checked
// here: DynamicResources allocates it from ResourceSlices. A node that does
// advertise it is checked as usual (its device plugin serves it).
//
// PreScore/Score: LeastAllocated, MostAllocated or RequestedToCapacityRatio
// over the configured resources and weights (resource_allocation.h; with
// DRAExtendedResource a configured resource a class serves is scored over
// the node's devices of that class).
//
// Events (kube-scheduler v1.34):
//   Pod/Delete (+UpdatePodScaleDown with in-place pod resize): a deleted pod
//     matters only if it was assigned or nominated; a scale-down only if it
//     is this pod, or an assigned pod released a resource this pod requests;
//   Node/Add|UpdateNodeAllocatable (hints off: also UpdateNodeTaint|
//     UpdateNodeLabel): QueueSkip when the pod would not fit even an empty
//     node of that size (ignoredResources are not applied here, as in kube);
//     an added node that fits queues; an update queues only if the allowed
//     pod count or the allocatable of a resource the pod requests grew,
//     or (DRAExtendedResource) the pod requests a resource a class serves
//     and the node does not advertise;
//   DeviceClass/Add|Update (DRAExtendedResource only): queues when the
//     class's extendedResourceName changed (or it was added) and the pod
//     requests it, or an added class's implicit name is requested.
//
// Filter's "fits" and Score's score are kept in each node's NodeMemo for a
// pod that requests no scalar resource (node_memo.h), under a key naming
// the pod's requests; the next alike pod's cycle reads them from there.
//
// Thread-safety: immutable after construction but for its memo keys, which
// are thread-safe; safe to call concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <span>

#include "pkg/config/plugin_args.h"
#include "pkg/scheduler/plugins/noderesources/fit_args.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/shared_dra_manager.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/pod_signature.h"
#include "pkg/scheduler/plugins/noderesources/resource_allocation.h"

namespace ksched::scheduler::plugins::noderesources {

inline constexpr std::string_view kFitName = "NodeResourcesFit";
inline constexpr std::string_view kFitPreFilterStateKey = "PreFilterNodeResourcesFit";
inline constexpr std::string_view kFitPreScoreStateKey = "PreScoreNodeResourcesFit";

// One resource the node lacks for the pod.
struct InsufficientResource {
  std::string resource_name;
  // The Filter reason: "Too many pods" or "Insufficient <name>".
  std::string reason;
  int64_t requested = 0;
  int64_t used = 0;
  int64_t capacity = 0;
  // The request alone exceeds the node's allocatable.
  bool unresolvable = false;
};

// The pod's requests as NodeResourcesFit counts them.
framework::Resource ComputePodResourceRequest(const api::Pod& pod);

using NameSet = std::set<std::string, std::less<>>;

// Every resource that does not fit; empty when the pod fits. `ignored` and
// `ignored_groups` may be null (nothing ignored). Allocates only when
// something does not fit.
// `dra_backed` (may be null) names the requested resources a DeviceClass
// serves: those the node does not advertise are left to DynamicResources.
std::vector<InsufficientResource> FitsRequest(const framework::Resource& pod_request,
                                              const framework::NodeInfo& node_info, const NameSet* ignored,
                                              const NameSet* ignored_groups, const NameSet* dra_backed = nullptr);
// Convenience: FitsRequest(ComputePodResourceRequest(pod), node_info), nothing
// ignored.
std::vector<InsufficientResource> Fits(const api::Pod& pod, const framework::NodeInfo& node_info);

struct FitOptions {
  // kube's InPlacePodVerticalScaling gate (on by default since v1.33):
  // registers Pod/UpdatePodScaleDown.
  bool enable_in_place_pod_vertical_scaling = true;
  bool enable_queueing_hints = true;
  // DRAExtendedResource: the DRA state; null when the gate is off.
  std::shared_ptr<const framework::SharedDRAManager> dra;
};

// The pod's requested resources (non-zero) that a class in `classes` serves.
NameSet DraBackedResources(const framework::Resource& pod_request, const framework::ExtendedResourceClasses& classes);

class Fit final : public framework::SignPlugin,
                  public framework::PreFilterPlugin,
                  public framework::FilterPlugin,
                  public framework::PreScorePlugin,
                  public framework::ScorePlugin,
                  public framework::EnqueueExtensions {
 public:
  // `args` must be valid (ValidateNodeResourcesFitArgs).
  Fit(const NodeResourcesFitArgs& args, FitOptions options);

  std::string_view Name() const override { return kFitName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;

  std::pair<framework::PreFilterResult, framework::Status> PreFilter(framework::CycleState& state, const api::Pod& pod,
                                                                     const framework::NodeInfoList& nodes) override;
  framework::Status Filter(framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // Reads PreFilter's state once per run.
  void FilterNodes(framework::CycleState& state, const api::Pod& pod, std::span<const framework::NodeInfo* const> nodes,
                   uint64_t* alive, framework::Status* out) override;
  bool ReadsNodeLabels() const override { return false; }
  framework::Status PreScore(framework::CycleState& state, const api::Pod& pod,
                             const framework::NodeInfoList& nodes) override;
  std::pair<int64_t, framework::Status> Score(framework::CycleState& state, const api::Pod& pod,
                                              const framework::NodeInfo& node_info) override;
  framework::Status ScoreNodes(framework::CycleState& state, const api::Pod& pod,
                               std::span<const framework::NodeInfo* const> nodes, framework::NodeScore* out) override;
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  // Queueing hints (see the header comment).
  util::StatusOr<framework::QueueingHint> IsSchedulableAfterPodEvent(const api::Pod& pod,
                                                                     const framework::EventObject& old_obj,
                                                                     const framework::EventObject& new_obj) const;
  // `classes`: DRAExtendedResource's mapping, null when the gate is off.
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterNodeChange(
      const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj,
      const framework::ExtendedResourceClasses* classes = nullptr);
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterDeviceClassEvent(
      const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj);

 private:
  NameSet ignored_resources_;
  NameSet ignored_resource_groups_;
  FitOptions options_;
  ResourceAllocationScorer scorer_;
  // Keys of the answers kept in the nodes' memo (see PreFilter).
  framework::NodeMemoKeys memo_keys_;
};

// The plugin from its profile args (std::monostate: the defaults; anything
// else but NodeResourcesFitArgs, or invalid args, is an InvalidArgument).
// `dra` is used when features.dra_extended_resource is on (null: the
// gate's delegation and scoring are off).
util::StatusOr<std::unique_ptr<Fit>> NewFit(const config::PluginArgs& args, const framework::FeatureGates& features,
                                           std::shared_ptr<const framework::SharedDRAManager> dra = nullptr);

}  // namespace ksched::scheduler::plugins::noderesources
