// CycleClock: a cheap monotonic tick counter for timing stretches of code
// that are themselves short — the per-node plugin durations of sampled
// scheduling cycles, a parallel loop's alone phase — where a steady_clock read (about 25 ns through the
// vDSO here) costs as much as the code it times. It is a measuring tool,
// not a time source: nothing may wait on it (code that waits takes an
// injected util::Clock).
//
// On x86-64, when the kernel itself keeps time with the TSC (clocksource
// "tsc": the counter is invariant and synchronized across CPUs), Now() is
// one RDTSC (about 10 ns) and the tick rate is calibrated once against
// steady_clock over a few milliseconds. Anywhere else a tick is a
// steady_clock nanosecond.
//
// Thread-safety: every function is thread-safe; the calibration runs once,
// on first use.
#pragma once

#include <atomic>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace ksched::util {

class CycleClock {
 public:
  // Ticks since an arbitrary epoch. Inline: sampled cycles read it twice
  // per plugin and node.
  static int64_t Now() {
#if defined(__x86_64__)
    if (tsc_.load(std::memory_order_relaxed) == kYes) return static_cast<int64_t>(__rdtsc());
#endif
    return NowSlow();
  }
  // Ticks since `start` (a Now() reading), at least 0: a thread moved
  // between CPUs may read a counter a few ticks behind.
  static int64_t TicksSince(int64_t start) {
    const int64_t ticks = Now() - start;
    return ticks > 0 ? ticks : 0;
  }
  // Nanoseconds per tick (1 when ticks are steady_clock nanoseconds).
  static double NanosPerTick();
  // Whether Now() reads the TSC.
  static bool UsesTsc();

 private:
  enum : int { kUnknown = 0, kYes = 1, kNo = 2 };
  // Whether Now() reads the TSC, once the calibration has run.
  static inline std::atomic<int> tsc_{kUnknown};
  // Runs the calibration on first use, then reads the chosen counter.
  static int64_t NowSlow();
};

}  // namespace ksched::util
