// CoschedulingArgs: the plugin's arguments, as scheduler-plugins' config
// type has them (the KubeSchedulerConfiguration side is wired separately).
//
// Value type; thread-compatible.
#pragma once

#include <cstdint>

#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::coscheduling {

struct CoschedulingArgs {
  // How long a member waits at Permit for its gang when the PodGroup sets no
  // scheduleTimeoutSeconds; also how long a passed capacity pre-check is
  // trusted.
  int64_t permit_waiting_time_seconds = 60;
  // How long a gang is refused at PreFilter after a member failed; 0: no
  // group backoff.
  int64_t pod_group_backoff_seconds = 0;
};

// scheduler-plugins' defaults (60 and 0).
CoschedulingArgs DefaultArgs();

// InvalidArgument naming the field when a value is negative.
util::Status ValidateArgs(const CoschedulingArgs& args);

}  // namespace ksched::scheduler::plugins::coscheduling
