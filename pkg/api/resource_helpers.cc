#include "pkg/api/resource_helpers.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace ksched::api {
namespace {

enum class Kind { kRequests, kLimits };

const ResourceList& Side(const ResourceRequirements& r, Kind kind) {
  return kind == Kind::kLimits ? r.limits : r.requests;
}

// The container's resources with a resize counted: what the node may hold
// is the larger of the spec and the kubelet's report, and only the report
// when the resize cannot happen. Allocated resources are requests only.
ResourceList ResizedResources(const Pod& pod, const Container& c, const ContainerStatus& cs, Kind kind) {
  const ResourceList& status = Side(*cs.resources, kind);
  const bool infeasible = IsPodResizeInfeasible(pod);
  ResourceList out = infeasible ? status : Side(c.resources, kind);
  if (!infeasible) MaxResourceList(&out, status);
  if (kind == Kind::kRequests) MaxResourceList(&out, cs.allocated_resources);
  return out;
}

// Which of a container's resources an aggregate counts.
enum class Source { kSpec, kAllocated, kActuated, kLargestOwn };

class Aggregator {
 public:
  Aggregator(const Pod& pod, Kind kind, const PodResourcesOptions& opts)
      : pod_(pod), kind_(kind), opts_(opts), infeasible_(opts.use_status_resources && IsPodResizeInfeasible(pod)) {
    if (!opts.use_status_resources) return;
    const auto& pod_status = pod.status.resources;
    reports_resources_ = !pod.status.allocated_resources.empty() || (pod_status && !pod_status->requests.empty());
    for (const auto* list : {&pod.status.init_container_statuses, &pod.status.container_statuses}) {
      for (const ContainerStatus& cs : *list) {
        reports_resources_ = reports_resources_ || !cs.allocated_resources.empty() ||
                             (cs.resources && !cs.resources->requests.empty());
      }
    }
    // By container name; kube 1.35+ looks in the regular containers'
    // statuses first, 1.34 let an init container's win (a valid pod has no
    // clash).
    if (opts.per_source_resize) {
      for (const ContainerStatus& cs : pod.status.init_container_statuses) statuses_[cs.name] = &cs;
      for (const ContainerStatus& cs : pod.status.container_statuses) statuses_[cs.name] = &cs;
    } else {
      for (const ContainerStatus& cs : pod.status.container_statuses) statuses_[cs.name] = &cs;
      for (const ContainerStatus& cs : pod.status.init_container_statuses) statuses_[cs.name] = &cs;
    }
  }

  ResourceList Aggregate() const {
    if (!opts_.use_status_resources) return AggregateOf(Source::kSpec);
    if (!opts_.per_source_resize || kind_ == Kind::kLimits) return AggregateOf(Source::kLargestOwn);
    // Without a report (a pending pod), every source's aggregate is the
    // spec's.
    if (!reports_resources_ && !infeasible_) return AggregateOf(Source::kSpec);
    ResourceList out = infeasible_ ? ResourceList{} : AggregateOf(Source::kSpec);
    // The kubelet's pod-level report already sums the containers.
    const auto& pod_status = pod_.status.resources;
    if (opts_.pod_level_status && !pod_.status.allocated_resources.empty() && pod_status &&
        !pod_status->requests.empty()) {
      MaxResourceList(&out, pod_.status.allocated_resources);
      MaxResourceList(&out, pod_status->requests);
      return out;
    }
    MaxResourceList(&out, AggregateOf(Source::kAllocated));
    MaxResourceList(&out, AggregateOf(Source::kActuated));
    return out;
  }

 private:
  // `running`: a regular container or a sidecar (1.34 counts only their
  // resizes).
  ResourceList Of(const Container& c, bool running, Source source) const {
    ResourceList own = Own(c, running, source);
    if (kind_ == Kind::kRequests) {
      for (const auto& [name, quantity] : opts_.non_missing_container_requests) own.emplace(name, quantity);
    }
    return own;
  }

  ResourceList Own(const Container& c, bool running, Source source) const {
    if (source == Source::kSpec) return Side(c.resources, kind_);
    auto it = statuses_.find(c.name);
    const ContainerStatus* cs = it == statuses_.end() ? nullptr : it->second;
    if (source == Source::kLargestOwn) {
      if (running && cs != nullptr && cs->resources) return ResizedResources(pod_, c, *cs, kind_);
      return Side(c.resources, kind_);
    }
    if (source == Source::kActuated && cs != nullptr && cs->resources && !cs->resources->requests.empty()) {
      return cs->resources->requests;
    }
    if (cs != nullptr && !cs->allocated_resources.empty()) return cs->allocated_resources;
    if (infeasible_) return {};
    return Side(c.resources, kind_);
  }

  ResourceList AggregateOf(Source source) const {
    ResourceList total;
    for (const Container& c : pod_.spec.containers) {
      ResourceList own = Of(c, true, source);
      // Into an empty sum a list moves whole instead of entry by entry (most
      // pods have one container).
      if (total.empty()) {
        total = std::move(own);
      } else {
        AddResourceList(&total, own);
      }
    }

    // Sidecars run beside everything declared after them, so they add to the
    // steady state and to every later init container's peak.
    ResourceList sidecars;
    ResourceList init_peak;
    for (const Container& c : pod_.spec.init_containers) {
      const bool sidecar = IsRestartableInitContainer(c);
      ResourceList own = Of(c, sidecar, source);
      ResourceList in_use;
      if (sidecar) {
        AddResourceList(&total, own);
        AddResourceList(&sidecars, own);
        in_use = sidecars;
      } else {
        in_use = std::move(own);
        AddResourceList(&in_use, sidecars);
      }
      MaxResourceList(&init_peak, in_use);
    }
    MaxResourceList(&total, init_peak);
    return total;
  }

  const Pod& pod_;
  const Kind kind_;
  const PodResourcesOptions& opts_;
  const bool infeasible_;
  // The kubelet reported allocated or actuated requests, for the pod or a
  // container.
  bool reports_resources_ = false;
  std::unordered_map<std::string_view, const ContainerStatus*> statuses_;
};

// Pod-level values replace the aggregate for the resources they set.
void ApplyPodLevel(const ResourceList& pod_level, ResourceList* out) {
  for (const auto& [name, quantity] : pod_level) {
    if (IsSupportedPodLevelResource(name)) (*out)[name] = quantity;
  }
}

// The pod-level values a resize leaves in force (header): `spec` and the
// kubelet's `reported` lists (allocated resources count for requests only).
// Without a status report, the spec.
void ApplyEffectivePodLevel(const Pod& pod, const ResourceList& spec, Kind kind, const PodResourcesOptions& opts,
                            ResourceList* out) {
  if (!opts.pod_level_status || !opts.use_status_resources || !pod.status.resources) {
    ApplyPodLevel(spec, out);
    return;
  }
  ResourceList effective = IsPodResizeInfeasible(pod) ? ResourceList{} : spec;
  MaxResourceList(&effective, Side(*pod.status.resources, kind));
  if (kind == Kind::kRequests) MaxResourceList(&effective, pod.status.allocated_resources);
  if (opts.per_source_resize) {
    ApplyPodLevel(effective, out);
    return;
  }
  // 1.36: the resources the spec names, at their effective value (zero
  // where no source has one).
  for (const auto& [name, quantity] : spec) {
    if (!IsSupportedPodLevelResource(name)) continue;
    auto it = effective.find(name);
    (*out)[name] = it == effective.end() ? Quantity() : it->second;
  }
}

bool AnySupported(const ResourceList& list) {
  for (const auto& [name, quantity] : list) {
    if (IsSupportedPodLevelResource(name)) return true;
  }
  return false;
}

}  // namespace

// With list == &add every name is present, so nothing is inserted and the
// loop's iterators stay valid.
void AddResourceList(ResourceList* list, const ResourceList& add) {
  for (const auto& [name, quantity] : add) {
    auto [it, inserted] = list->emplace(name, quantity);
    if (!inserted) it->second += quantity;
  }
}

void MaxResourceList(ResourceList* list, const ResourceList& other) {
  for (const auto& [name, quantity] : other) {
    auto [it, inserted] = list->emplace(name, quantity);
    if (!inserted && quantity > it->second) it->second = quantity;
  }
}

ResourceList ContainerRequestsWithDefaults(const Container& container, const ResourceList& non_missing) {
  ResourceList out = container.resources.requests;
  for (const auto& [name, quantity] : non_missing) out.emplace(name, quantity);  // keeps present entries
  return out;
}

bool IsSupportedPodLevelResource(std::string_view name) {
  return name == kResourceCPU || name == kResourceMemory || name.starts_with(kResourceHugePagesPrefix);
}

bool IsPodLevelRequestsSet(const Pod& pod) {
  return pod.spec.resources && AnySupported(pod.spec.resources->requests);
}

bool IsPodLevelResourcesSet(const Pod& pod) {
  return pod.spec.resources && (AnySupported(pod.spec.resources->requests) || AnySupported(pod.spec.resources->limits));
}

bool IsPodResizeInfeasible(const Pod& pod) {
  // The first PodResizePending condition decides, as in kube.
  for (const PodCondition& c : pod.status.conditions) {
    if (c.type == "PodResizePending") return c.reason == "Infeasible";
  }
  return false;
}

ResourceList PodRequests(const Pod& pod, const PodResourcesOptions& opts) {
  ResourceList reqs = Aggregator(pod, Kind::kRequests, opts).Aggregate();
  if (!opts.skip_pod_level_resources && IsPodLevelRequestsSet(pod)) {
    ApplyEffectivePodLevel(pod, pod.spec.resources->requests, Kind::kRequests, opts, &reqs);
  }
  if (!opts.exclude_overhead) AddResourceList(&reqs, pod.spec.overhead);
  return reqs;
}

namespace {

struct SchedulingOptions {
  PodResourcesOptions plain;
  PodResourcesOptions non_zero;
};

SchedulingOptions MakeSchedulingOptions(PodResourcesOptions plain) {
  plain.use_status_resources = true;
  plain.non_missing_container_requests.clear();
  PodResourcesOptions non_zero = plain;
  non_zero.non_missing_container_requests = NonZeroDefaultRequests();
  return SchedulingOptions{std::move(plain), std::move(non_zero)};
}

SchedulingOptions& Scheduling() {
  static SchedulingOptions options = MakeSchedulingOptions({});
  return options;
}

}  // namespace

const PodResourcesOptions& SchedulingPodRequestOptions() { return Scheduling().plain; }
const PodResourcesOptions& SchedulingNonZeroPodRequestOptions() { return Scheduling().non_zero; }
void SetSchedulingPodRequestOptions(const PodResourcesOptions& options) {
  Scheduling() = MakeSchedulingOptions(options);
}

ResourceList PodLimits(const Pod& pod, const PodResourcesOptions& opts) {
  ResourceList limits = Aggregator(pod, Kind::kLimits, opts).Aggregate();
  if (!opts.skip_pod_level_resources && IsPodLevelResourcesSet(pod)) {
    ApplyEffectivePodLevel(pod, pod.spec.resources->limits, Kind::kLimits, opts, &limits);
  }
  if (!opts.exclude_overhead) {
    // Overhead raises a limit only where a non-zero one exists: an unset
    // limit means unbounded and stays so.
    for (const auto& [name, quantity] : pod.spec.overhead) {
      auto it = limits.find(name);
      if (it != limits.end() && !it->second.IsZero()) it->second += quantity;
    }
  }
  return limits;
}

ResourceList NonZeroDefaultRequests() {
  return ResourceList{
      {std::string(kResourceCPU), Quantity::FromMilli(kDefaultMilliCPURequest)},
      {std::string(kResourceMemory), Quantity::FromInt(kDefaultMemoryRequest)},
  };
}

}  // namespace ksched::api
