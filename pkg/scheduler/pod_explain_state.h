// PodExplainState: where a pending pod is in the scheduler and which
// cluster events would move it (Scheduler::ExplainPod, for /debug/explain).
// Value types.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pkg/util/clock.h"

namespace ksched::scheduler {

// One cluster event that may move the pod, and the plugins registering it.
struct RequeueEvent {
  std::string event;  // DescribeClusterEvent
  std::vector<std::string> plugins;
  // Some plugin decides per event with a QueueingHint (else any such
  // event moves the pod).
  bool hinted = false;
};

// Where a pod is and what would move it (Scheduler::ExplainPod).
struct PodExplainState {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string scheduler_name;
  std::string location = "unknown";
  std::string node;
  int attempts = 0;
  std::optional<util::TimePoint> backoff_until;
  std::optional<util::TimePoint> unschedulable_since;
  std::vector<std::string> unschedulable_plugins;
  std::vector<std::string> pending_plugins;
  std::string gating_plugin;
  std::vector<std::string> waiting_on_permit_plugins;
  std::vector<RequeueEvent> requeue_events;
  util::Duration unschedulable_timeout{};
  std::string last_failure_message;
};

}  // namespace ksched::scheduler
