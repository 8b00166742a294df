// CoschedulingArgs (kind CoschedulingArgs in a profile's pluginConfig) and
// its codec, as scheduler-plugins' config type has them:
// permitWaitingTimeSeconds defaults to 60, podGroupBackoffSeconds to 0, and
// neither may be negative.
//
// Thread-safety: a plain value; the codec is immutable.
#pragma once

#include <cstdint>
#include <string>

#include "pkg/config/errors.h"
#include "pkg/config/plugin_args.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::coscheduling {

struct CoschedulingArgs {
  static const config::ArgsCodec& Codec();

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

// The field errors of `args` under `path` ("" for the args themselves).
config::ErrorList ValidateCoschedulingArgs(const std::string& path, const CoschedulingArgs& args);

// InvalidArgument naming the field when a value is negative.
util::Status ValidateArgs(const CoschedulingArgs& args);

}  // namespace ksched::scheduler::plugins::coscheduling
