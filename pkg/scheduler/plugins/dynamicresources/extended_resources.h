// Extended resources backed by DRA (DRAExtendedResource; kube's
// extendeddynamicresources.go): the pieces DynamicResources builds the
// pod's extended-resource claim from.
//
// A pod asking for `example.com/gpu: 1`, where a DeviceClass names that
// resource (framework::DeviceClassResolver), gets one ResourceClaim for all
// such resources. PreFilter starts from an in-memory claim named
// kSpecialClaimName (not a valid name, so it never meets a real claim) with
// no requests; Filter gives each node its own copy with one ExactCount
// request per container and resource the node does not serve through a
// device plugin; PreBind creates it (generateName "<pod>-extended-
// resources-", the pod as controller, the kExtendedResourceClaimAnnotation)
// and records it in the pod's status.extendedResourceClaimStatus.
//
// Thread-safety: free functions over their arguments.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/scheduler/framework/device_class_resolver.h"
#include "pkg/scheduler/plugins/dynamicresources/claim_tracker.h"

namespace ksched::scheduler::dra {

// kube's specialClaimInMemName.
inline constexpr std::string_view kSpecialClaimName = "<extended-resources>";

// The pod's requests that a class maps (api::PodRequests, default options):
// true when one of them is not zero.
bool HasDeviceClassMappedExtendedResource(const api::ResourceList& requests,
                                          const framework::ExtendedResourceClasses& classes);

// The claim a previous attempt created for the pod: annotated
// kExtendedResourceClaimAnnotation "true" and controlled by the pod (name
// and uid). nullptr when there is none.
ClaimPtr FindExtendedResourceClaim(const api::Pod& pod, const std::vector<ClaimPtr>& claims);

// The in-memory claim of PreFilter: kSpecialClaimName, `temporary_uid` (the
// key of its in-flight allocation), generateName, owner and annotation as
// kube sets them, no requests.
api::ResourceClaim NewExtendedResourceClaim(const api::Pod& pod, std::string temporary_uid);

struct ExtendedRequests {
  std::vector<api::DeviceRequest> requests;  // sorted by name
  std::vector<api::ContainerExtendedResourceRequest> mappings;
};

// kube's createRequestsAndMappings for the resources in `resources` (name
// -> the pod's request): per resource (in name order) and container, a
// request "container-<i>-request-<j>" (i: the index among init containers
// then containers, j: the resource's index among the container's sorted
// request names) for its integral quantity of the mapped class. Init
// containers that run to completion reuse the devices of the long-lived
// containers after them and share one request, the largest of theirs.
ExtendedRequests CreateRequestsAndMappings(const api::Pod& pod,
                                           const std::map<std::string, int64_t, std::less<>>& resources,
                                           const framework::ExtendedResourceClasses& classes);

}  // namespace ksched::scheduler::dra
