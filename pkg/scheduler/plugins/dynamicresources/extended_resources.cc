#include "pkg/scheduler/plugins/dynamicresources/extended_resources.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "pkg/api/pod_helpers.h"

namespace ksched::scheduler::dra {
namespace {

// One container's request for one resource and the mappings it adds
// (kube's createResourceRequestAndMappings). `reusable` are the requests of
// containers this one may share devices with (entries may be empty).
std::pair<std::optional<api::DeviceRequest>, std::vector<api::ContainerExtendedResourceRequest>>
ContainerRequest(size_t container_index, const api::Container& container, const std::string& resource,
                 const std::string& class_name, const std::vector<std::optional<api::DeviceRequest>>& reusable,
                 size_t reusable_from) {
  std::vector<api::ContainerExtendedResourceRequest> mappings;
  const api::ResourceList& requests = container.resources.requests;
  auto it = requests.find(resource);
  if (it == requests.end()) return {std::nullopt, {}};
  // Only whole numbers of devices (Quantity.AsInt64).
  const int64_t milli = it->second.MilliValue();
  if (milli % 1000 != 0 || milli == 0) return {std::nullopt, {}};
  const int64_t wanted = milli / 1000;
  int64_t sum = 0;
  for (size_t i = reusable_from; i < reusable.size(); ++i) {
    if (!reusable[i]) continue;
    sum += reusable[i]->exactly->count;
    mappings.push_back({container.name, resource, reusable[i]->name});
    if (sum >= wanted) return {std::nullopt, std::move(mappings)};
  }
  // The resource's index among the container's request names (the map is
  // sorted as kube sorts them).
  size_t resource_index = static_cast<size_t>(std::distance(requests.begin(), it));
  api::DeviceRequest request;
  request.name = "container-" + std::to_string(container_index) + "-request-" + std::to_string(resource_index);
  api::ExactDeviceRequest exact;
  exact.device_class_name = class_name;
  exact.allocation_mode = api::kDeviceAllocationModeExactCount;
  exact.count = wanted - sum;
  request.exactly = std::move(exact);
  mappings.push_back({container.name, resource, request.name});
  return {std::move(request), std::move(mappings)};
}

}  // namespace

bool HasDeviceClassMappedExtendedResource(const api::ResourceList& requests,
                                          const framework::ExtendedResourceClasses& classes) {
  for (const auto& [name, quantity] : requests) {
    if (quantity.IsZero()) continue;
    if (framework::IsDraExtendedResourceName(name) && classes.Lookup(name) != nullptr) return true;
  }
  return false;
}

ClaimPtr FindExtendedResourceClaim(const api::Pod& pod, const std::vector<ClaimPtr>& claims) {
  for (const ClaimPtr& c : claims) {
    if (c == nullptr) continue;
    auto a = c->metadata.annotations.find(std::string(api::kExtendedResourceClaimAnnotation));
    if (a == c->metadata.annotations.end() || a->second != "true") continue;
    for (const api::OwnerReference& ref : c->metadata.owner_references) {
      if (ref.name == pod.metadata.name && ref.controller.value_or(false) && ref.uid == pod.metadata.uid) return c;
    }
  }
  return nullptr;
}

api::ResourceClaim NewExtendedResourceClaim(const api::Pod& pod, std::string temporary_uid) {
  api::ResourceClaim claim;
  claim.metadata.namespace_ = pod.metadata.namespace_;
  claim.metadata.name = std::string(kSpecialClaimName);
  claim.metadata.uid = std::move(temporary_uid);
  claim.metadata.generate_name = pod.metadata.name + "-extended-resources-";
  api::OwnerReference owner;
  owner.api_version = "v1";
  owner.kind = "Pod";
  owner.name = pod.metadata.name;
  owner.uid = pod.metadata.uid;
  owner.controller = true;
  claim.metadata.owner_references.push_back(std::move(owner));
  claim.metadata.annotations[std::string(api::kExtendedResourceClaimAnnotation)] = "true";
  return claim;
}

ExtendedRequests CreateRequestsAndMappings(const api::Pod& pod,
                                           const std::map<std::string, int64_t, std::less<>>& resources,
                                           const framework::ExtendedResourceClasses& classes) {
  std::vector<const api::Container*> containers;
  for (const api::Container& c : pod.spec.init_containers) containers.push_back(&c);
  for (const api::Container& c : pod.spec.containers) containers.push_back(&c);
  const size_t num_init = pod.spec.init_containers.size();
  std::vector<size_t> long_lived;
  std::vector<size_t> short_lived;
  for (size_t i = 0; i < containers.size(); ++i) {
    if (i < num_init && !api::IsRestartableInitContainer(*containers[i])) {
      short_lived.push_back(i);
    } else {
      long_lived.push_back(i);
    }
  }

  ExtendedRequests out;
  for (const auto& [resource, quantity] : resources) {
    const api::DeviceClass* cls = classes.Lookup(resource);
    if (cls == nullptr) continue;
    const std::string& class_name = cls->metadata.name;
    std::vector<api::ContainerExtendedResourceRequest> long_mappings;
    std::vector<api::ContainerExtendedResourceRequest> short_mappings;
    // Indexed like `containers`: what each long-lived container requests.
    std::vector<std::optional<api::DeviceRequest>> long_requests(containers.size());
    for (size_t i : long_lived) {
      auto [request, mappings] = ContainerRequest(i, *containers[i], resource, class_name, {}, 0);
      long_requests[i] = std::move(request);
      long_mappings.insert(long_mappings.end(), mappings.begin(), mappings.end());
    }
    std::optional<api::DeviceRequest> max_short;
    std::set<std::string> short_names;
    for (size_t i : short_lived) {
      auto [request, mappings] = ContainerRequest(i, *containers[i], resource, class_name, long_requests, i);
      if (request) {
        short_names.insert(request->name);
        if (!max_short || max_short->exactly->count < request->exactly->count) max_short = request;
      }
      short_mappings.insert(short_mappings.end(), mappings.begin(), mappings.end());
    }
    // The init containers run one after another: they share the largest
    // of their requests.
    if (max_short && short_names.size() > 1) {
      short_names.erase(max_short->name);
      for (api::ContainerExtendedResourceRequest& m : short_mappings) {
        if (short_names.count(m.request_name) > 0) m.request_name = max_short->name;
      }
    }
    if (max_short) out.requests.push_back(*max_short);
    for (std::optional<api::DeviceRequest>& r : long_requests) {
      if (r) out.requests.push_back(std::move(*r));
    }
    out.mappings.insert(out.mappings.end(), long_mappings.begin(), long_mappings.end());
    out.mappings.insert(out.mappings.end(), short_mappings.begin(), short_mappings.end());
    (void)quantity;
  }
  std::sort(out.requests.begin(), out.requests.end(),
            [](const api::DeviceRequest& a, const api::DeviceRequest& b) { return a.name < b.name; });
  return out;
}

}  // namespace ksched::scheduler::dra
