#include "pkg/scheduler/plugins/coscheduling/args.h"

#include <fmt/format.h>

namespace ksched::scheduler::plugins::coscheduling {

CoschedulingArgs DefaultArgs() { return CoschedulingArgs{}; }

util::Status ValidateArgs(const CoschedulingArgs& args) {
  if (args.permit_waiting_time_seconds < 0) {
    return util::InvalidArgument(fmt::format("permitWaitingTimeSeconds: Invalid value: {}: must be greater than or equal to 0",
                                             args.permit_waiting_time_seconds));
  }
  if (args.pod_group_backoff_seconds < 0) {
    return util::InvalidArgument(fmt::format("podGroupBackoffSeconds: Invalid value: {}: must be greater than or equal to 0",
                                             args.pod_group_backoff_seconds));
  }
  return util::Status::Ok();
}

}  // namespace ksched::scheduler::plugins::coscheduling
