#include "pkg/simulate/jumping_clock.h"

#include <mutex>

namespace ksched::simulate {

bool JumpingClock::WaitUntil(std::unique_lock<std::mutex>&, std::condition_variable&,
                             util::TimePoint deadline) const {
  std::lock_guard<std::mutex> l(jump_mu_);
  if (fake_.Now() < deadline) fake_.SetTime(deadline);
  return true;
}

}  // namespace ksched::simulate
