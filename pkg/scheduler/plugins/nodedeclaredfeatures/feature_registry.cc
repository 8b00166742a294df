#include "pkg/scheduler/plugins/nodedeclaredfeatures/feature_registry.h"

#include <algorithm>
#include <array>

namespace ksched::scheduler::plugins::nodedeclaredfeatures {
namespace {

bool AnyContainer(const api::Pod& pod, bool (*uses)(const api::Container&)) {
  return std::any_of(pod.spec.containers.begin(), pod.spec.containers.end(), uses) ||
         std::any_of(pod.spec.init_containers.begin(), pod.spec.init_containers.end(), uses);
}

bool RestartsAllContainers(const api::Pod& pod) {
  return AnyContainer(pod, [](const api::Container& c) {
    return std::any_of(c.restart_policy_rules.begin(), c.restart_policy_rules.end(),
                       [](const api::ContainerRestartRule& r) { return r.action == "RestartAllContainers"; });
  });
}

bool UserNamespaceWithHostNetwork(const api::Pod& pod) {
  return pod.spec.host_network && pod.spec.host_users.has_value() && !*pod.spec.host_users;
}

bool UsesBindMountOptions(const api::Pod& pod) {
  return AnyContainer(pod, [](const api::Container& c) {
    return std::any_of(c.volume_mounts.begin(), c.volume_mounts.end(),
                       [](const api::VolumeMount& m) { return !m.bind_mount_options.empty(); });
  });
}

struct Feature {
  std::string_view name;
  int first_minor;
  int last_minor;                   // inclusive
  bool (*required_by)(const api::Pod&);  // null: no pod needs it to be scheduled
};

constexpr int kStill = 1 << 20;

// In byte order of the name, as kube's feature mapper sorts them.
constexpr std::array kFeatures = {
    Feature{"DRANodeAllocatableResources", 37, kStill, nullptr},
    Feature{"DRAOptionalNodeOperations", 37, kStill, nullptr},
    Feature{"ExtendWebSocketsToKubelet", 36, kStill, nullptr},
    Feature{"GuaranteedQoSPodCPUResize", 35, 35, nullptr},
    Feature{"InPlacePodLevelResourcesVerticalScaling", 35, kStill, nullptr},
    Feature{"InPlacePodVerticalScalingInitContainers", 36, kStill, nullptr},
    Feature{"InPlacePodVerticalScalingMemoryBackedVolumes", 37, kStill, nullptr},
    Feature{"RestartAllContainersOnContainerExits", 35, kStill, &RestartsAllContainers},
    Feature{"UserNamespacesHostNetworkSupport", 36, kStill, &UserNamespaceWithHostNetwork},
    Feature{"VolumeBindMountOptions", 37, kStill, &UsesBindMountOptions},
};

bool Listed(const Feature& f, int minor) { return minor >= f.first_minor && minor <= f.last_minor; }

}  // namespace

std::vector<std::string_view> RequiredFeatures(const api::Pod& pod, int minor) {
  std::vector<std::string_view> out;
  for (const Feature& f : kFeatures) {
    if (Listed(f, minor) && f.required_by != nullptr && f.required_by(pod)) out.push_back(f.name);
  }
  return out;
}

bool Declares(const std::vector<std::string>& declared, const std::vector<std::string_view>& required, int minor) {
  // kube's TryMap: walk the declared names and the registry together; a
  // registry name is set when the walk meets it in `declared`.
  std::vector<std::string_view> found;
  size_t i = 0;
  for (const Feature& f : kFeatures) {
    if (!Listed(f, minor)) continue;
    while (i < declared.size() && declared[i] < f.name) ++i;
    if (i == declared.size()) break;
    if (declared[i] == f.name) {
      found.push_back(f.name);
      ++i;
    }
  }
  return std::includes(found.begin(), found.end(), required.begin(), required.end());
}

}  // namespace ksched::scheduler::plugins::nodedeclaredfeatures
