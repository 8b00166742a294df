// DynamicResourcesArgs (kubescheduler.config.k8s.io/v1) and its codec:
// filterTimeout, how long Filter may search one node for devices, defaults
// to 10s (DRASchedulerFilterTimeout is beta and on in v1.34); zero turns the
// limit off; a negative value is invalid. bindingTimeout, how long PreBind
// waits for a device's binding conditions, exists only with
// DRADeviceBindingConditions and DRAResourceClaimDeviceStatus on
// (config::ConfigGates::dra_binding_conditions): then it defaults to 600s
// and must be at least 1s; with them off, setting it is forbidden.
//
// Thread-safety: a plain value; the codec is immutable.
#pragma once

#include <optional>
#include <string>

#include "pkg/config/plugin_args.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::plugins::dynamicresources {

inline constexpr util::Duration kDefaultFilterTimeout = std::chrono::seconds(10);
inline constexpr util::Duration kDefaultBindingTimeout = std::chrono::seconds(600);

struct DynamicResourcesArgs {
  static const config::ArgsCodec& Codec();

  std::optional<util::Duration> filter_timeout;  // default 10s, >= 0
  std::optional<util::Duration> binding_timeout;  // see above
};

config::ErrorList ValidateDynamicResourcesArgs(const std::string& path, const DynamicResourcesArgs& a);

}  // namespace ksched::scheduler::plugins::dynamicresources
