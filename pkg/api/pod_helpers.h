// Small, pure helpers over pods and resource names, following
// k8s.io/component-helpers (corev1helpers), k8s.io/kubernetes pkg/api/v1
// (podutil, v1helper) and kube-scheduler's util package.
//
// Every function is pure and safe to call concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/types.h"

namespace ksched::api {

// Core resource names.
inline constexpr std::string_view kResourceCPU = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kResourcePods = "pods";
inline constexpr std::string_view kResourceHugePagesPrefix = "hugepages-";
inline constexpr std::string_view kResourceAttachableVolumesPrefix = "attachable-volumes-";
inline constexpr std::string_view kResourceDefaultNamespacePrefix = "kubernetes.io/";
inline constexpr std::string_view kResourceRequestsPrefix = "requests.";

// Unprefixed names ("cpu") and names in a *kubernetes.io/ domain.
bool IsNativeResourceName(std::string_view name);
// Names in a *kubernetes.io/ domain ("kubernetes.io/foo", "x.kubernetes.io/y").
bool IsPrefixedNativeResourceName(std::string_view name);
// Not native, not "requests."-prefixed, and "requests.<name>" is a valid
// qualified name: "nvidia.com/gpu", "example.com/dongle".
bool IsExtendedResourceName(std::string_view name);
bool IsHugePageResourceName(std::string_view name);
bool IsAttachableVolumeResourceName(std::string_view name);
// Resources NodeInfo tracks in its scalar map: extended, hugepages,
// prefixed-native and attachable-volume resources.
bool IsScalarResourceName(std::string_view name);

inline constexpr std::string_view kContainerRestartPolicyAlways = "Always";
inline constexpr std::string_view kPodSucceeded = "Succeeded";
inline constexpr std::string_view kPodFailed = "Failed";

// spec.priority, 0 when unset (corev1helpers.PodPriority; the admission
// plugin normally fills it). Inline: queue ordering calls it per comparison.
inline int32_t PodPriority(const Pod& pod) { return pod.spec.priority.value_or(0); }
// An init container with restartPolicy Always (a sidecar): it keeps running
// beside the regular containers.
bool IsRestartableInitContainer(const Container& container);
// "namespace/name", the key stores and queues use (api::KeyOf).
inline std::string PodKey(const Pod& pod) { return KeyOf(pod.metadata); }
// Succeeded or Failed: the pod's containers will not run again.
bool IsPodTerminal(const Pod& pod);
// True once spec.nodeName is set (bound, or assumed by this scheduler).
bool IsScheduled(const Pod& pod);
// The condition of that type, or nullptr. Points into `status`.
const PodCondition* GetPodCondition(const PodStatus& status, std::string_view type);
// What status.resourceClaimStatuses records for the spec.resourceClaims
// entry of that name (the claim generated from its template), or nullptr
// when nothing is recorded yet. Points into `status`.
const PodResourceClaimStatus* GetClaimStatus(const PodStatus& status, std::string_view entry_name);

struct HostPort {
  std::string host_ip;   // "0.0.0.0" when the container left it empty
  std::string protocol;  // "TCP" when the container left it empty
  int32_t port = 0;

  bool operator==(const HostPort&) const = default;
};
inline constexpr std::string_view kDefaultBindAllHostIP = "0.0.0.0";
inline constexpr std::string_view kProtocolTCP = "TCP";

// The host ports a pod occupies on its node (kube-scheduler's
// util.GetHostPorts): ports with hostPort > 0 of restartable init containers
// (which run for the pod's lifetime), then of regular containers. Ordinary
// init containers are excluded: they finish before the pod runs.
std::vector<HostPort> PodHostPorts(const Pod& pod);

}  // namespace ksched::api
