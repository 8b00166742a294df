#include "pkg/log/log.h"

namespace ksched::log {

void Init(int verbosity) {
  SetVerbosity(verbosity);
  // Level letter, date-time with microseconds, thread id, message: close to
  // klog's header so operators can grep ksched logs the same way.
  spdlog::set_pattern("%L%m%d %H:%M:%S.%f %t] %v");
  spdlog::set_level(spdlog::level::info);
  spdlog::flush_on(spdlog::level::warn);
}

int Verbosity() { return VerbosityStorage().load(std::memory_order_relaxed); }

void SetVerbosity(int v) { VerbosityStorage().store(v < 0 ? 0 : v, std::memory_order_relaxed); }

}  // namespace ksched::log
