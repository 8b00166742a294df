// JumpingClock: the simulation's time. A fake clock the simulation steps
// (queue times, backoff flushes), which also jumps to the deadline of any
// wait: the only waiters in a simulation are binding cycles (VolumeBinding's
// PreBind polling for the claims it just bound, Permit waits), and the
// simulation blocks until they finish, so nothing else could ever move time
// for them. A pod whose volumes are bound thus advances time by one poll
// interval (1 s), as the binding takes that long in a cluster.
//
// Correct only where no background thread waits on the clock (the
// simulation never starts the scheduler's loops: it drives them itself).
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <mutex>

#include "pkg/util/clock.h"

namespace ksched::simulate {

class JumpingClock final : public util::Clock {
 public:
  util::TimePoint Now() const override { return fake_.Now(); }
  util::WallTime WallNow() const override { return fake_.WallNow(); }
  // Moves time to `deadline` (never backwards) and returns true at once.
  bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 util::TimePoint deadline) const override;

  // Moves time forward by `d` (d >= 0).
  void Step(util::Duration d) { fake_.Step(d); }

 private:
  // mutable: a wait moves time, and waits are const in util::Clock.
  mutable util::FakeClock fake_;
  mutable std::mutex jump_mu_;  // makes a wait's check-and-set atomic
};

}  // namespace ksched::simulate
