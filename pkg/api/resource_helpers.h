// Pod resource requests and limits as kube-scheduler computes them
// (k8s.io/component-helpers/resource PodRequests / PodLimits).
//
// The effective request of a pod, per resource, is
//   max( sum(regular containers) + sum(sidecars),
//        max over init containers i of InitUse(i) )  + overhead
// where sidecars are init containers with restartPolicy Always and
//   InitUse(i) = request of init container i
//                + sum(sidecars declared before i)       for an ordinary init container,
//   InitUse(i) = sum(sidecars declared up to and including i)  for a sidecar,
// because a sidecar keeps running while later init containers and then the
// regular containers run. Limits use the same algorithm, and overhead is
// added only to resources that already have a limit.
//
// Pure functions; the result's quantities keep the format of the first
// quantity summed for each resource.
#pragma once

#include <cstdint>

#include "pkg/api/pod_helpers.h"
#include "pkg/api/types.h"

namespace ksched::api {

// kube-scheduler's defaults for the "non-zero" requested resources, used
// when scoring pods that leave cpu or memory unset.
inline constexpr int64_t kDefaultMilliCPURequest = 100;             // 0.1 core
inline constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;  // 200 MB

struct PodResourcesOptions {
  bool exclude_overhead = false;
  // When set, a container lacking a request for one of these resources
  // counts this value instead (kube-scheduler's non-zero defaults for
  // scoring: cpu 100m, memory 200Mi). A request explicitly set to zero stays
  // zero.
  ResourceList non_missing_container_requests;
};

ResourceList PodRequests(const Pod& pod, const PodResourcesOptions& opts = {});
// Same algorithm over limits (non_missing_container_requests is ignored).
ResourceList PodLimits(const Pod& pod, const PodResourcesOptions& opts = {});

// {cpu: 100m, memory: 200Mi}: pass as non_missing_container_requests to get
// kube-scheduler's non-zero requests.
ResourceList NonZeroDefaultRequests();

// A container's requests with every resource of `non_missing` it lacks
// filled in.
ResourceList ContainerRequestsWithDefaults(const Container& container, const ResourceList& non_missing);

// list[r] += add[r] for every resource of `add`.
void AddResourceList(ResourceList* list, const ResourceList& add);
// list[r] = max(list[r], other[r]) for every resource of `other`.
void MaxResourceList(ResourceList* list, const ResourceList& other);

}  // namespace ksched::api
