// DynamicResourcesArgs (kubescheduler.config.k8s.io/v1) and its codec:
// filterTimeout, how long Filter may search one node for devices, defaults
// to 10s (DRASchedulerFilterTimeout is beta and on in v1.34); zero turns the
// limit off; a negative value is invalid.
//
// Thread-safety: a plain value; the codec is immutable.
#pragma once

#include <optional>
#include <string>

#include "pkg/config/plugin_args.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::plugins::dynamicresources {

inline constexpr util::Duration kDefaultFilterTimeout = std::chrono::seconds(10);

struct DynamicResourcesArgs {
  static const config::ArgsCodec& Codec();

  std::optional<util::Duration> filter_timeout;  // default 10s, >= 0
};

config::ErrorList ValidateDynamicResourcesArgs(const std::string& path, const DynamicResourcesArgs& a);

}  // namespace ksched::scheduler::plugins::dynamicresources
