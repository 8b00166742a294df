#include "pkg/scheduler/apiwriter/pod_status_patch.h"

#include "pkg/api/codec.h"

namespace ksched::scheduler::apiwriter {

PodSchedulingStatus PodSchedulingStatus::FromPod(const api::PodStatus& status) {
  PodSchedulingStatus s;
  s.nominated_node_name = status.nominated_node_name;
  for (const api::PodCondition& c : status.conditions) {
    if (c.type != kPodScheduled) continue;
    s.condition = PodScheduledCondition{c.status, c.reason, c.message, c.observed_generation};
    s.condition_transition_time = c.last_transition_time;
    break;
  }
  return s;
}

void PodStatusUpdate::MergeFrom(const PodStatusUpdate& newer) {
  if (newer.condition) condition = newer.condition;
  if (newer.nominated_node_name) nominated_node_name = newer.nominated_node_name;
}

namespace {

bool ConditionChanges(const PodSchedulingStatus& current, const PodStatusUpdate& update) {
  return update.condition && (!current.condition || *current.condition != *update.condition);
}

bool NominatedNodeChanges(const PodSchedulingStatus& current, const PodStatusUpdate& update) {
  return update.nominated_node_name && *update.nominated_node_name != current.nominated_node_name;
}

// A new condition, or one whose status flips, starts a new transition.
bool Transitions(const PodSchedulingStatus& current, const PodScheduledCondition& c) {
  return !current.condition || current.condition->status != c.status;
}

}  // namespace

PodSchedulingStatus ApplyUpdate(const PodSchedulingStatus& current, const PodStatusUpdate& update,
                                api::Time now) {
  PodSchedulingStatus next = current;
  if (ConditionChanges(current, update)) {
    if (Transitions(current, *update.condition)) next.condition_transition_time = now;
    next.condition = update.condition;
  }
  if (update.nominated_node_name) next.nominated_node_name = *update.nominated_node_name;
  return next;
}

std::optional<nlohmann::json> PodStatusPatch(const PodSchedulingStatus& current,
                                             const PodStatusUpdate& update, api::Time now) {
  bool condition = ConditionChanges(current, update);
  bool nominated = NominatedNodeChanges(current, update);
  if (!condition && !nominated) return std::nullopt;

  nlohmann::json status = nlohmann::json::object();
  if (condition) {
    const PodScheduledCondition& c = *update.condition;
    nlohmann::json entry = {{"type", kPodScheduled},
                            {"status", c.status},
                            {"reason", c.reason},
                            {"message", c.message}};
    if (c.observed_generation) entry["observedGeneration"] = *c.observed_generation;
    if (Transitions(current, c)) {
      entry["lastTransitionTime"] = api::FormatTime(now);
    } else if (current.condition_transition_time) {
      entry["lastTransitionTime"] = api::FormatTime(*current.condition_transition_time);
    }
    status["conditions"] = nlohmann::json::array({entry});
  }
  if (nominated) {
    const std::string& node = *update.nominated_node_name;
    // null deletes the field: the API omits an empty nominatedNodeName.
    status["nominatedNodeName"] = node.empty() ? nlohmann::json(nullptr) : nlohmann::json(node);
  }
  return nlohmann::json{{"status", status}};
}

}  // namespace ksched::scheduler::apiwriter
