// JumpingClock: the clock VolumeBinding's PreBind polls on in a
// simulation, which jumps to the deadline of any wait. The simulation
// applies the PV and PVC writes of PreBind at once (RecordedEffects), but
// PreBind checks them only after one poll interval, as kube does; on the
// simulation's own fake clock, which only the simulation steps, and only
// while no binding cycle runs, that wait would never end. Jumping this
// separate clock passes it at once and leaves the simulation's time alone.
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
