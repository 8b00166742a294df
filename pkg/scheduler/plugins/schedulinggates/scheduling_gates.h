// SchedulingGates: the PreEnqueue plugin that keeps pods with
// spec.schedulingGates out of activeQ until every gate is removed.
//
// With queueing hints it registers Pod/UpdatePodSchedulingGatesEliminated
// with a hint that queues only the updated pod itself. Without hints it
// registers nothing: the pod's own update releases it.
//
// Thread-safety: immutable after construction; safe to call concurrently.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::schedulinggates {

inline constexpr std::string_view kName = "SchedulingGates";

class SchedulingGates final : public framework::PreEnqueuePlugin, public framework::EnqueueExtensions {
 public:
  explicit SchedulingGates(bool enable_queueing_hints) : enable_queueing_hints_(enable_queueing_hints) {}

  std::string_view Name() const override { return kName; }
  // UnschedulableAndUnresolvable "waiting for scheduling gates: [a b]" while
  // any gate is set.
  framework::Status PreEnqueue(const api::Pod& pod) override;
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  // Queue iff the updated pod is `pod` itself.
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterUpdatePodSchedulingGatesEliminated(
      const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj);

 private:
  bool enable_queueing_hints_;
};

std::unique_ptr<SchedulingGates> New(const framework::FeatureGates& features);

}  // namespace ksched::scheduler::plugins::schedulinggates
