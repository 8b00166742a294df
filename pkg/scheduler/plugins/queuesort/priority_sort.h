// PrioritySort: the default QueueSort plugin. Higher spec.priority first;
// equal priorities in order of their queue timestamp (first come, first
// served).
//
// Thread-safety: stateless; safe to call concurrently.
#pragma once

#include <memory>
#include <string_view>

#include "pkg/scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::queuesort {

inline constexpr std::string_view kName = "PrioritySort";

class PrioritySort final : public framework::QueueSortPlugin {
 public:
  std::string_view Name() const override { return kName; }
  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override;
  bool OrdersByPriorityThenTimestamp() const override { return true; }
};

std::unique_ptr<PrioritySort> New();

}  // namespace ksched::scheduler::plugins::queuesort
