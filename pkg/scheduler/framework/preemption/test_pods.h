// Pod builders for the preemption tests. Test-only.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "pkg/api/types.h"

namespace ksched::scheduler::framework::preemption::testing {

inline api::Time T(int seconds) { return api::Time(std::chrono::seconds(1'700'000'000 + seconds)); }

// A pod of priority `prio`, started at T(start) (no start time when start < 0).
inline std::shared_ptr<api::Pod> P(const std::string& name, int32_t prio, int start = 0,
                                   const std::string& ns = "default") {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = name;
  p->metadata.namespace_ = ns;
  p->metadata.uid = "uid-" + name;
  p->spec.priority = prio;
  if (start >= 0) p->status.start_time = T(start);
  return p;
}

}  // namespace ksched::scheduler::framework::preemption::testing
