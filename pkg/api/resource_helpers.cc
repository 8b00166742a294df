#include "pkg/api/resource_helpers.h"

#include <string>

namespace ksched::api {
namespace {

enum class Kind { kRequests, kLimits };

ResourceList ContainerResources(const Container& c, Kind kind, const PodResourcesOptions& opts) {
  if (kind == Kind::kLimits) return c.resources.limits;
  return ContainerRequestsWithDefaults(c, opts.non_missing_container_requests);
}

ResourceList Aggregate(const Pod& pod, Kind kind, const PodResourcesOptions& opts) {
  ResourceList total;
  for (const Container& c : pod.spec.containers) AddResourceList(&total, ContainerResources(c, kind, opts));

  // Sidecars run beside everything declared after them, so they add to the
  // steady state and to every later init container's peak.
  ResourceList sidecars;
  ResourceList init_peak;
  for (const Container& c : pod.spec.init_containers) {
    ResourceList own = ContainerResources(c, kind, opts);
    ResourceList in_use;
    if (IsRestartableInitContainer(c)) {
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

}  // namespace

void AddResourceList(ResourceList* list, const ResourceList& add) {
  for (const auto& [name, quantity] : add) {
    auto it = list->find(name);
    if (it == list->end()) {
      list->emplace(name, quantity);
    } else {
      it->second += quantity;
    }
  }
}

void MaxResourceList(ResourceList* list, const ResourceList& other) {
  for (const auto& [name, quantity] : other) {
    auto it = list->find(name);
    if (it == list->end()) {
      list->emplace(name, quantity);
    } else if (quantity > it->second) {
      it->second = quantity;
    }
  }
}

ResourceList ContainerRequestsWithDefaults(const Container& container, const ResourceList& non_missing) {
  ResourceList out = container.resources.requests;
  for (const auto& [name, quantity] : non_missing) out.emplace(name, quantity);  // keeps present entries
  return out;
}

ResourceList PodRequests(const Pod& pod, const PodResourcesOptions& opts) {
  ResourceList reqs = Aggregate(pod, Kind::kRequests, opts);
  if (!opts.exclude_overhead) AddResourceList(&reqs, pod.spec.overhead);
  return reqs;
}

ResourceList PodLimits(const Pod& pod, const PodResourcesOptions& opts) {
  ResourceList limits = Aggregate(pod, Kind::kLimits, opts);
  if (!opts.exclude_overhead) {
    // Overhead raises a limit only where one exists: an unset limit means
    // unbounded and stays so.
    for (const auto& [name, quantity] : pod.spec.overhead) {
      auto it = limits.find(name);
      if (it != limits.end()) it->second += quantity;
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
