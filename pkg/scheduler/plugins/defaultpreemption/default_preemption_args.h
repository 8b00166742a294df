// DefaultPreemptionArgs (kubescheduler.config.k8s.io/v1) and its codec:
// defaults 10% / 100; percentage in [0, 100], absolute >= 0, not both zero.
//
// Thread-safety: a plain value; the codec is immutable.
#pragma once

#include <cstdint>
#include <optional>

#include "pkg/config/plugin_args.h"

namespace ksched::scheduler::plugins::defaultpreemption {

struct DefaultPreemptionArgs {
  static const config::ArgsCodec& Codec();

  std::optional<int32_t> min_candidate_nodes_percentage;  // default 10, in [0, 100]
  std::optional<int32_t> min_candidate_nodes_absolute;    // default 100, >= 0
};

config::ErrorList ValidateDefaultPreemptionArgs(const std::string& path, const DefaultPreemptionArgs& a);

}  // namespace ksched::scheduler::plugins::defaultpreemption
