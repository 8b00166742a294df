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
// Pod-level resources (spec.resources, PodLevelResources): a supported
// resource (cpu, memory, hugepages-*) requested at pod level replaces the
// containers' aggregate for that resource; overhead still adds on top.
//
// In-place resize (use_status_resources, InPlacePodVerticalScaling): the
// node may hold either side of a resize in progress, so the spec and the
// kubelet's reports both count; when the pod's resize is Infeasible
// (condition PodResizePending, reason Infeasible) the spec does not, as the
// kubelet will not apply it. Two ways, by kube minor:
//  - 1.34: a container whose status reports resources counts the largest of
//    its spec, status and allocated requests; regular containers and
//    sidecars only (ordinary init containers have finished);
//  - 1.37 on (per_source_resize): the pod counts the largest of three whole
//    pod aggregates, every container included: spec; allocated (a
//    container's allocatedResources, else its spec); actuated (its status
//    requests, else its allocated, else its spec). Under Infeasible a
//    container without a report counts nothing in the last two, and the
//    spec aggregate is dropped. With pod_level_status and the pod's own
//    status.resources.requests and status.allocatedResources reported, those
//    two are the allocated and actuated aggregates.
//
// Pod-level resize (pod_level_status, InPlacePodLevelResourcesVerticalScaling,
// on from 1.36; with use_status_resources): with spec.resources set and
// status.resources reported, a pod-level request is the largest of spec,
// status.resources and status.allocatedResources (the spec left out when
// the resize is Infeasible); a limit the larger of spec and status. 1.36
// replaces exactly the resources spec.resources names (one the status
// lacks counts zero); 1.37 (per_source_resize) every supported one of the
// result.
//
// Which options each scheduler computation uses (kube-scheduler v1.34 with
// its default feature gates: PodLevelResources and InPlacePodVerticalScaling
// on) is stated where it is called; SchedulingPodRequestOptions() below names
// the common one.
//
// Pure functions; the result's quantities keep the format of the first
// quantity summed for each resource.
#pragma once

#include <cstdint>
#include <string_view>

#include "pkg/api/pod_helpers.h"
#include "pkg/api/types.h"

namespace ksched::api {

// kube-scheduler's defaults for the "non-zero" requested resources, used
// when scoring pods that leave cpu or memory unset.
inline constexpr int64_t kDefaultMilliCPURequest = 100;             // 0.1 core
inline constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;  // 200 MB

struct PodResourcesOptions {
  // Count a resized container's status and allocated resources (see above).
  bool use_status_resources = false;
  // With use_status_resources: kube 1.37's per-source aggregates.
  bool per_source_resize = false;
  // With use_status_resources: the pod-level status (see above).
  bool pod_level_status = false;
  // Ignore spec.resources (as with PodLevelResources off).
  bool skip_pod_level_resources = false;
  bool exclude_overhead = false;
  // When set, a container lacking a request for one of these resources
  // counts this value instead (kube-scheduler's non-zero defaults for
  // scoring: cpu 100m, memory 200Mi). A request explicitly set to zero stays
  // zero.
  ResourceList non_missing_container_requests;
};

ResourceList PodRequests(const Pod& pod, const PodResourcesOptions& opts = {});

// The options kube-scheduler's NodeInfo accounting, scoring and pod-update
// events use: status resources counted, pod-level resources honoured. (The
// Fit filter of a pending pod leaves use_status_resources off: such a pod
// has not run, so has no status resources.) Process-wide, as kube's gates
// are: set once at start-up (FeatureGates::ApplyProcessWideSwitches), before
// other threads read it; 1.34's until then.
const PodResourcesOptions& SchedulingPodRequestOptions();
// The same with kube's non-zero defaults for containers that request no cpu
// or memory (scoring's requests).
const PodResourcesOptions& SchedulingNonZeroPodRequestOptions();
void SetSchedulingPodRequestOptions(const PodResourcesOptions& options);
// Same algorithm over limits (non_missing_container_requests is ignored).
ResourceList PodLimits(const Pod& pod, const PodResourcesOptions& opts = {});

// Whether `name` may be set at pod level: cpu, memory, hugepages-*.
bool IsSupportedPodLevelResource(std::string_view name);
// Whether spec.resources requests a supported resource.
bool IsPodLevelRequestsSet(const Pod& pod);
// Whether spec.resources requests or limits a supported resource.
bool IsPodLevelResourcesSet(const Pod& pod);
// Whether the pod's PodResizePending condition has reason Infeasible.
bool IsPodResizeInfeasible(const Pod& pod);

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
