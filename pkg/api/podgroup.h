// PodGroup (scheduling.x-k8s.io/v1alpha1): the custom resource of
// kubernetes-sigs/scheduler-plugins that declares a gang for Coscheduling.
// Pods join a group with the label kPodGroupLabel = <PodGroup name>, in the
// PodGroup's namespace. The CRD is manifests/crds/scheduling.x-k8s.io_podgroups.yaml.
//
// Only the fields scheduler-plugins' API has; the codec (codec_podgroup.cc)
// follows codec.h's rules (unknown fields ignored, wrong types are errors
// with the field path, FromJson(ToJson(x)) == x).
//
// Value types; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/api/codec.h"
#include "pkg/api/types.h"

namespace ksched::api {

// The label naming a pod's PodGroup.
inline constexpr std::string_view kPodGroupLabel = "scheduling.x-k8s.io/pod-group";

// status.phase values (scheduler-plugins' PodGroupPhase).
namespace podgroup_phase {
inline constexpr std::string_view kPending = "Pending";
inline constexpr std::string_view kScheduling = "Scheduling";
inline constexpr std::string_view kScheduled = "Scheduled";
inline constexpr std::string_view kRunning = "Running";
inline constexpr std::string_view kFinished = "Finished";
inline constexpr std::string_view kFailed = "Failed";
inline constexpr std::string_view kUnknown = "Unknown";
}  // namespace podgroup_phase

struct PodGroupSpec {
  // Pods that must be placed together; 0 treats the group as no gang.
  int32_t min_member = 0;
  // What minMember pods need in total (checked against free capacity).
  ResourceList min_resources;
  // How long members wait at Permit for the rest of the group.
  std::optional<int32_t> schedule_timeout_seconds;

  bool operator==(const PodGroupSpec&) const = default;
};

struct PodGroupStatus {
  std::string phase;
  std::string occupied_by;
  int32_t scheduled = 0;
  int32_t running = 0;
  int32_t succeeded = 0;
  int32_t failed = 0;
  std::optional<Time> schedule_start_time;

  bool operator==(const PodGroupStatus&) const = default;
};

struct PodGroup {
  ObjectMeta metadata;
  PodGroupSpec spec;
  PodGroupStatus status;
};

using PodGroupList = List<PodGroup>;

template <>
struct TypeInfo<PodGroup> {
  static constexpr const char* kApiVersion = "scheduling.x-k8s.io/v1alpha1";
  static constexpr const char* kKind = "PodGroup";
  static constexpr const char* kResource = "podgroups";
  static constexpr bool kNamespaced = true;
};

// The PodGroup a pod names ("" when it has no kPodGroupLabel).
std::string_view PodGroupNameOf(const Pod& pod);

}  // namespace ksched::api
