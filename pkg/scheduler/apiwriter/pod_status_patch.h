// The part of a pod's status the scheduler writes, the changes it asks for,
// and the status patch that applies them (kube-scheduler's updatePod).
//
// The scheduler owns two fields of an unscheduled pod's status: the
// PodScheduled condition (status False with reason Unschedulable or
// SchedulerError after a failed attempt) and status.nominatedNodeName (set by
// preemption, cleared on other failures). A PodStatusUpdate names the fields
// to change; PodStatusPatch compares it with the current values and returns
// the strategic merge patch, or nothing when no field would change, so no
// request is sent for a no-op.
//
// As kube-scheduler does, the condition's lastTransitionTime is set to `now`
// only when its status changes (or it is new), and conditions compare by
// status, reason, message and observedGeneration; probe times are ignored.
//
// Thread-safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pkg/api/types.h"

namespace ksched::scheduler::apiwriter {

inline constexpr char kPodScheduled[] = "PodScheduled";
inline constexpr char kConditionFalse[] = "False";
// Reasons of a PodScheduled=False condition.
inline constexpr char kReasonUnschedulable[] = "Unschedulable";
inline constexpr char kReasonSchedulerError[] = "SchedulerError";

struct PodScheduledCondition {
  std::string status = kConditionFalse;
  std::string reason;
  std::string message;
  std::optional<int64_t> observed_generation;  // 1.34+: the pod generation seen

  bool operator==(const PodScheduledCondition&) const = default;
};

// The scheduler-owned fields of a pod's status.
struct PodSchedulingStatus {
  std::optional<PodScheduledCondition> condition;  // absent: no PodScheduled condition
  std::string nominated_node_name;
  // When the present condition last changed status (kept for the next diff).
  std::optional<api::Time> condition_transition_time;

  static PodSchedulingStatus FromPod(const api::PodStatus& status);
};

// Fields to change; an unset field is left alone.
struct PodStatusUpdate {
  std::optional<PodScheduledCondition> condition;
  // "" clears status.nominatedNodeName; a name sets it.
  std::optional<std::string> nominated_node_name;

  bool Empty() const { return !condition && !nominated_node_name; }
  // Overlays `newer`: its set fields replace ours (a later decision wins).
  void MergeFrom(const PodStatusUpdate& newer);
};

// The status after `update` is applied at time `now`.
PodSchedulingStatus ApplyUpdate(const PodSchedulingStatus& current, const PodStatusUpdate& update,
                                api::Time now);

// {"status": {...}} changing `current` as `update` asks, or nullopt when
// nothing would change.
std::optional<nlohmann::json> PodStatusPatch(const PodSchedulingStatus& current,
                                             const PodStatusUpdate& update, api::Time now);

}  // namespace ksched::scheduler::apiwriter
