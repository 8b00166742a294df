#include "pkg/api/pod_helpers.h"

#include "pkg/api/labels.h"

namespace ksched::api {

bool IsPrefixedNativeResourceName(std::string_view name) {
  return name.find(kResourceDefaultNamespacePrefix) != std::string_view::npos;
}

bool IsNativeResourceName(std::string_view name) {
  return name.find('/') == std::string_view::npos || IsPrefixedNativeResourceName(name);
}

bool IsExtendedResourceName(std::string_view name) {
  if (IsNativeResourceName(name) || name.starts_with(kResourceRequestsPrefix)) return false;
  // Quota names these "requests.<name>", which must be a qualified name.
  return ValidateLabelKey(std::string(kResourceRequestsPrefix) + std::string(name)).ok();
}

bool IsHugePageResourceName(std::string_view name) { return name.starts_with(kResourceHugePagesPrefix); }

bool IsAttachableVolumeResourceName(std::string_view name) {
  return name.starts_with(kResourceAttachableVolumesPrefix);
}

bool IsScalarResourceName(std::string_view name) {
  return IsExtendedResourceName(name) || IsHugePageResourceName(name) || IsPrefixedNativeResourceName(name) ||
         IsAttachableVolumeResourceName(name);
}

bool IsRestartableInitContainer(const Container& container) {
  return container.restart_policy && *container.restart_policy == kContainerRestartPolicyAlways;
}

bool IsPodTerminal(const Pod& pod) {
  return pod.status.phase == kPodSucceeded || pod.status.phase == kPodFailed;
}

bool IsScheduled(const Pod& pod) { return !pod.spec.node_name.empty(); }

const PodCondition* GetPodCondition(const PodStatus& status, std::string_view type) {
  for (const PodCondition& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

const PodResourceClaimStatus* GetClaimStatus(const PodStatus& status, std::string_view entry_name) {
  for (const PodResourceClaimStatus& s : status.resource_claim_statuses) {
    if (s.name == entry_name) return &s;
  }
  return nullptr;
}

std::vector<HostPort> PodHostPorts(const Pod& pod) {
  std::vector<HostPort> out;
  auto collect = [&out](const Container& c) {
    for (const ContainerPort& p : c.ports) {
      if (p.host_port <= 0) continue;
      out.push_back({p.host_ip.empty() ? std::string(kDefaultBindAllHostIP) : p.host_ip,
                     p.protocol.empty() ? std::string(kProtocolTCP) : p.protocol, p.host_port});
    }
  };
  for (const Container& c : pod.spec.init_containers) {
    if (IsRestartableInitContainer(c)) collect(c);
  }
  for (const Container& c : pod.spec.containers) collect(c);
  return out;
}

}  // namespace ksched::api
