#include "pkg/scheduler/plugins/noderesources/resource_allocation.h"

#include <array>
#include <cmath>
#include <memory>
#include <type_traits>

#include "pkg/api/pod_helpers.h"
#include "pkg/api/resource_helpers.h"
#include "pkg/log/log.h"
#include "pkg/scheduler/plugins/helper/shape_score.h"

namespace ksched::scheduler::plugins::noderesources {

namespace {

using framework::kMaxNodeScore;

constexpr int64_t kMaxUtilization = 100;

std::vector<int64_t> Weights(const std::vector<ResourceSpec>& resources) {
  std::vector<int64_t> weights;
  weights.reserve(resources.size());
  for (const ResourceSpec& r : resources) weights.push_back(r.weight);
  return weights;
}

// The weighted average of per_resource(requested, allocatable) over the
// resources the node offers.
template <class PerResource>
[[gnu::always_inline]] inline int64_t WeightedAverage(const std::vector<int64_t>& weights, const int64_t* requested,
                                                      const int64_t* allocatable, size_t n,
                                                      PerResource per_resource) {
  int64_t node_score = 0;
  int64_t weight_sum = 0;
  for (size_t i = 0; i < n; ++i) {
    if (allocatable[i] == 0) continue;
    node_score += per_resource(requested[i], allocatable[i]) * weights[i];
    weight_sum += weights[i];
  }
  return weight_sum == 0 ? 0 : node_score / weight_sum;
}

int64_t RequestedToCapacityRatio(const std::vector<int64_t>& weights, const std::vector<helper::ShapePoint>& shape,
                                 const int64_t* requested, const int64_t* allocatable, size_t n) {
  int64_t node_score = 0;
  int64_t weight_sum = 0;
  for (size_t i = 0; i < n; ++i) {
    if (allocatable[i] == 0) continue;
    const int64_t utilization =
        requested[i] > allocatable[i] ? kMaxUtilization : requested[i] * kMaxUtilization / allocatable[i];
    const int64_t score = helper::BrokenLinear(shape, utilization);
    if (score <= 0) continue;
    node_score += score * weights[i];
    weight_sum += weights[i];
  }
  if (weight_sum == 0) return 0;
  return std::llround(static_cast<double>(node_score) / static_cast<double>(weight_sum));
}

}  // namespace

int64_t LeastRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return ((capacity - requested) * kMaxNodeScore) / capacity;
}

int64_t MostRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  // Pods without requests count non-zero defaults, so requested may exceed
  // capacity; such a node is simply full.
  if (requested > capacity) requested = capacity;
  return (requested * kMaxNodeScore) / capacity;
}

namespace {

// A resource's utilization fraction, capped at 1.
[[gnu::always_inline]] inline double Fraction(int64_t requested, int64_t allocatable) {
  const double f = static_cast<double>(requested) / static_cast<double>(allocatable);
  return f > 1 ? 1.0 : f;
}

[[gnu::always_inline]] inline int64_t BalanceScore(double std_dev) {
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

// BalancedResourceScore inline for the default configuration's case (cpu
// and memory, both offered), out of line otherwise.
[[gnu::always_inline]] inline int64_t BalancedScore(const int64_t* requested, const int64_t* allocatable, size_t n) {
  if (n == 2 && allocatable[0] != 0 && allocatable[1] != 0) {
    return BalanceScore(std::abs((Fraction(requested[0], allocatable[0]) - Fraction(requested[1], allocatable[1])) / 2));
  }
  return BalancedResourceScore(requested, allocatable, n);
}

}  // namespace

int64_t BalancedResourceScore(const int64_t* requested, const int64_t* allocatable, size_t n) {
  auto fraction = [&](size_t i) { return Fraction(requested[i], allocatable[i]); };
  // Two passes over the fractions instead of collecting them: no allocation.
  size_t count = 0;
  double total = 0;
  double first = 0;
  double second = 0;
  for (size_t i = 0; i < n; ++i) {
    if (allocatable[i] == 0) continue;
    const double f = fraction(i);
    if (count == 0) first = f;
    if (count == 1) second = f;
    total += f;
    ++count;
  }
  double std_dev = 0;
  if (count == 2) {
    std_dev = std::abs((first - second) / 2);
  } else if (count > 2) {
    const double mean = total / static_cast<double>(count);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
      if (allocatable[i] == 0) continue;
      const double d = fraction(i) - mean;
      sum += d * d;
    }
    std_dev = std::sqrt(sum / static_cast<double>(count));
  }
  return BalanceScore(std_dev);
}

ScoreFn::ScoreFn(Strategy strategy, const std::vector<ResourceSpec>& resources, std::vector<helper::ShapePoint> shape)
    : strategy_(strategy), weights_(Weights(resources)), shape_(std::move(shape)) {}

// Inline: ScoreFieldsOnly runs it per node.
template <ScoreFn::Strategy S>
[[gnu::always_inline]] inline int64_t ScoreFn::Score(const int64_t* requested, const int64_t* allocated,
                                                     const int64_t* allocatable, size_t n) const {
  if constexpr (S == Strategy::kLeastAllocated) {
    return WeightedAverage(weights_, requested, allocatable, n, LeastRequestedScore);
  } else if constexpr (S == Strategy::kMostAllocated) {
    return WeightedAverage(weights_, requested, allocatable, n, MostRequestedScore);
  } else if constexpr (S == Strategy::kRequestedToCapacityRatio) {
    return RequestedToCapacityRatio(weights_, shape_, requested, allocatable, n);
  } else if constexpr (S == Strategy::kBalanced) {
    return BalancedScore(requested, allocatable, n);
  } else {
    static_assert(S == Strategy::kBalancedChange);
    const int64_t with_pod = BalancedScore(requested, allocatable, n);
    const int64_t without_pod = BalancedScore(allocated, allocatable, n);
    // Both lie in [50, 100], so the dividend is never negative.
    return kMaxNodeScore / 2 + (kMaxNodeScore / 2 + with_pod - without_pod) / 2;
  }
}

namespace {

// Calls f(std::integral_constant<ScoreFn::Strategy, s>{}): the one switch
// from a strategy value to code compiled for it.
template <class F>
auto WithStrategy(ScoreFn::Strategy s, F&& f) {
  using Strategy = ScoreFn::Strategy;
  switch (s) {
    case Strategy::kLeastAllocated:
      return f(std::integral_constant<Strategy, Strategy::kLeastAllocated>{});
    case Strategy::kMostAllocated:
      return f(std::integral_constant<Strategy, Strategy::kMostAllocated>{});
    case Strategy::kRequestedToCapacityRatio:
      return f(std::integral_constant<Strategy, Strategy::kRequestedToCapacityRatio>{});
    case Strategy::kBalanced:
      return f(std::integral_constant<Strategy, Strategy::kBalanced>{});
    case Strategy::kBalancedChange:
      break;  // below, as is a value out of range
  }
  return f(std::integral_constant<Strategy, Strategy::kBalancedChange>{});
}

}  // namespace

int64_t ScoreFn::operator()(const int64_t* requested, const int64_t* allocated, const int64_t* allocatable,
                            size_t n) const {
  return WithStrategy(strategy_, [&](auto s) { return Score<s()>(requested, allocated, allocatable, n); });
}

ScoreFn LeastAllocatedScorer(const std::vector<ResourceSpec>& resources) {
  return ScoreFn(ScoreFn::Strategy::kLeastAllocated, resources);
}

ScoreFn MostAllocatedScorer(const std::vector<ResourceSpec>& resources) {
  return ScoreFn(ScoreFn::Strategy::kMostAllocated, resources);
}

ScoreFn RequestedToCapacityRatioScorer(const std::vector<ResourceSpec>& resources,
                                       const std::vector<config::UtilizationShapePoint>& shape) {
  return ScoreFn(ScoreFn::Strategy::kRequestedToCapacityRatio, resources, helper::ScaledShape(shape, kMaxNodeScore));
}

ScoreFn BalancedAllocationScorer(bool half_difference) {
  return ScoreFn(half_difference ? ScoreFn::Strategy::kBalancedChange : ScoreFn::Strategy::kBalanced, {});
}

ResourceAllocationScorer::ResourceAllocationScorer(std::vector<ResourceSpec> resources, bool use_requested,
                                                   ScoreFn scorer, api::PodResourcesOptions pod_options)
    : resources_(std::move(resources)),
      use_requested_(use_requested),
      scorer_(std::move(scorer)),
      pod_options_(std::move(pod_options)) {
  if (!use_requested_) pod_options_.non_missing_container_requests = api::NonZeroDefaultRequests();
  kinds_.reserve(resources_.size());
  field_reads_.reserve(resources_.size());
  only_fields_ = resources_.size() <= kInlineResources;
  for (const ResourceSpec& r : resources_) {
    // Ephemeral storage has no non-zero default: its node side is always
    // NodeInfo::requested().
    if (r.name == api::kResourceCPU) {
      kinds_.push_back(Kind::kField);
      field_reads_.push_back({&framework::Resource::milli_cpu, false});
    } else if (r.name == api::kResourceMemory) {
      kinds_.push_back(Kind::kField);
      field_reads_.push_back({&framework::Resource::memory, false});
    } else if (r.name == api::kResourceEphemeralStorage) {
      kinds_.push_back(Kind::kField);
      field_reads_.push_back({&framework::Resource::ephemeral_storage, true});
    } else {
      const bool scalar = api::IsScalarResourceName(r.name);
      kinds_.push_back(scalar ? Kind::kScalar : Kind::kUntracked);
      field_reads_.push_back({nullptr, false});
      only_fields_ = false;
      may_be_dra_backed_ = may_be_dra_backed_ || (scalar && framework::IsDraExtendedResourceName(r.name));
    }
  }
}

std::vector<int64_t> ResourceAllocationScorer::PodRequests(const api::Pod& pod) const {
  const api::ResourceList requests = api::PodRequests(pod, pod_options_);
  std::vector<int64_t> out;
  out.reserve(resources_.size());
  for (const ResourceSpec& r : resources_) {
    auto it = requests.find(r.name);
    if (it == requests.end()) {
      out.push_back(0);
    } else {
      out.push_back(r.name == api::kResourceCPU ? it->second.MilliValue() : it->second.Value());
    }
  }
  return out;
}

bool ResourceAllocationScorer::IsBestEffort(const std::vector<int64_t>& pod_requests) {
  for (int64_t r : pod_requests) {
    if (r != 0) return false;
  }
  return true;
}

std::shared_ptr<const DraScoring> ResourceAllocationScorer::GatherDra(const framework::SharedDRAManager* dra) const {
  if (dra == nullptr || !may_be_dra_backed_) return nullptr;
  auto out = std::make_shared<DraScoring>();
  out->classes = dra->ExtendedResources();
  bool any = false;
  for (size_t i = 0; i < resources_.size(); ++i) {
    const api::DeviceClass* c = nullptr;
    if (kinds_[i] == Kind::kScalar && framework::IsDraExtendedResourceName(resources_[i].name)) {
      c = out->classes->Lookup(resources_[i].name);
    }
    out->by_resource.push_back(c);
    any = any || c != nullptr;
  }
  if (!any) return nullptr;
  out->devices = dra->GatherDeviceCapacity();
  return out;
}

framework::DeviceTotals ResourceAllocationScorer::DraTotals(const framework::NodeInfo& node_info,
                                                            const DraScoring& dra, size_t i) const {
  const api::Node* node = node_info.node();
  if (node == nullptr) return {};
  util::StatusOr<framework::DeviceTotals> totals = dra.devices->Totals(*node, *dra.by_resource[i]);
  if (!totals.ok()) {
    KLOG_V(4, "Failed to calculate DRA resource capacity and allocated on node {} for resource {} (device class {}): {}",
           node->metadata.name, resources_[i].name, dra.by_resource[i]->metadata.name, totals.status().message());
    return {};
  }
  return *totals;
}

void ResourceAllocationScorer::ScalarAllocatableAndRequested(const framework::NodeInfo& node_info, size_t i,
                                                             int64_t pod_request, const DraScoring* dra,
                                                             int64_t* allocatable, int64_t* requested) const {
  *allocatable = 0;
  *requested = 0;
  // An extended resource the pod does not ask for must not make nodes that
  // offer it look emptier.
  if (pod_request == 0) return;
  *allocatable = node_info.allocatable().Scalar(resources_[i].name);
  // Not served by a device plugin here: count the node's devices.
  if (*allocatable == 0 && dra != nullptr && dra->by_resource[i] != nullptr) {
    const framework::DeviceTotals devices = DraTotals(node_info, *dra, i);
    if (devices.capacity > 0) {
      *allocatable = devices.capacity;
      *requested = devices.allocated + pod_request;
      return;
    }
  }
  if (*allocatable != 0) *requested = node_info.requested().Scalar(resources_[i].name) + pod_request;
}

// Inline: Score runs it per resource, node and plugin.
[[gnu::always_inline]] inline void ResourceAllocationScorer::AllocatableAndRequested(
    const framework::NodeInfo& node_info, size_t i, int64_t pod_request, const DraScoring* dra, int64_t* allocatable,
    int64_t* requested) const {
  switch (kinds_[i]) {
    case Kind::kField: {
      const FieldRead& f = field_reads_[i];
      *allocatable = node_info.allocatable().*f.field;
      *requested = NodeSide(node_info, f).*f.field + pod_request;
      break;
    }
    case Kind::kScalar:
      ScalarAllocatableAndRequested(node_info, i, pod_request, dra, allocatable, requested);
      return;
    case Kind::kUntracked:
      *allocatable = 0;
      break;
  }
  if (*allocatable == 0) *requested = 0;
}

// Inline: Score and ScoreNodes run it per node.
[[gnu::always_inline]] inline int64_t ResourceAllocationScorer::ScoreConfigured(
    const framework::NodeInfo& node_info, const std::vector<int64_t>& pod_requests, const DraScoring* dra) const {
  const size_t n = resources_.size();
  // Three arrays of n: on the stack up to kInlineResources.
  std::array<int64_t, 3 * kInlineResources> inline_amounts;
  std::unique_ptr<int64_t[]> heap_amounts;
  int64_t* amounts = inline_amounts.data();
  if (n > kInlineResources) {
    heap_amounts = std::make_unique<int64_t[]>(3 * n);
    amounts = heap_amounts.get();
  }
  int64_t* requested = amounts;
  int64_t* allocated = amounts + n;
  int64_t* allocatable = amounts + 2 * n;
  for (size_t i = 0; i < n; ++i) {
    const int64_t pod_request = i < pod_requests.size() ? pod_requests[i] : 0;
    AllocatableAndRequested(node_info, i, pod_request, dra, &allocatable[i], &requested[i]);
    allocated[i] = allocatable[i] == 0 ? 0 : requested[i] - pod_request;
  }
  return scorer_(requested, allocated, allocatable, n);
}

std::pair<int64_t, framework::Status> ResourceAllocationScorer::Score(const framework::NodeInfo& node_info,
                                                                      const std::vector<int64_t>& pod_requests,
                                                                      const DraScoring* dra) const {
  if (resources_.empty()) return {0, framework::Status::Error("resources not found")};
  return {ScoreConfigured(node_info, pod_requests, dra), framework::Status()};
}

template <ScoreFn::Strategy S, size_t kResources>
void ResourceAllocationScorer::ScoreFieldsOnly(std::span<const framework::NodeInfo* const> nodes,
                                               const std::vector<int64_t>& pod_requests,
                                               framework::NodeScore* out, const ScoreMemo& memo) const {
  const size_t n = kResources != 0 ? kResources : field_reads_.size();
  // Per resource, decided once for the run: the field, which of the node's
  // sums it is read from (NodeSide), the pod's request.
  int64_t framework::Resource::* field[kInlineResources];
  bool from_requested[kInlineResources];
  int64_t pod[kInlineResources];
  for (size_t i = 0; i < n; ++i) {
    field[i] = field_reads_[i].field;
    from_requested[i] = ReadsRequested(field_reads_[i]);
    pod[i] = i < pod_requests.size() ? pod_requests[i] : 0;
  }
  int64_t requested[kInlineResources];
  int64_t allocated[kInlineResources];
  int64_t allocatable[kInlineResources];
  constexpr uint8_t kScoreBits = 0x7f;
  for (size_t j = 0; j < nodes.size(); ++j) {
    const framework::NodeInfo& node_info = *nodes[j];
    if (const uint8_t known = memo.where.Read(node_info.memo()) & kScoreBits; known != 0) {
      out[j].score = known - 1;
      continue;
    }
    const framework::Resource& alloc = node_info.allocatable();
#pragma GCC unroll 4
    for (size_t i = 0; i < n; ++i) {
      const framework::Resource& side = from_requested[i] ? node_info.requested() : node_info.non_zero_requested();
      allocatable[i] = alloc.*field[i];
      // A resource the node does not offer is left out, as in
      // AllocatableAndRequested.
      allocated[i] = allocatable[i] == 0 ? 0 : side.*field[i];
      requested[i] = allocatable[i] == 0 ? 0 : allocated[i] + pod[i];
    }
    const int64_t score = scorer_.Score<S>(requested, allocated, allocatable, n);
    out[j].score = score;
    if (score >= 0 && score < kScoreBits) {
      memo.where.Write(node_info.memo(), static_cast<uint8_t>(memo.flags | (score + 1)));
    }
  }
}

framework::Status ResourceAllocationScorer::ScoreNodes(std::span<const framework::NodeInfo* const> nodes,
                                                       const std::vector<int64_t>& pod_requests,
                                                       const DraScoring* dra, framework::NodeScore* out,
                                                       const ScoreMemo& memo) const {
  if (resources_.empty()) return framework::Status::Error("resources not found");
  if (!only_fields_) {
    for (size_t i = 0; i < nodes.size(); ++i) out[i].score = ScoreConfigured(*nodes[i], pod_requests, dra);
    return framework::Status();
  }
  WithStrategy(scorer_.strategy(), [&](auto s) {
    if (field_reads_.size() == 2) {
      ScoreFieldsOnly<s(), 2>(nodes, pod_requests, out, memo);
    } else {
      ScoreFieldsOnly<s(), 0>(nodes, pod_requests, out, memo);
    }
  });
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::noderesources
