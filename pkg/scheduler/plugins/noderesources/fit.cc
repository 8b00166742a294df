#include "pkg/scheduler/plugins/noderesources/fit.h"

#include <variant>

#include "pkg/api/pod_helpers.h"
#include "pkg/api/resource_helpers.h"
#include "pkg/config/errors.h"
#include "pkg/config/args_as.h"

namespace ksched::scheduler::plugins::noderesources {

using framework::ActionType;
using framework::QueueingHint;
using framework::Resource;

namespace {

// Interned once: the per-node reads index a slot.
const framework::StateKey kFitPreFilterStateKeySlot(kFitPreFilterStateKey);
const framework::StateKey kFitPreScoreStateKeySlot(kFitPreScoreStateKey);

// The pod's requests for Filter, and for Score when the memo is used.
// Immutable once written: clones share it.
class PreFilterState final : public framework::StateData, public std::enable_shared_from_this<PreFilterState> {
 public:
  PreFilterState(Resource request, NameSet dra_backed, std::vector<int64_t> score_requests, uint64_t memo_key)
      : request(std::move(request)),
        dra_backed(std::move(dra_backed)),
        score_requests(std::move(score_requests)),
        memo_key(memo_key) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<PreFilterState>(shared_from_this());
  }
  const Resource request;
  // DRAExtendedResource: the requested resources a DeviceClass serves.
  const NameSet dra_backed;
  // Set with memo_key: the scorer's PodRequests, which the key covers.
  const std::vector<int64_t> score_requests;
  // The key of this pod's answers in the nodes' kNodeResourcesFit memo
  // slot; 0 when the pod requests a scalar resource (its answer may then
  // depend on DRA's state) or the memo is off.
  const uint64_t memo_key;
};

// In the kNodeResourcesFit slot: the pod fits (the score, when known, is
// in the low bits).
constexpr uint8_t kMemoFits = 0x80;

// Filter's answer for one node.
framework::Status FitStatus(const PreFilterState& s, const framework::NodeInfo& node_info, const NameSet& ignored,
                            const NameSet& ignored_groups) {
  std::vector<InsufficientResource> insufficient =
      FitsRequest(s.request, node_info, &ignored, &ignored_groups, s.dra_backed.empty() ? nullptr : &s.dra_backed);
  if (insufficient.empty()) return framework::Status();
  framework::Code code = framework::Code::kUnschedulable;
  std::vector<std::string> reasons;
  reasons.reserve(insufficient.size());
  for (InsufficientResource& r : insufficient) {
    if (r.unresolvable) code = framework::Code::kUnschedulableAndUnresolvable;
    reasons.push_back(std::move(r.reason));
  }
  return framework::Status(code, std::move(reasons));
}

bool IsZeroRequest(const Resource& r) {
  return r.milli_cpu == 0 && r.memory == 0 && r.ephemeral_storage == 0 && r.scalar_resources.empty();
}

// Records a shortfall of `name`; out of line, so that FitsRequestImpl's
// checks stay small enough to inline.
[[gnu::noinline]] void AddInsufficient(std::vector<InsufficientResource>& out, std::string_view name, int64_t requested,
                                       int64_t in_use, int64_t capacity) {
  out.push_back({std::string(name), "Insufficient " + std::string(name), requested, in_use, capacity,
                 requested > capacity});
}

// FitsRequest over raw aggregates, so that queueing hints can ask about an
// empty node of a given size without building a NodeInfo.
std::vector<InsufficientResource> FitsRequestImpl(const Resource& pod_request, const Resource& allocatable,
                                                  const Resource& used, int64_t num_pods, const NameSet* ignored,
                                                  const NameSet* ignored_groups, const NameSet* dra_backed) {
  std::vector<InsufficientResource> out;
  if (num_pods + 1 > allocatable.allowed_pod_number) {
    out.push_back(
        {std::string(api::kResourcePods), "Too many pods", 1, num_pods, allocatable.allowed_pod_number, false});
  }
  if (IsZeroRequest(pod_request)) return out;

  // Small enough to inline per node and resource; the rare shortfall is
  // recorded out of line.
  auto check = [&out](std::string_view name, int64_t requested, int64_t in_use, int64_t capacity) {
    if (requested > 0 && requested > capacity - in_use) AddInsufficient(out, name, requested, in_use, capacity);
  };
  check(api::kResourceCPU, pod_request.milli_cpu, used.milli_cpu, allocatable.milli_cpu);
  check(api::kResourceMemory, pod_request.memory, used.memory, allocatable.memory);
  check(api::kResourceEphemeralStorage, pod_request.ephemeral_storage, used.ephemeral_storage,
        allocatable.ephemeral_storage);

  for (const auto& [name, quantity] : pod_request.scalar_resources) {
    if (quantity == 0) continue;
    if (api::IsExtendedResourceName(name)) {
      if (ignored != nullptr && ignored->count(name) > 0) continue;
      if (ignored_groups != nullptr && !ignored_groups->empty()) {
        // Extended resource names always have a domain ("example.com/foo").
        const std::string_view group = std::string_view(name).substr(0, name.find('/'));
        if (ignored_groups->count(group) > 0) continue;
      }
    }
    // Served through DRA where the node's device plugin does not serve it.
    if (dra_backed != nullptr && allocatable.Scalar(name) <= 0 && dra_backed->count(name) > 0) continue;
    check(name, quantity, used.Scalar(name), allocatable.Scalar(name));
  }
  return out;
}

bool HaveAnyRequestedResourcesIncreased(const Resource& pod_request, const Resource& original,
                                        const Resource& modified, const NameSet* dra_backed) {
  if (modified.allowed_pod_number > original.allowed_pod_number) return true;
  if (IsZeroRequest(pod_request)) return false;
  if ((pod_request.milli_cpu > 0 && modified.milli_cpu > original.milli_cpu) ||
      (pod_request.memory > 0 && modified.memory > original.memory) ||
      (pod_request.ephemeral_storage > 0 && modified.ephemeral_storage > original.ephemeral_storage)) {
    return true;
  }
  for (const auto& [name, quantity] : pod_request.scalar_resources) {
    if (quantity == 0) continue;
    if (modified.Scalar(name) > original.Scalar(name)) return true;
    // kube queues whenever such a resource is left to DRA on the node.
    if (dra_backed != nullptr && modified.Scalar(name) <= 0 && dra_backed->count(name) > 0) return true;
  }
  return false;
}

// Whether a scale-down of `modified` (from `original`) may make `target`
// schedulable.
bool IsSchedulableAfterPodScaleDown(const api::Pod& target, const api::Pod& original, const api::Pod& modified) {
  if (modified.metadata.uid == target.metadata.uid) return true;
  // An unassigned pod holds nothing on any node.
  if (modified.spec.node_name.empty()) return false;
  // Bound pods: what a resize left them holding counts.
  const api::PodResourcesOptions opts = api::SchedulingPodRequestOptions();
  Resource before;
  before.SetMaxResource(api::PodRequests(original, opts));
  Resource after;
  after.SetMaxResource(api::PodRequests(modified, opts));
  for (const auto& [name, quantity] : api::PodRequests(target, opts)) {
    if (quantity.IsZero()) continue;
    if (name == api::kResourceCPU) {
      if (before.milli_cpu > after.milli_cpu) return true;
    } else if (name == api::kResourceMemory) {
      if (before.memory > after.memory) return true;
    } else if (name == api::kResourceEphemeralStorage) {
      if (before.ephemeral_storage > after.ephemeral_storage) return true;
    } else if (api::IsScalarResourceName(name) && before.Scalar(name) > after.Scalar(name)) {
      return true;
    }
  }
  return false;
}

// kube v1.34 builds Fit's scorer without its feature flags: the score reads
// neither pod-level resources nor status resources (the Filter does read
// pod-level resources).
api::PodResourcesOptions ScoringPodRequestOptions() {
  api::PodResourcesOptions o;
  o.skip_pod_level_resources = true;
  return o;
}

ScoreFn StrategyScorer(const ScoringStrategy& strategy) {
  if (strategy.type == kMostAllocated) return MostAllocatedScorer(strategy.resources);
  if (strategy.type == kRequestedToCapacityRatio) {
    static const std::vector<config::UtilizationShapePoint> kNoShape;
    return RequestedToCapacityRatioScorer(strategy.resources, strategy.requested_to_capacity_ratio
                                                                  ? strategy.requested_to_capacity_ratio->shape
                                                                  : kNoShape);
  }
  return LeastAllocatedScorer(strategy.resources);
}

ScoringStrategy StrategyOf(const NodeResourcesFitArgs& args) {
  return args.scoring_strategy ? *args.scoring_strategy
                               : ScoringStrategy{kLeastAllocated, {{"cpu", 1}, {"memory", 1}}, {}};
}

}  // namespace

Resource ComputePodResourceRequest(const api::Pod& pod) {
  // Default options: pod-level resources count; a pod being scheduled has no
  // status resources.
  Resource r;
  r.SetMaxResource(api::PodRequests(pod));
  return r;
}

std::vector<InsufficientResource> FitsRequest(const Resource& pod_request, const framework::NodeInfo& node_info,
                                              const NameSet* ignored, const NameSet* ignored_groups,
                                              const NameSet* dra_backed) {
  return FitsRequestImpl(pod_request, node_info.allocatable(), node_info.requested(),
                         static_cast<int64_t>(node_info.pods().size()), ignored, ignored_groups, dra_backed);
}

NameSet DraBackedResources(const Resource& pod_request, const framework::ExtendedResourceClasses& classes) {
  NameSet out;
  if (classes.empty()) return out;
  for (const auto& [name, quantity] : pod_request.scalar_resources) {
    if (quantity != 0 && classes.Lookup(name) != nullptr) out.insert(name);
  }
  return out;
}

std::vector<InsufficientResource> Fits(const api::Pod& pod, const framework::NodeInfo& node_info) {
  return FitsRequest(ComputePodResourceRequest(pod), node_info, nullptr, nullptr);
}

Fit::Fit(const NodeResourcesFitArgs& args, FitOptions options)
    : ignored_resources_(args.ignored_resources.begin(), args.ignored_resources.end()),
      ignored_resource_groups_(args.ignored_resource_groups.begin(), args.ignored_resource_groups.end()),
      options_(options),
      scorer_(StrategyOf(args).resources, /*use_requested=*/false, StrategyScorer(StrategyOf(args)),
              ScoringPodRequestOptions()) {}

std::pair<framework::PreFilterResult, framework::Status> Fit::PreFilter(framework::CycleState& state,
                                                                        const api::Pod& pod,
                                                                        const framework::NodeInfoList&) {
  Resource request = ComputePodResourceRequest(pod);
  NameSet dra_backed;
  if (options_.dra != nullptr && !request.scalar_resources.empty()) {
    dra_backed = DraBackedResources(request, *options_.dra->ExtendedResources());
  }
  // With a memo, one key covers the Filter's and the Score's pod side, so
  // that a node's score also tells that the pod fits it.
  std::vector<int64_t> score_requests;
  uint64_t memo_key = 0;
  if (request.scalar_resources.empty() && scorer_.MemoizesScores()) {
    score_requests = scorer_.PodRequests(pod);
    std::vector<int64_t> fingerprint = {request.milli_cpu, request.memory, request.ephemeral_storage,
                                        request.allowed_pod_number};
    fingerprint.insert(fingerprint.end(), score_requests.begin(), score_requests.end());
    memo_key = memo_keys_.KeyFor(fingerprint);
  }
  state.SetFilterResourceMemo({framework::NodeMemo::kNodeResourcesFit, memo_key});
  state.Write(kFitPreFilterStateKeySlot, std::make_shared<PreFilterState>(std::move(request), std::move(dra_backed),
                                                                          std::move(score_requests), memo_key));
  return {framework::PreFilterResult(), framework::Status()};
}

framework::Status Fit::Filter(framework::CycleState& state, const api::Pod& /*pod*/,
                              const framework::NodeInfo& node_info) {
  PreFilterState* s = state.Lookup<PreFilterState>(kFitPreFilterStateKeySlot);
  if (s == nullptr) {
    return framework::Status::Error("error reading \"" + std::string(kFitPreFilterStateKey) +
                                    "\" from cycleState: not found");
  }
  return FitStatus(*s, node_info, ignored_resources_, ignored_resource_groups_);
}

void Fit::FilterNodes(framework::CycleState& state, const api::Pod& pod,
                      std::span<const framework::NodeInfo* const> nodes, uint64_t* alive, framework::Status* out) {
  const PreFilterState* s = state.Lookup<PreFilterState>(kFitPreFilterStateKeySlot);
  // Without PreFilter's state every node gets Filter's error.
  if (s == nullptr) return FilterPlugin::FilterNodes(state, pod, nodes, alive, out);
  const Resource& request = s->request;
  // Without scalar requests a node that fits is told by four comparisons;
  // only a node that does not fit needs FitStatus's reasons.
  const bool fields_only = request.scalar_resources.empty();
  auto fits_fields = [&request](const framework::NodeInfo& node) {
    const Resource& allocatable = node.allocatable();
    const Resource& used = node.requested();
    auto room = [](int64_t requested, int64_t in_use, int64_t capacity) {
      return requested <= 0 || requested <= capacity - in_use;
    };
    return static_cast<int64_t>(node.pods().size()) + 1 <= allocatable.allowed_pod_number &&
           room(request.milli_cpu, used.milli_cpu, allocatable.milli_cpu) &&
           room(request.memory, used.memory, allocatable.memory) &&
           room(request.ephemeral_storage, used.ephemeral_storage, allocatable.ephemeral_storage);
  };
  const framework::NodeMemoRef memo{framework::NodeMemo::kNodeResourcesFit, s->memo_key};
  framework::FilterEachAlive(nodes, alive, out, [&](const framework::NodeInfo& node) {
    if (memo.Answers(node.memo())) return framework::Status();
    if (fields_only && fits_fields(node)) {
      memo.Write(node.memo(), kMemoFits);
      return framework::Status();
    }
    return FitStatus(*s, node, ignored_resources_, ignored_resource_groups_);
  });
}

framework::Status Fit::PreScore(framework::CycleState& state, const api::Pod& pod, const framework::NodeInfoList&) {
  const PreFilterState* f = state.Lookup<PreFilterState>(kFitPreFilterStateKeySlot);
  if (f != nullptr && f->memo_key != 0) {
    state.Write(kFitPreScoreStateKeySlot, std::make_shared<PodRequestsState>(
                                              f->score_requests, scorer_.GatherDra(options_.dra.get()), f->memo_key));
    return framework::Status();
  }
  state.Write(kFitPreScoreStateKeySlot,
              std::make_shared<PodRequestsState>(scorer_.PodRequests(pod), scorer_.GatherDra(options_.dra.get())));
  return framework::Status();
}

std::pair<int64_t, framework::Status> Fit::Score(framework::CycleState& state, const api::Pod& pod,
                                                 const framework::NodeInfo& node_info) {
  PodRequestsState* s = state.Lookup<PodRequestsState>(kFitPreScoreStateKeySlot);
  // Without PreScore (disabled in the profile) compute the requests here.
  if (s == nullptr) {
    return scorer_.Score(node_info, scorer_.PodRequests(pod), scorer_.GatherDra(options_.dra.get()).get());
  }
  return scorer_.Score(node_info, s->pod_requests, s->dra.get());
}

framework::Status Fit::ScoreNodes(framework::CycleState& state, const api::Pod& pod,
                                  std::span<const framework::NodeInfo* const> nodes, framework::NodeScore* out) {
  PodRequestsState* s = state.Lookup<PodRequestsState>(kFitPreScoreStateKeySlot);
  if (s == nullptr) return ScorePlugin::ScoreNodes(state, pod, nodes, out);
  return scorer_.ScoreNodes(nodes, s->pod_requests, s->dra.get(), out,
                            {{framework::NodeMemo::kNodeResourcesFit, s->memo_key}, kMemoFits});
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> Fit::EventsToRegister() const {
  ActionType pod_actions = ActionType::kDelete;
  if (options_.enable_in_place_pod_vertical_scaling) pod_actions |= ActionType::kUpdatePodScaleDown;
  // Without hints the queue's node pre-check can swallow a Node/Add, so label
  // and taint updates are registered too (kubernetes#109437).
  ActionType node_actions = ActionType::kAdd | ActionType::kUpdateNodeAllocatable;
  if (!options_.enable_queueing_hints) node_actions |= ActionType::kUpdateNodeTaint | ActionType::kUpdateNodeLabel;
  std::vector<framework::ClusterEventWithHint> events;
  events.push_back(
      {framework::ClusterEvent(framework::resource::kPod, pod_actions),
       [this](const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj) {
         return IsSchedulableAfterPodEvent(pod, old_obj, new_obj);
       }});
  if (options_.dra == nullptr) {
    events.push_back({framework::ClusterEvent(framework::resource::kNode, node_actions),
                      [](const api::Pod& pod, const framework::EventObject& o, const framework::EventObject& n) {
                        return IsSchedulableAfterNodeChange(pod, o, n);
                      }});
    return events;
  }
  events.push_back(
      {framework::ClusterEvent(framework::resource::kNode, node_actions),
       [this](const api::Pod& pod, const framework::EventObject& o, const framework::EventObject& n) {
         return IsSchedulableAfterNodeChange(pod, o, n, options_.dra->ExtendedResources().get());
       }});
  // A pod may wait for a class to name the extended resource it requests.
  events.push_back({framework::ClusterEvent(framework::resource::kDeviceClass, ActionType::kAdd | ActionType::kUpdate),
                    &Fit::IsSchedulableAfterDeviceClassEvent});
  return events;
}

util::StatusOr<QueueingHint> Fit::IsSchedulableAfterPodEvent(const api::Pod& pod, const framework::EventObject& old_obj,
                                                             const framework::EventObject& new_obj) const {
  const api::Pod* original = old_obj.As<api::Pod>();
  const api::Pod* modified = new_obj.As<api::Pod>();
  if ((!old_obj.empty() && original == nullptr) || (!new_obj.empty() && modified == nullptr) ||
      (original == nullptr && modified == nullptr)) {
    return util::InvalidArgument("NodeResourcesFit: unexpected objects in a pod event: want Pods");
  }
  if (modified == nullptr) {
    // Deleting a pod that was neither bound nor nominated frees nothing.
    if (original->spec.node_name.empty() && original->status.nominated_node_name.empty()) {
      return QueueingHint::kQueueSkip;
    }
    return QueueingHint::kQueue;
  }
  // Without in-place resize a pod update cannot release resources.
  if (!options_.enable_in_place_pod_vertical_scaling) return QueueingHint::kQueueSkip;
  if (original == nullptr) return util::InvalidArgument("NodeResourcesFit: a pod update event without the old pod");
  return IsSchedulableAfterPodScaleDown(pod, *original, *modified) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> Fit::IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                               const framework::EventObject& old_obj,
                                                               const framework::EventObject& new_obj,
                                                               const framework::ExtendedResourceClasses* classes) {
  const api::Node* original = old_obj.As<api::Node>();
  const api::Node* modified = new_obj.As<api::Node>();
  if (modified == nullptr || (!old_obj.empty() && original == nullptr)) {
    return util::InvalidArgument("NodeResourcesFit: unexpected objects in a node event: want Nodes");
  }
  const Resource pod_request = ComputePodResourceRequest(pod);
  const Resource modified_allocatable(modified->status.allocatable.value_or_default());
  NameSet dra_backed;
  if (classes != nullptr) dra_backed = DraBackedResources(pod_request, *classes);
  const NameSet* backed = dra_backed.empty() ? nullptr : &dra_backed;
  // Not even an empty node of this size would take the pod.
  if (!FitsRequestImpl(pod_request, modified_allocatable, Resource(), 0, nullptr, nullptr, backed).empty()) {
    return QueueingHint::kQueueSkip;
  }
  if (original == nullptr) return QueueingHint::kQueue;
  if (!HaveAnyRequestedResourcesIncreased(pod_request, Resource(original->status.allocatable.value_or_default()), modified_allocatable,
                                          backed)) {
    return QueueingHint::kQueueSkip;
  }
  return QueueingHint::kQueue;
}

util::StatusOr<QueueingHint> Fit::IsSchedulableAfterDeviceClassEvent(const api::Pod& pod,
                                                                     const framework::EventObject& old_obj,
                                                                     const framework::EventObject& new_obj) {
  const api::DeviceClass* original = old_obj.As<api::DeviceClass>();
  const api::DeviceClass* modified = new_obj.As<api::DeviceClass>();
  if (modified == nullptr || (!old_obj.empty() && original == nullptr)) {
    return util::InvalidArgument("NodeResourcesFit: unexpected objects in a DeviceClass event: want DeviceClasses");
  }
  // kube reads the pod's requests with default options here.
  const api::ResourceList requests = api::PodRequests(pod);
  if (original != nullptr) {
    if (original->spec.extended_resource_name.value_or("") == modified->spec.extended_resource_name.value_or("")) {
      return QueueingHint::kQueueSkip;
    }
  } else if (requests.count(std::string(api::kDeviceClassExtendedResourcePrefix) + modified->metadata.name) > 0) {
    // An update never renames a class: its implicit name matters on Add only.
    return QueueingHint::kQueue;
  }
  if (modified->spec.extended_resource_name && requests.count(*modified->spec.extended_resource_name) > 0) {
    return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

util::StatusOr<std::unique_ptr<Fit>> NewFit(const config::PluginArgs& args, const framework::FeatureGates& features,
                                           std::shared_ptr<const framework::SharedDRAManager> dra) {
  util::StatusOr<NodeResourcesFitArgs> fit_args = config::ArgsAs<NodeResourcesFitArgs>(args);
  if (!fit_args.ok()) return fit_args.status();
  FitOptions options;
  options.enable_queueing_hints = features.scheduler_queueing_hints;
  if (features.dra_extended_resource) options.dra = std::move(dra);
  return std::make_unique<Fit>(*fit_args, options);
}

framework::Status Fit::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  const framework::Resource request = ComputePodResourceRequest(pod);
  if (options_.dra != nullptr && !request.scalar_resources.empty() &&
      !DraBackedResources(request, *options_.dra->ExtendedResources()).empty()) {
    return framework::Status(framework::Code::kUnschedulable,
                             "signature disabled when dra extended resources are used in the cluster");
  }
  out.push_back({framework::signer::kResources, ResourceRequestSignature(request)});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::noderesources
